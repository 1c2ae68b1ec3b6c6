import CarIntents
import Testing

@testable import CarplayDaemon
@testable import LinuxSupport

/// The caller's device lock from logind, decided without logind (an injected reader).
@Suite struct DeviceLockTests {
    /// pid 100 is in session "3", pid 200 in none; seat0's active session is "5".
    static func reader(locked: [String: Result<Bool, LogindError>], activeOnSeat0: String? = "5") -> DeviceLock.LogindReader {
        @Sendable func session(_ id: String) -> LogindSession { LogindSession(id: id, path: "/org/freedesktop/login1/session/_3\(id)") }
        return DeviceLock.LogindReader(
            session: { .success($0 == 100 ? session("3") : nil) }, activeSession: { $0 == "seat0" ? activeOnSeat0.map { session($0) } : nil },
            lockedHint: { locked[$0.id] ?? .failure(LogindError("no session \($0.id)")) }, groups: { uid, primary in uid == 1001 ? [primary, 44] : [primary] })
    }

    static let inSession = PeerCredentials(pid: 100, uid: 1000, gid: 1000)
    static let service = PeerCredentials(pid: 200, uid: 1001, gid: 1001)

    @Test func theCallersSessionDecides() {
        let unlocked = DeviceLock(sessionless: .refuse, trustedUsers: [], trustedGroups: [], logind: Self.reader(locked: ["3": .success(false)]))
        #expect(unlocked.device(of: Self.inSession) == .unlocked)
        let locked = DeviceLock(sessionless: .refuse, trustedUsers: [], trustedGroups: [], logind: Self.reader(locked: ["3": .success(true)]))
        #expect(locked.device(of: Self.inSession) == .locked(reason: "the caller's session 3 is locked: unlock it first"))
        // A session whose hint cannot be read counts as locked.
        let unreadable = DeviceLock(sessionless: .refuse, trustedUsers: [], trustedGroups: [], logind: Self.reader(locked: [:]))
        guard case let .locked(reason) = unreadable.device(of: Self.inSession) else {
            Issue.record("an unreadable hint must count as locked")
            return
        }
        #expect(reason.contains("cannot be read"))
    }

    @Test func aCallerWithoutASessionIsRefusedByDefault() {
        let lock = DeviceLock(sessionless: .refuse, trustedUsers: [], trustedGroups: [], logind: Self.reader(locked: ["5": .success(false)]))
        guard case let .locked(reason) = lock.device(of: Self.service) else {
            Issue.record("a sessionless caller must be refused by default")
            return
        }
        #expect(reason.contains("no logind session") && reason.contains("sessionless-trusted-users"))
        // Root outside a session is the system itself.
        #expect(lock.device(of: PeerCredentials(pid: 200, uid: 0, gid: 0)) == .unlocked)
    }

    @Test func trustedUsersAndGroupsWithoutASessionCountAsUnlocked() {
        let byUser = DeviceLock(sessionless: .refuse, trustedUsers: [1001], trustedGroups: [], logind: Self.reader(locked: [:]))
        #expect(byUser.device(of: Self.service) == .unlocked)
        let bySupplementaryGroup = DeviceLock(sessionless: .refuse, trustedUsers: [], trustedGroups: [44], logind: Self.reader(locked: [:]))
        #expect(bySupplementaryGroup.device(of: Self.service) == .unlocked)
        // Trust is for sessionless callers only: a locked session stays locked.
        let trustedButLocked = DeviceLock(sessionless: .refuse, trustedUsers: [1000], trustedGroups: [], logind: Self.reader(locked: ["3": .success(true)]))
        #expect(trustedButLocked.device(of: Self.inSession) != .unlocked)
    }

    @Test func aSeatsActiveSessionCanStandForSessionlessCallers() {
        let unlocked = DeviceLock(sessionless: .seat("seat0"), trustedUsers: [], trustedGroups: [], logind: Self.reader(locked: ["5": .success(false)]))
        #expect(unlocked.device(of: Self.service) == .unlocked)
        let locked = DeviceLock(sessionless: .seat("seat0"), trustedUsers: [], trustedGroups: [], logind: Self.reader(locked: ["5": .success(true)]))
        #expect(locked.device(of: Self.service) == .locked(reason: "seat0's active session 5 is locked: unlock it first"))
        let nobody = DeviceLock(sessionless: .seat("seat0"), trustedUsers: [], trustedGroups: [], logind: Self.reader(locked: [:], activeOnSeat0: nil))
        #expect(
            nobody.device(of: Self.service) == .locked(reason: "the caller is in no logind session and no session is active on seat0: log in on seat0 first"))
    }

    @Test func theConfigurationNamesTheRestrictedIntents() throws {
        let parse = { (text: String) throws(ConfigurationError) in
            try DaemonConfiguration.parse(arguments: ["--config", "/c"], environment: [:]) { $0 == "/c" ? Array(text.utf8) : nil }
        }
        #expect(try parse("").restrictedWhileLocked == [.setCarLockStatus], "unlocking the car needs an unlocked device by default")
        #expect(try parse("restricted-while-locked = SetCarLockStatus, ActivateCarSignal").restrictedWhileLocked == [.setCarLockStatus, .activateCarSignal])
        #expect(try parse("restricted-while-locked = none").restrictedWhileLocked.isEmpty)
        #expect(try parse("sessionless-callers = seat0").sessionlessCallers == .seat("seat0"))
        #expect(try parse("sessionless-trusted-users = voice, bridge").sessionlessTrustedUsers == ["voice", "bridge"])
        #expect(throws: ConfigurationError.self) { try parse("restricted-while-locked = UnlockEverything") }
        do {
            _ = try parse("sessionless-callers = maybe")
            Issue.record("sessionless-callers = maybe must be refused")
        } catch {
            #expect(error.description.contains("/c:1: sessionless-callers must be refuse or a seat"))
        }
    }
}
