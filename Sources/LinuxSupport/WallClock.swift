#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The wall clock (CLOCK_REALTIME): what the kernel and candump stamp frames with.
public enum WallClock {
    public static func now() -> (seconds: Int64, nanoseconds: Int64) {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return (Int64(time.tv_sec), Int64(time.tv_nsec))
    }
}
