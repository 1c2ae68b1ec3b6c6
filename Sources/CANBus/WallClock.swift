import CANKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension CandumpTimestamp {
    /// The wall clock (CLOCK_REALTIME), as the kernel and candump stamp frames.
    public static func now() -> CandumpTimestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return CandumpTimestamp(seconds: Int64(time.tv_sec), microseconds: UInt32(time.tv_nsec / 1000))
    }
}
