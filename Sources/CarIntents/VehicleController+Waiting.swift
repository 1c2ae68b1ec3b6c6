import CANBus
import CANKit
import Synchronization
import VehicleKit

/// Waiting for the vehicle: reachability, a complete or a known state, state changes.
extension VehicleController {
    /// Waits until the vehicle has sent a trusted status frame (up to `timeout`).
    public func waitUntilReachable(timeout: Duration) async -> Bool {
        await wait(for: .reachable, timeout: timeout)
    }

    /// Waits until every status message of the profile has arrived at least once, so
    /// the state is complete (up to `timeout`); returns whether it is.
    public func waitUntilComplete(timeout: Duration) async -> Bool {
        await wait(for: .complete, timeout: timeout)
    }

    /// The state once it holds every key in `keys` (the vehicle reports them within a
    /// cycle time), or nil after `timeout`.
    public func state(knowing keys: [PropertyKey], timeout: Duration) async -> VehicleState? {
        await wait(for: .knowing(keys), timeout: timeout) ? currentState : nil
    }

    /// The wait and its continuation start under one lock, so the frame or the timer
    /// that ends it cannot come in between.
    func wait(for condition: HeadUnit.Condition, timeout: Duration) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let now = clock.now
            let holds = runner.scheduling { core -> Bool in
                guard let token = core.unit.wait(for: condition, timeout: timeout, at: now) else { return true }
                core.conditionWaits.insert(continuation, for: token)
                return false
            }
            if holds { continuation.resume(returning: true) }
        }
    }

    /// State changes as they happen, with the frame that caused each, and with
    /// `commands` every command's progress too, in the order they happened (a command's
    /// pending comes before the status frames that confirm it).
    public func events(commands: Bool = false) -> AsyncStream<VehicleEvent> {
        let (stream, continuation) = AsyncStream<VehicleEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = runner.withCore { core in
            let id = core.makeID()
            core.observers[id] = Observer(continuation: continuation, commands: commands)
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.removeObserver(id) }
        return stream
    }

    func removeObserver(_ id: Int) { _ = runner.withCore { $0.observers.removeValue(forKey: id) } }
}
