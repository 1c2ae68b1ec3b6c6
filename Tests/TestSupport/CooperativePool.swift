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

    /// What `hold(for:)` found.
    public struct Hold: Sendable {
        /// When the pool was held by every blocker that could start: from the moment the
        /// last of the first `ProcessInfo.activeProcessorCount` blockers started.
        public var heldFrom: ContinuousClock.Instant
        public var heldUntil: ContinuousClock.Instant
        /// How many blockers ran at once, at most: at least the pool's width when the
        /// pool was really held.
        public var mostAtOnce: Int
    }

    /// Holds every thread of the cooperative pool for `duration` with blocking work, as a
    /// long synchronous test does, and returns when it is over. It starts many more blockers
    /// than there are CPUs; each blocks until one shared deadline, so those that start late
    /// end with the rest. Call it from a thread that is not the pool's (`offThePool`):
    /// the caller would otherwise wait for a pool thread to hear that it is over.
    public static func hold(for duration: Duration) -> Hold {
        let cpus = max(ProcessInfo.processInfo.activeProcessorCount, 1)
        let blockers = 8 * cpus
        let start = ContinuousClock.now
        let deadline = start + duration
        let state = Blockers()
        let over = DispatchSemaphore(value: 0)
        for _ in 0..<blockers {
            Task.detached {
                state.counts.withLock { state in
                    state.running += 1
                    state.most = max(state.most, state.running)
                    state.starts.append(.now)
                }
                while ContinuousClock.now < deadline { usleep(2_000) }
                let last = state.counts.withLock { state -> Bool in
                    state.running -= 1
                    state.done += 1
                    return state.done == blockers
                }
                if last { over.signal() }
            }
        }
        over.wait()
        return state.counts.withLock { state in
            let first = state.starts.sorted().prefix(cpus)
            return Hold(heldFrom: first.last ?? deadline, heldUntil: deadline, mostAtOnce: state.most)
        }
    }

    private final class Blockers: Sendable {
        let counts = Mutex((running: 0, most: 0, starts: [ContinuousClock.Instant](), done: 0))
    }
}
