#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A libc error number as a typed Swift error (the swift-system idea, kept small).
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The current thread's `errno`.
    public static var current: Errno { Errno(errno) }

    public var description: String {
        guard let message = strerror(rawValue) else { return "errno \(rawValue)" }
        return String(cString: message)
    }
}

/// Runs a libc call that returns -1 on failure, retrying on EINTR in this one place.
@inline(__always)
public func retryingOnInterrupt<T: FixedWidthInteger>(_ call: () -> T) throws(Errno) -> T {
    while true {
        let result = call()
        if result != -1 { return result }
        let error = Errno.current
        if error.rawValue == EINTR { continue }
        throw error
    }
}

/// The error numbers callers above this layer tell apart, so that they need no libc.
extension Errno {
    public static let wouldBlock = Errno(EAGAIN)
    public static let noBufferSpace = Errno(ENOBUFS)

    /// A send the kernel could not take now (a full transmit queue): try again later.
    public var isTransientlyFull: Bool { rawValue == ENOBUFS || rawValue == EAGAIN }

    /// The network interface is down or gone (it may come back, with a new index).
    public var isInterfaceGone: Bool { rawValue == ENETDOWN || rawValue == ENODEV || rawValue == ENXIO }
}
