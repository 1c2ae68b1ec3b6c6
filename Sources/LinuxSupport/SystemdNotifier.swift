import CSystemd

#if canImport(Glibc)
import Glibc
#endif

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

    /// `sd_watchdog_enabled(3)`: the service's `WatchdogSec=` when the watchdog is on for
    /// this process (`WATCHDOG_USEC`, and `WATCHDOG_PID` naming us), else nil.
    public static func watchdogTimeout() -> Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }

    /// Pure form of the same check, for tests: `WATCHDOG_USEC` if `WATCHDOG_PID` is absent or `pid`.
    public static func watchdogTimeout(environment: [String: String], pid: Int32) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else { return nil }
        if let owner = environment["WATCHDOG_PID"], Int32(owner) != pid { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }
}

/// Socket activation, `sd_listen_fds(3)`: the listening sockets systemd passed from fd 3 on.
public enum SystemdActivation {
    /// SD_LISTEN_FDS_START.
    public static let firstDescriptor: Int32 = 3

    /// How many descriptors were passed to process `pid`: `LISTEN_FDS` when `LISTEN_PID`
    /// names `pid`, else 0 (the variables were meant for another process, e.g. our parent).
    public static func passedCount(environment: [String: String], pid: Int32) -> Int {
        guard let owner = environment["LISTEN_PID"], let ownerPID = Int32(owner), ownerPID == pid,
            let text = environment["LISTEN_FDS"], let count = Int(text), count > 0
        else { return 0 }
        return count
    }

    /// The passed descriptors (fd 3 ...); unsets `LISTEN_*` so children do not inherit
    /// them, and marks the descriptors close-on-exec (what `sd_listen_fds(1)` does).
    public static func listenedDescriptors() -> [FileDescriptor] {
        let count = sd_listen_fds(1)
        guard count > 0 else { return [] }
        return (0..<count).map { FileDescriptor(rawValue: firstDescriptor + $0) }
    }

    /// True when `fd` is a listening AF_UNIX stream socket (`sd_is_socket_unix`).
    public static func isUnixStreamListener(_ fd: FileDescriptor) -> Bool {
        let streamType: Int32 = 1  // SOCK_STREAM
        return sd_is_socket_unix(fd.rawValue, streamType, 1, nil, 0) > 0
    }

    /// Makes a passed listener non-blocking, as the event loop expects (systemd passes it blocking).
    public static func makeNonBlocking(_ fd: FileDescriptor) throws(Errno) {
        let flags = fcntl(fd.rawValue, F_GETFL)
        guard flags >= 0 else { throw Errno.current }
        guard fcntl(fd.rawValue, F_SETFL, flags | O_NONBLOCK) == 0 else { throw Errno.current }
    }
}

/// The journal's native protocol, `sd_journal_sendv(3)`: one entry of `FIELD=value` pairs.
public enum SystemdJournal {
    /// Whether the process runs under systemd and should log to the journal:
    /// `JOURNAL_STREAM` (stderr goes to the journal) or `INVOCATION_ID` (started by systemd).
    public static func isWanted(environment: [String: String]) -> Bool {
        if let stream = environment["JOURNAL_STREAM"], !stream.isEmpty { return true }
        if let invocation = environment["INVOCATION_ID"], !invocation.isEmpty { return true }
        return false
    }

    /// Sends one entry. Field names must be upper case ASCII, digits and `_`, not starting
    /// with `_`; values may contain newlines. Throws when the journal did not take it.
    public static func send(_ fields: [(name: String, value: String)]) throws(Errno) {
        let entries = fields.map { Array(($0.name + "=" + $0.value).utf8) }
        let storage = entries.map { bytes -> UnsafeMutableRawBufferPointer in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 1)
            buffer.copyBytes(from: bytes)
            return buffer
        }
        defer { for buffer in storage { buffer.deallocate() } }
        let vectors = zip(storage.indices, entries).map { index, bytes in
            iovec(iov_base: storage[index].baseAddress, iov_len: bytes.count)
        }
        let result = vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        if result < 0 { throw Errno(-result) }
    }
}
