import CANBus
import TestSupport
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents

/// A session's time, moved by the test: the controller and the simulated vehicle run on
/// one `ManualClock`. A timeout is some steps of the test; a loaded machine cannot make
/// a cyclic frame late, because the vehicle sends what is due on the step's thread.
struct VirtualTime: Sendable {
    let clock: ManualClock
    let vehicle: SimulatedVehicleNode?

    /// Moves time by `step`: the vehicle sends what is due before this returns, the
    /// controller's timer wakes for what expired.
    func advance(by step: Duration) {
        clock.advance(by: step)
        vehicle?.runDue()
    }

    /// Runs `operation` while time moves on in `step`s until it returns; nil when it has
    /// not returned after `limit` of virtual time (or 60 s of real time).
    func run<T: Sendable>(
        step: Duration = .milliseconds(10), limit: Duration = .seconds(600), _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        let result = Locked<Result<T, any Error>?>(nil)
        let task = Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await operation()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
        }
        let start = clock.elapsed
        let realStart = ContinuousClock.now
        while result.withLock({ $0 }) == nil {
            guard clock.elapsed - start < limit, ContinuousClock.now - realStart < .seconds(60) else {
                Issue.record("still running after \(clock.elapsed - start) of virtual time")
                task.cancel()
                return nil
            }
            advance(by: step)
            // Real time for the tasks the step woke (the controller's timer, a command's
            // pacing): time moves on only once they had their turn.
            try? await Task.sleep(for: .microseconds(200))
        }
        return try result.withLock { $0 }!.get()
    }

    /// Moves time on until `condition` holds; whether it did within `limit` of virtual time.
    func until(limit: Duration = .seconds(60), step: Duration = .milliseconds(10), _ condition: () async -> Bool) async -> Bool {
        let start = clock.elapsed
        while !(await condition()) {
            guard clock.elapsed - start < limit else { return false }
            advance(by: step)
            try? await Task.sleep(for: .microseconds(200))
        }
        return true
    }
}

/// What a test starts and must stop before it ends.
protocol Stoppable: Sendable {
    func stop() async
}

extension VehicleSession: Stoppable {}

/// Runs `body` with `value` and awaits its `stop()` afterwards, also when `body` throws
/// (a `defer` cannot await).
func stopping<T: Stoppable>(_ value: T, _ body: (T) async throws -> Void) async rethrows {
    do {
        try await body(value)
    } catch {
        await value.stop()
        throw error
    }
    await value.stop()
}
