#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// CLOCK_MONOTONIC, for intervals and rates (they must not jump when the wall clock is
/// set), and a blocking sleep for threads of their own.
public enum MonotonicTime {
    public static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Blocks the calling thread for `seconds`: for a `DetachedThread`, never a task on
    /// the cooperative pool (use `Task.sleep` there).
    public static func sleep(seconds: Double) {
        let whole = seconds.rounded(.down)
        var time = timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
        withUnsafeMutablePointer(to: &time) { time in
            // Interrupted, nanosleep writes what is left into the same timespec: the
            // retry sleeps the rest.
            _ = try? retryingOnInterrupt { nanosleep(time, time) }
        }
    }
}
