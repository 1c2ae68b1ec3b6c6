/// The time a head unit runs on: `now` and sleeping until an instant. The daemon uses
/// `ContinuousClock`; tests pass a clock they move by hand (virtual time), so that a
/// timeout is a step of the test, not a wait.
public protocol MonotonicClock: Sendable {
    var now: ContinuousClock.Instant { get }
    /// Returns at `deadline` or later; throws when the calling task is cancelled.
    func sleep(until deadline: ContinuousClock.Instant) async throws
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
