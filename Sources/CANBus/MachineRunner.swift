import Synchronization

/// What a `MachineRunner` runs: a pure machine with what its runner keeps beside it
/// (continuations by token, observers), behind the runner's one lock.
public protocol RunnableCore: Sendable {
    /// What a deadline's expiry leaves to do once the lock is released (tasks to resume,
    /// frames to send); `Void` when the core does it all under the lock.
    associatedtype Expired: Sendable
    /// When the machine must next `expire`; nil: nothing is timed.
    var nextDeadline: ContinuousClock.Instant? { get }
    /// Ends what is due by `now`.
    mutating func expire(at now: ContinuousClock.Instant) -> Expired
}

/// Runs a pure machine on a clock: one lock around it, and one timer that wakes at its
/// next deadline. The head unit's `VehicleController` and the simulated vehicle's
/// `SimulatedVehicleNode` are each one of these around their machine: frames reach the
/// machine on the thread that delivers them, through `withCore` or `scheduling`; the
/// timer runs `expire` on the clock's executor and hands what is left to `deliver`
/// outside the lock.
///
/// Its accesses are `@inlinable`: specialized in the owner's module, a lock costs what a
/// `Mutex` of the owner's own would, not a generic call through type metadata.
public final class MachineRunner<Core: RunnableCore>: Sendable {
    public let clock: any MonotonicClock
    @usableFromInline let locked: Mutex<Locked>

    @usableFromInline struct Locked {
        @usableFromInline var core: Core
        @usableFromInline var timer = DeadlineTimer()
        @usableFromInline var deliver: (@Sendable (Core.Expired) -> Void)?

        @usableFromInline init(core: Core) { self.core = core }
    }

    public init(_ core: Core, clock: any MonotonicClock) {
        self.clock = clock
        locked = Mutex(Locked(core: core))
    }

    /// What an expiry leaves to do, outside the lock (the owner's `fire`); before this is
    /// set, expiries are dropped.
    public func onExpired(_ deliver: @escaping @Sendable (Core.Expired) -> Void) {
        locked.withLock { $0.deliver = deliver }
    }

    /// Under the lock, the timer as it is: reads, and changes that bring no earlier
    /// deadline (a waking timer that finds nothing due just sleeps again).
    @inlinable public func withCore<Result, Failure: Error>(_ body: (inout Core) throws(Failure) -> Result) throws(Failure) -> Result {
        try locked.withLock { (locked) throws(Failure) -> Result in try body(&locked.core) }
    }

    /// Under the lock, then the timer set for the machine's next deadline: armed to wake
    /// by it, or cancelled when there is none.
    @inlinable public func scheduling<Result, Failure: Error>(_ body: (inout Core) throws(Failure) -> Result) throws(Failure) -> Result {
        try locked.withLock { (locked) throws(Failure) -> Result in
            let result = try body(&locked.core)
            schedule(&locked)
            return result
        }
    }

    @inlinable func schedule(_ locked: inout Locked) {
        guard let next = locked.core.nextDeadline else {
            locked.timer.cancel()
            return
        }
        locked.timer.arm(for: next, on: clock) { [weak self] arming in self?.timerFired(arming) }
    }

    /// The timer's wake-up: expires what is due unless a later arming replaced it.
    @usableFromInline func timerFired(_ arming: Int) {
        let now = clock.now
        let expired = locked.withLock { locked -> (Core.Expired, (@Sendable (Core.Expired) -> Void))? in
            guard locked.timer.claim(arming) else { return nil }
            let expired = locked.core.expire(at: now)
            schedule(&locked)
            return locked.deliver.map { (expired, $0) }
        }
        if let (expired, deliver) = expired { deliver(expired) }
    }
}

/// Tasks waiting for the machine, by the token it gave: resumed with the value the
/// machine's event carries.
public struct Continuations<Token: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline var waiting: [Token: CheckedContinuation<Value, Never>] = [:]

    public init() {}

    @inlinable public mutating func insert(_ continuation: CheckedContinuation<Value, Never>, for token: Token) {
        waiting[token] = continuation
    }

    /// The task waiting for `token`, no longer waiting: its caller resumes it outside the lock.
    @inlinable public mutating func remove(_ token: Token) -> CheckedContinuation<Value, Never>? {
        waiting.removeValue(forKey: token)
    }

    public var isEmpty: Bool { waiting.isEmpty }
}
