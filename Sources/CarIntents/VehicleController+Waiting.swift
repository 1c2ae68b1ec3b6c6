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

    func holds(_ condition: Condition, _ core: Core) -> Bool {
        switch condition {
        case .reachable: isReachable(core)
        case .complete: core.heardFrom.count >= frames.statusMessages.count
        case let .knowing(keys): keys.allSatisfy { core.state[$0] != nil }
        }
    }

    func wait(for condition: Condition, timeout: Duration) async -> Bool {
        if core.withLock({ holds(condition, $0) }) { return true }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let registered = core.withLock { core -> Bool in
                if holds(condition, core) { return false }
                let id = core.makeID()
                // The timer starts once the waiter is in place, so it cannot miss it.
                let clock = clock
                let timer = Task { [weak self] in
                    do { try await clock.sleep(for: timeout) } catch { return }
                    self?.giveUp(id)
                }
                core.conditionWaiters[id] = (condition, continuation, timer)
                return true
            }
            if !registered { continuation.resume(returning: true) }
        }
    }

    func giveUp(_ id: Int) {
        let waiter = core.withLock { $0.conditionWaiters.removeValue(forKey: id) }
        waiter?.continuation.resume(returning: false)
    }

    func checkConditions(_ core: inout Core, _ wakes: inout [Wake]) {
        guard !core.conditionWaiters.isEmpty else { return }
        for (id, waiter) in core.conditionWaiters where holds(waiter.condition, core) {
            core.conditionWaiters[id] = nil
            wakes.append(.condition(waiter.continuation, true, timer: waiter.timer))
        }
    }

    /// State changes as they happen, with the frame that caused each, and with
    /// `commands` every command's progress too, in the order they happened (a command's
    /// pending comes before the status frames that confirm it).
    public func events(commands: Bool = false) -> AsyncStream<VehicleEvent> {
        let (stream, continuation) = AsyncStream<VehicleEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = core.withLock { core in
            let id = core.makeID()
            core.observers[id] = Observer(continuation: continuation, commands: commands)
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.removeObserver(id) }
        return stream
    }

    func removeObserver(_ id: Int) { _ = core.withLock { $0.observers.removeValue(forKey: id) } }
}

