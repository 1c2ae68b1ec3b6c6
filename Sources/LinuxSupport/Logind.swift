import CSystemd
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A logind session: its id ("3", "c1") and its D-Bus object path.
public struct LogindSession: Sendable, Hashable {
    public var id: String
    public var path: String

    public init(id: String, path: String) {
        self.id = id
        self.path = path
    }
}

/// systemd-logind, as far as the caller's device lock needs it: the session a process
/// belongs to (asked of logind over the system bus: a hardened service cannot read
/// other users' /proc entries, logind can), a seat's active session (sd-login, from
/// /run/systemd), and a session's `LockedHint`.
public enum Logind {
    /// The logind session of `pid`; nil when it is in none (a system service, a process
    /// started outside a login). A failure when logind cannot be asked.
    public static func session(ofPID pid: Int32) -> Result<LogindSession?, LogindError> {
        bus.withLock { bus -> Result<LogindSession?, LogindError> in
            guard let connection = bus.open() else { return .failure(LogindError("cannot connect to the system bus")) }
            var message: OpaquePointer?
            guard
                sd_bus_message_new_method_call(
                    connection, &message, "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "GetSessionByPID") >= 0,
                let message
            else { return .failure(LogindError("cannot build a GetSessionByPID call")) }
            defer { _ = sd_bus_message_unref(message) }
            var value = UInt32(bitPattern: pid)
            guard sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &value) >= 0 else {
                return .failure(LogindError("cannot build a GetSessionByPID call"))
            }
            var error = sd_bus_error()
            defer { sd_bus_error_free(&error) }
            var reply: OpaquePointer?
            let called = sd_bus_call(connection, message, 0, &error, &reply)
            defer { if let reply { _ = sd_bus_message_unref(reply) } }
            guard called >= 0, let reply else {
                if let name = error.name, String(cString: name) == "org.freedesktop.login1.NoSessionForPID" { return .success(nil) }
                bus.closeIfBroken(called)
                return .failure(LogindError("GetSessionByPID(\(pid)): \(Self.describe(error, called))"))
            }
            var path: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "o")), &path) >= 0, let path else {
                return .failure(LogindError("GetSessionByPID(\(pid)): no object path in the reply"))
            }
            var id: UnsafeMutablePointer<CChar>?
            guard sd_bus_path_decode(path, "/org/freedesktop/login1/session", &id) > 0, let id else {
                return .failure(LogindError("GetSessionByPID(\(pid)): \(String(cString: path)) is not a session path"))
            }
            defer { free(id) }
            return .success(LogindSession(id: String(cString: id), path: String(cString: path)))
        }
    }

    /// The active session of `seat` (the head unit's screen is "seat0"); nil when none is.
    public static func activeSession(seat: String) -> LogindSession? {
        var session: UnsafeMutablePointer<CChar>?
        guard sd_seat_get_active(seat, &session, nil) >= 0, let session else { return nil }
        defer { free(session) }
        var path: UnsafeMutablePointer<CChar>?
        guard sd_bus_path_encode("/org/freedesktop/login1/session", session, &path) >= 0, let path else { return nil }
        defer { free(path) }
        return LogindSession(id: String(cString: session), path: String(cString: path))
    }

    /// The session's `LockedHint`: what its screen locker last told logind (`loginctl
    /// lock-session` asks the locker; `SetLockedHint` sets it). One D-Bus round trip.
    public static func lockedHint(_ session: LogindSession) -> Result<Bool, LogindError> {
        bus.withLock { bus -> Result<Bool, LogindError> in
            guard let connection = bus.open() else { return .failure(LogindError("cannot connect to the system bus")) }
            var error = sd_bus_error()
            defer { sd_bus_error_free(&error) }
            var locked: Int32 = 0
            let result = sd_bus_get_property_trivial(
                connection, "org.freedesktop.login1", session.path, "org.freedesktop.login1.Session", "LockedHint", &error,
                CChar(UInt8(ascii: "b")), &locked)
            guard result >= 0 else {
                bus.closeIfBroken(result)
                return .failure(LogindError("LockedHint of session \(session.id): \(Self.describe(error, result))"))
            }
            return .success(locked != 0)
        }
    }

    private static func describe(_ error: sd_bus_error, _ result: Int32) -> String {
        error.message.map { String(cString: $0) } ?? "\(Errno(-result))"
    }

    /// One connection to the system bus for all callers, opened on first use: sd-bus
    /// objects are not thread-safe, so calls take turns.
    private struct Bus: ~Copyable {
        var connection: OpaquePointer?

        mutating func open() -> OpaquePointer? {
            if connection == nil {
                var opened: OpaquePointer?
                if sd_bus_open_system(&opened) >= 0 { connection = opened }
            }
            return connection
        }

        /// After a failed call: a connection the bus dropped is opened again next time.
        mutating func closeIfBroken(_ result: Int32) {
            guard result == -ECONNRESET || result == -ENOTCONN || result == -EPIPE, let connection else { return }
            _ = sd_bus_flush_close_unref(connection)
            self.connection = nil
        }
    }

    private static let bus = Mutex(Bus())
}

public struct LogindError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
