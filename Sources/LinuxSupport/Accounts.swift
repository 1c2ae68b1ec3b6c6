#if canImport(Glibc)
import Glibc
#endif

/// Users and groups by name, and a user's groups: for the daemon's authorization.
public enum Accounts {
    public static func userID(named name: String) -> UInt32? {
        if let number = UInt32(name) { return number }
        guard let entry = getpwnam(name) else { return nil }
        return entry.pointee.pw_uid
    }

    public static func groupID(named name: String) -> UInt32? {
        if let number = UInt32(name) { return number }
        guard let entry = getgrnam(name) else { return nil }
        return entry.pointee.gr_gid
    }

    /// Every group of the user with this uid (primary and supplementary).
    public static func groups(ofUser uid: UInt32, primary: UInt32) -> [UInt32] {
        guard let entry = getpwuid(uid) else { return [primary] }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(entry.pointee.pw_name, primary, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(entry.pointee.pw_name, primary, &groups, &count)
        }
        return Array(groups.prefix(Int(max(0, count))))
    }

    public static var currentUserID: UInt32 { getuid() }
}
