import EventLoops
import LinuxSupport

/// The time a head unit runs on: `now` and sleeping until an instant. carplayd gives its
/// controller its first event loop, everything else runs on `Timekeeper.loop` unless given
/// a clock; tests pass a clock they move by hand (virtual time), so that a timeout is a
/// step of the test, not a wait.
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

/// The clock of what must happen on time and is given no loop of its own: the simulated
/// vehicle's status cycle, a controller's deadlines and cyclic frames, a scenario's
/// events. Not `ContinuousClock`: its sleepers wake as jobs of Swift's cooperative pool,
/// which has one thread per CPU, and synchronous work that holds those threads (a long
/// computation, a busy test) would hold every timer with them. A task that sleeps on this
/// loop and prefers it (`Task(executorPreference: clock.executor)`) runs on the loop's own
/// thread instead.
public enum Timekeeper {
    public static let loop: EventLoop = {
        do {
            return try EventLoop(name: "timekeeper")
        } catch {
            fatalError("no event loop for the timers: \(error)")
        }
    }()
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
