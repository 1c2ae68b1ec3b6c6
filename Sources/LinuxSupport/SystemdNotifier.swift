import CSystemd

/// `sd_notify(3)`: tells the service manager about readiness and status.
/// Without `NOTIFY_SOCKET` (not started by systemd) every call is a no-op.
public struct SystemdNotifier: Sendable {
    public init() {}

    /// Sends `state` (e.g. "READY=1\nSTATUS=…"). Returns true when systemd received it.
    @discardableResult
    public func notify(_ state: String) throws(Errno) -> Bool {
        let result = sd_notify(0, state)
        if result < 0 { throw Errno(-result) }
        return result > 0
    }
}
