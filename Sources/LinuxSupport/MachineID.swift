import CSystemd

/// `sd_id128_get_machine_app_specific(3)`: an ID derived from /etc/machine-id and an
/// application's own 128-bit ID, so the unit's machine ID itself is not given away.
public enum MachineID {
    /// 32 hex digits, or nil without a machine ID (a container without /etc/machine-id).
    public static func appSpecific(_ application: (UInt64, UInt64)) -> String? {
        var app = sd_id128_t()
        withUnsafeMutableBytes(of: &app) { raw in
            raw.storeBytes(of: application.0.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: application.1.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        var id = sd_id128_t()
        guard sd_id128_get_machine_app_specific(app, &id) >= 0 else { return nil }
        return withUnsafeBytes(of: id) { bytes in
            bytes.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        }
    }
}
