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

/// A wall-clock time of day in the local time zone (TZ, else /etc/localtime).
public struct TimeOfDay: Sendable, Hashable {
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var millisecond: Int

    public init(hour: Int, minute: Int, second: Int, millisecond: Int) {
        self.hour = hour
        self.minute = minute
        self.second = second
        self.millisecond = millisecond
    }
}

extension WallClock {
    /// The local time of day now.
    public static func timeOfDay() -> TimeOfDay {
        let now = now()
        var seconds = time_t(now.seconds)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return TimeOfDay(hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec), millisecond: Int(now.nanoseconds / 1_000_000))
    }
}
