import LinuxSupport

/// The time a head unit runs on: `now` and sleeping until an instant. carplayd uses its
/// first event loop, other programs `ContinuousClock`; tests pass a clock they move by
/// hand (virtual time), so that a timeout is a step of the test, not a wait.
public protocol MonotonicClock: Sendable {
    var now: ContinuousClock.Instant { get }
    /// Returns at `deadline` or later; throws when the calling task is cancelled.
    func sleep(until deadline: ContinuousClock.Instant) async throws
    /// Where a task that sleeps on this clock should run to wake at no extra cost (the
    /// event loop that keeps the time); nil: anywhere.
    var executor: (any TaskExecutor)? { get }
}

extension MonotonicClock {
    public var executor: (any TaskExecutor)? { nil }
}

/// An event loop keeps time in its epoll_wait: a task on it sleeps without a timer
/// thread, and a deadline (a confirmation timeout, a cyclic frame) runs on the thread
/// that reads the bus.
extension EventLoop: MonotonicClock {
    public var now: ContinuousClock.Instant { .now }
    public var executor: (any TaskExecutor)? { self }
}

extension ContinuousClock: MonotonicClock {
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await sleep(until: deadline, tolerance: nil)
    }
}

extension MonotonicClock {
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: now + duration)
    }
}
