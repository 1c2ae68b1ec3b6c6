import Foundation
import LinuxSupport
import Synchronization

/// Swift's cooperative pool has one thread per CPU, and Swift Testing runs every test on
/// it. A test that computes for seconds without suspending holds one of those threads
/// for that long; two of them on a 2-core machine hold the whole pool, and nothing else
/// that waits for a pool thread runs meanwhile. These helpers keep long work off the pool,
/// and hold the pool on purpose to show what must not depend on it.
public enum CooperativePool {
    /// Runs `work` on a thread of its own and returns its result: the calling task
    /// suspends, so the pool thread it held is free for other tests meanwhile.
    public static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            do {
                try DetachedThread.start(name: "test-work") {
                    continuation.resume(with: Result { try work() })
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// A long computation's share of a pool thread: `yieldIfDue()` between two pieces of
    /// work gives the thread up once `slice` has been used, so the other tests' jobs run
    /// in between (for work with `#expect`s inside, which must stay in the test's task).
    public struct Turn {
        private let slice: Duration
        private var since = ContinuousClock.now

        public init(slice: Duration = .milliseconds(20)) { self.slice = slice }

        public mutating func yieldIfDue() async {
            guard ContinuousClock.now - since >= slice else { return }
            await Task.yield()
            since = .now
        }
    }

    /// What `hold(for:)` found.
    public struct Hold: Sendable {
        /// A job put on the pool after the blockers had started waited from `heldFrom` to
        /// `heldUntil` for a thread: so long the pool ran nothing new (its threads were held
        /// by the blockers, and by whatever else held them meanwhile).
        public var heldFrom: ContinuousClock.Instant
        public var heldUntil: ContinuousClock.Instant
    }

    /// Holds every thread of the cooperative pool for about `duration` with blocking work,
    /// as a long synchronous test does, and returns when it is over. It starts many more
    /// blockers than there are CPUs; each blocks until one shared deadline, so those that
    /// start late end with the rest. Call it from a thread that is not the pool's
    /// (`offThePool`): the caller would otherwise wait for a pool thread to hear that it
    /// is over.
    public static func hold(for duration: Duration) -> Hold {
        let blockers = 8 * max(ProcessInfo.processInfo.activeProcessorCount, 1)
        let deadline = ContinuousClock.now + duration
        let state = Blockers()
        let over = DispatchSemaphore(value: 0)
        for _ in 0..<blockers {
            Task.detached {
                while ContinuousClock.now < deadline { usleep(2_000) }
                if state.counts.withLock({
                    $0.done += 1; return $0.done == blockers
                }) {
                    over.signal()
                }
            }
        }
        // The probe: a job queued once the blockers had time to take the threads.
        usleep(200_000)
        let probed = DispatchSemaphore(value: 0)
        let queued = ContinuousClock.now
        Task.detached {
            state.counts.withLock { $0.probeRan = .now }
            probed.signal()
        }
        over.wait()
        probed.wait()
        return Hold(heldFrom: queued, heldUntil: state.counts.withLock { $0.probeRan ?? queued })
    }

    private final class Blockers: Sendable {
        let counts = Mutex((done: 0, probeRan: ContinuousClock.Instant?.none))
    }
}
