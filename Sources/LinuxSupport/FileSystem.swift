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
