import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Files and directories the daemon keeps: created with explicit modes, replaced atomically.
public enum FileSystem {
    /// Writes `bytes` to `path` so that a crash leaves the old file or the new one,
    /// never a torn one: a temporary file in the same directory, fsync, rename over
    /// the old name, fsync the directory.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws(Errno) {
        let directory = parentDirectory(of: path)
        let temporary = path + ".tmp-\(getpid())"
        let fd = try retryingOnInterrupt { open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode) }
        let file = FileDescriptor(rawValue: fd)
        do {
            try file.writeAll(bytes)
            _ = try retryingOnInterrupt { fsync(fd) }
        } catch {
            _ = close(fd)
            unlink(temporary)
            throw error
        }
        _ = close(fd)
        guard rename(temporary, path) == 0 else {
            let error = Errno.current
            unlink(temporary)
            throw error
        }
        let directoryFD = try retryingOnInterrupt { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { _ = close(directoryFD) }
        _ = try retryingOnInterrupt { fsync(directoryFD) }
    }

    /// `mkdir -p` with `mode` for the directories it creates.
    public static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(Errno) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, mode) != 0 {
                let error = Errno.current
                guard error.rawValue == EEXIST else { throw error }
            }
        }
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// A file this process may execute.
    public static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

    public static func remove(_ path: String) { unlink(path) }

    public static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The running executable's path (/proc/self/exe).
    public static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

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

/// POSIX signals delivered as an AsyncStream (the handler never runs in signal context).
public enum Signals {
    public static let terminate = SIGTERM
    public static let interrupt = SIGINT
    public static let hangup = SIGHUP
    /// The terminal's window changed size.
    public static let windowChange = SIGWINCH

    /// Stops the default action of `signals` and yields each delivery.
    public static func stream(_ signals: [Int32]) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        let keep = SignalSources(sources: sources)
        continuation.onTermination = { _ in keep.cancel() }
        return stream
    }

    public static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }
}

/// Keeps the dispatch sources alive for as long as the stream is.
/// @unchecked Sendable: the sources are only cancelled, which Dispatch allows from any thread.
private final class SignalSources: @unchecked Sendable {
    let sources: [any DispatchSourceSignal]
    init(sources: [any DispatchSourceSignal]) { self.sources = sources }
    func cancel() { for source in sources { source.cancel() } }
}
