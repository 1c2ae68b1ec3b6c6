import CANBus
import Synchronization

/// Virtual time for tests: `now` moves only when the test calls `advance`, which wakes
/// every sleeper whose deadline it reached. A timeout of 5 s is then one call, not 5 s.
public final class ManualClock: MonotonicClock {
    private struct Sleeper {
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Core {
        var offset: Duration = .zero
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
        /// Sleepers that returned because their deadline was reached.
        var woken = 0
    }

    private let origin: ContinuousClock.Instant
    private let core = Mutex(Core())

    public init() { origin = ContinuousClock.now }

    public var now: ContinuousClock.Instant { core.withLock { origin + $0.offset } }

    /// How far the test moved the clock.
    public var elapsed: Duration { core.withLock { $0.offset } }

    /// Sleepers waiting now.
    public var sleeperCount: Int { core.withLock { $0.sleepers.count } }

    /// Sleepers woken by `advance` so far.
    public var wokenCount: Int { core.withLock { $0.woken } }

    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        let id = core.withLock { core -> Int in
            defer { core.nextID += 1 }
            return core.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now = core.withLock { core -> Bool in
                    if Task.isCancelled { return true }
                    if origin + core.offset >= deadline {
                        core.woken += 1
                        return true
                    }
                    core.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if now {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper = core.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock by `duration` and wakes the sleepers it reached.
    public func advance(by duration: Duration) {
        let due = core.withLock { core -> [CheckedContinuation<Void, any Error>] in
            core.offset += duration
            let now = origin + core.offset
            let ids = core.sleepers.filter { $0.value.deadline <= now }.map(\.key)
            core.woken += ids.count
            return ids.compactMap { core.sleepers.removeValue(forKey: $0)?.continuation }
        }
        for continuation in due { continuation.resume() }
    }
}
