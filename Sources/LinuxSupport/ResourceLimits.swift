#if canImport(Glibc)
import Glibc
#endif

/// The process's resource limits (getrlimit/setrlimit) and the CPUs it may use.
public enum ResourceLimits {
    /// The CPUs online (what Foundation's `activeProcessorCount` reads), at least 1.
    public static func onlineProcessors() -> Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// RLIMIT_NOFILE: how many file descriptors the process may have open (soft, hard).
    public static func openFiles() -> (soft: Int, hard: Int) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (1024, 1024) }
        return (clamp(limit.rlim_cur), clamp(limit.rlim_max))
    }

    /// Raises the soft RLIMIT_NOFILE towards the hard one, to at most `cap` (never lowers
    /// it). Returns the soft limit in force afterwards.
    @discardableResult
    public static func raiseOpenFiles(upTo cap: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return openFiles().soft }
        let current = clamp(limit.rlim_cur)
        let target = min(clamp(limit.rlim_max), cap)
        guard target > current else { return current }
        limit.rlim_cur = rlim_t(target)
        guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return current }
        return target
    }

    private static func clamp(_ value: rlim_t) -> Int {
        value > rlim_t(Int.max) ? Int.max : Int(value)  // RLIM_INFINITY is all ones
    }
}
