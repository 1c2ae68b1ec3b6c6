import CANKit
import LinuxSupport

extension CandumpTimestamp {
    /// The wall clock, as the kernel and candump stamp frames.
    public static func now() -> CandumpTimestamp {
        let (seconds, nanoseconds) = WallClock.now()
        return CandumpTimestamp(seconds: seconds, microseconds: UInt32(nanoseconds / 1000))
    }
}
