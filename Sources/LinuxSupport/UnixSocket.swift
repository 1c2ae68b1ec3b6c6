import CCarplayLinux

#if canImport(Glibc)
import Glibc
#endif

/// The uid/gid/pid of the process at the other end of an AF_UNIX socket.
public struct PeerCredentials: Sendable, Hashable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
}

public enum UnixSocketError: Error, Sendable, CustomStringConvertible {
    case pathTooLong(String)
    /// Another process is accepting on this path: a live socket is not stolen.
    case inUse(String)
    case system(String, Errno)

    public var description: String {
        switch self {
        case let .pathTooLong(path): "socket path too long (108 bytes at most): \(path)"
        case let .inUse(path): "\(path) is in use by a running process"
        case let .system(call, errno): "\(call): \(errno)"
        }
    }
}

/// AF_UNIX stream sockets: the calls behind the Varlink server and client.
public enum UnixSocket {
    /// Binds and listens on `path` with file mode `mode`. A socket file left by a
    /// crashed process (nobody accepts on it) is replaced; a live one is not.
    public static func listen(path: String, mode: mode_t = 0o660, backlog: Int32 = 512) throws(UnixSocketError) -> FileDescriptor {
        var address = try makeAddress(path)
        if access(path, F_OK) == 0 {
            // Someone there? Try to connect: refused means stale.
            if let probe = try? connect(path: path) {
                close(probe.rawValue)
                throw .inUse(path)
            }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", Errno.current) }
        // Bind with a restrictive umask so the socket never exists with wider permissions.
        let oldMask = umask(0o777 & ~mode)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        let bindErrno = Errno.current
        umask(oldMask)
        guard bound == 0 else {
            close(fd)
            throw .system("bind \(path)", bindErrno)
        }
        chmod(path, mode)
        guard Glibc.listen(fd, backlog) == 0 else {
            let error = Errno.current
            close(fd)
            throw .system("listen", error)
        }
        return FileDescriptor(rawValue: fd)
    }

    /// Connects to `path` (blocking).
    public static func connect(path: String) throws(UnixSocketError) -> FileDescriptor {
        var address = try makeAddress(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", Errno.current) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let error = Errno.current
            close(fd)
            throw .system("connect \(path)", error)
        }
        return FileDescriptor(rawValue: fd)
    }

    /// Accepts one pending connection (non-blocking); nil when none is pending.
    public static func accept(_ listener: FileDescriptor) throws(Errno) -> FileDescriptor? {
        while true {
            do {
                return FileDescriptor(rawValue: try retryingOnInterrupt { carplay_accept(listener.rawValue) })
            } catch {
                if error.rawValue == EAGAIN || error.rawValue == EWOULDBLOCK { return nil }
                // The peer went away before we accepted: not our error.
                if error.rawValue == ECONNABORTED { continue }
                throw error
            }
        }
    }

    public static func peerCredentials(_ socket: FileDescriptor) throws(Errno) -> PeerCredentials {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
        guard carplay_peer_credentials(socket.rawValue, &pid, &uid, &gid) == 0 else { throw Errno.current }
        return PeerCredentials(pid: pid, uid: uid, gid: gid)
    }

    private static func makeAddress(_ path: String) throws(UnixSocketError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw .pathTooLong(path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            raw[bytes.count] = 0
        }
        return address
    }
}

extension FileDescriptor {
    /// Non-blocking read: nil when no data is available now; 0 bytes at end of file.
    public func readAvailable(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int? {
        do {
            return try retryingOnInterrupt { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
        } catch {
            if error.rawValue == EAGAIN || error.rawValue == EWOULDBLOCK { return nil }
            throw error
        }
    }

    /// Non-blocking write: how many bytes the kernel took (0 when it would block).
    public func writeAvailable(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
        do {
            return try retryingOnInterrupt { Glibc.send(rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
        } catch {
            if error.rawValue == EAGAIN || error.rawValue == EWOULDBLOCK { return 0 }
            throw error
        }
    }

    public func close() {
        _ = Glibc.close(rawValue)
    }
}
