import CANBus
import CANKit
import Synchronization
import VehicleKit

/// Sending commands and waiting for their confirmation: setpoints and presses, steps,
/// pacing by the command message's cycle time, the reaper that times waiters out.
extension VehicleController {
    /// Sends the commands that set `targets` and waits until status frames show every
    /// target (as the status signals quantize it), the vehicle rejects a command, or
    /// `timeout` passes. Stepped properties are pressed one step at a time, each step
    /// waiting for the status to move (`StepCommand.stepTimeout`), after the others.
    /// Observers that asked hear the command pending before anything is sent, then how
    /// it settled.
    public func apply(_ targets: [PropertyKey: PropertyValue], timeout: Duration, for intent: IntentName? = nil) async -> CommandOutcome {
        let id = announce(targets, intent: intent)
        let outcome = await applyRetrying(targets, timeout: timeout)
        if let id { announce(id, outcome, intent: intent) }
        return outcome
    }

    func applyRetrying(_ targets: [PropertyKey: PropertyValue], timeout: Duration) async -> CommandOutcome {
        let first = await applyOnce(targets, timeout: timeout)
        // A vehicle that has never acknowledged us may still hold the alive counters of
        // a previous head unit (this daemon restarted): it drops our first frames as out
        // of sequence and resynchronises. One more try settles it; later timeouts stand.
        // Only setpoints are sent again: a press sent twice is two presses.
        if profile.acknowledgement != nil, core.withLock({ $0.acknowledgements == 0 }), case .timeout? = first.failure,
           targets.keys.allSatisfy({ frames.commandKind(of: $0) == "setpoint" }) {
            var second = await applyOnce(targets, timeout: timeout)
            second.frames = first.frames + second.frames
            return second
        }
        return first
    }

    func applyOnce(_ targets: [PropertyKey: PropertyValue], timeout: Duration) async -> CommandOutcome {
        guard !targets.isEmpty else { return CommandOutcome(targets: targets, confirmed: [:], failure: nil, frames: []) }
        let (context, reachable) = core.withLock { ($0.state, isReachable($0)) }
        guard reachable else {
            return CommandOutcome(targets: targets, confirmed: [:], failure: .vehicleUnreachable, frames: [])
        }
        var direct = targets
        var stepped: [(key: PropertyKey, value: PropertyValue, command: StepCommand)] = []
        if hasSteps {
            for (key, value) in targets {
                guard let command = frames.stepCommand(of: key) else { continue }
                stepped.append((key, value, command))
                direct[key] = nil
            }
            stepped.sort { $0.key < $1.key }
        }
        var outcome = CommandOutcome(targets: targets, confirmed: [:], failure: nil, frames: [])
        if !direct.isEmpty {
            // A toggle pressed without knowing the state could flip it the wrong way.
            let toggles = hasToggles ? direct.keys.filter { frames.commandKind(of: $0) == "toggle" } : []
            var context = context
            if !toggles.isEmpty, toggles.contains(where: { context[$0] == nil }) {
                guard let known = await state(knowing: toggles, timeout: timeout) else {
                    return CommandOutcome(targets: targets, confirmed: [:], failure: .timeout(waited: timeout, reported: [:]), frames: [])
                }
                context = known
            }
            let encoded = encoder.withLock { counters in
                Result { () throws(VehicleFramesError) in try frames.commandFrames(for: direct, context: context, counters: &counters) }
            }
            let commandFrames: [CANFrame]
            switch encoded {
            case let .success(built): commandFrames = built
            case let .failure(error): return CommandOutcome(targets: targets, confirmed: [:], failure: .unencodable(error.description), frames: [])
            }
            // A toggle that already shows the target is not pressed: it is confirmed by the state.
            var shown: [PropertyKey: PropertyValue] = [:]
            for key in toggles { if let value = context[key], value == direct[key] { shown[key] = value } }
            let sent = await transmit(commandFrames, expecting: direct, confirmed: shown, context: context, timeout: timeout)
            outcome.confirmed = sent.confirmed
            outcome.frames = sent.frames
            outcome.failure = sent.failure
            if sent.failure != nil { return outcome }
        }
        for (key, value, command) in stepped {
            let result = await step(key, to: value, command: command, timeout: max(command.stepTimeout, timeout))
            outcome.frames += result.frames
            outcome.confirmed.merge(result.confirmed) { $1 }
            if let failure = result.failure {
                outcome.failure = failure
                return outcome
            }
        }
        return outcome
    }

    /// Presses `key` up or down until the status shows `target`: each press waits up to
    /// `timeout` for the status to move one step (the profile's step timeout, at least the
    /// confirmation timeout); a press it does not follow ends in `timeout` naming what the
    /// vehicle reports.
    func step(_ key: PropertyKey, to target: PropertyValue, command: StepCommand, timeout: Duration) async -> CommandOutcome {
        var outcome = CommandOutcome(targets: [key: target], confirmed: [:], failure: nil, frames: [])
        let wanted = frames.reportedValue(target, for: key) ?? target
        var presses = 0
        while true {
            var state = core.withLock { $0.state }
            if state[key] == nil { state = await self.state(knowing: [key], timeout: timeout) ?? state }
            guard let current = state[key], let position = current.doubleValue, let goal = wanted.doubleValue else {
                outcome.failure = .timeout(waited: timeout, reported: [:])
                return outcome
            }
            if Self.matches(current, wanted) {
                outcome.confirmed[key] = current
                return outcome
            }
            let remaining = (goal - position) / command.step
            guard abs(remaining) >= 0.5 else {
                outcome.failure = .unencodable("\(key) = \(target) is not on the car's steps of \(command.step) from the \(current) it reports")
                return outcome
            }
            guard presses < command.maxSteps else {
                outcome.failure = .timeout(waited: timeout, reported: [key: current])
                return outcome
            }
            let up = remaining > 0
            let moved = position + (up ? command.step : -command.step)
            let next: PropertyValue = if case .integer = current { .integer(Int(moved.rounded())) } else { .number(moved) }
            let encoded = encoder.withLock { counters in
                Result { () throws(VehicleFramesError) in try frames.stepFrames(for: key, up: up, context: state, counters: &counters) }
            }
            guard case let .success(press) = encoded else {
                if case let .failure(error) = encoded { outcome.failure = .unencodable(error.description) }
                return outcome
            }
            let result = await transmit(press, expecting: [key: next], confirmed: [:], context: state, timeout: timeout)
            outcome.frames += result.frames
            presses += 1
            if let failure = result.failure {
                outcome.failure = failure
                return outcome
            }
        }
    }

    /// Sends `commandFrames` (consecutive frames of a message with a cycle time that
    /// far apart) and waits until status frames show `targets`, starting from `confirmed`.
    func transmit(
        _ commandFrames: [CANFrame], expecting targets: [PropertyKey: PropertyValue], confirmed shown: [PropertyKey: PropertyValue],
        context: VehicleState, timeout: Duration
    ) async -> CommandOutcome {
        var expected: [PropertyKey: PropertyValue] = [:]
        var statusMessages = Set<String>()
        var after = context
        for (key, value) in targets { after[key] = value }
        for (key, value) in targets {
            expected[key] = frames.reportedValue(value, for: key, context: after) ?? value
            if let binding = profile.bindings[key] { statusMessages.insert(binding.status.message) }
        }
        var waiter = Waiter(expected: expected, statusMessages: statusMessages)
        waiter.confirmed = shown
        // Recorded before sending: the acknowledgement may arrive while `send` runs.
        for frame in commandFrames {
            let message = profile.database.message(id: frame.id)?.name ?? ""
            let counter = profile.protection[message]?.protection.counter(in: frame.data)
            waiter.sent.append((frame.id.rawValue, counter, message))
        }
        let id = core.withLock { core in
            let id = core.makeID()
            core.waiters[id] = waiter
            return id
        }

        for (index, frame) in commandFrames.enumerated() {
            if index > 0, let pause = pacing[frame.id], commandFrames[index - 1].id == frame.id {
                try? await clock.sleep(for: pause)
            }
            // Where the frame belongs among those the waiter records: an in-process bus
            // delivers the vehicle's answer before `send` returns.
            let position = core.withLock { $0.waiters[id]?.frames.count ?? 0 }
            do throws(CANBusError) {
                let sent: ReceivedFrame
                if let immediate = port.sendImmediately(frame) { sent = try immediate.get() } else { sent = try await port.send(frame) }
                core.withLock { core in
                    core.traffic[frame.id, default: MessageTraffic(id: frame.id)].sent += 1
                    guard let count = core.waiters[id]?.frames.count else { return }
                    core.waiters[id]?.frames.insert(sent, at: min(position, count))
                }
            } catch {
                let recorded = core.withLock { $0.waiters.removeValue(forKey: id) }
                return CommandOutcome(targets: targets, confirmed: recorded?.confirmed ?? [:], failure: .bus(error), frames: recorded?.frames ?? [])
            }
        }

        // Answered while sending (the in-process vehicle): no suspension at all.
        let deadline = clock.now + timeout
        let settled = core.withLock { core -> (failure: CommandFailure?, waiter: Waiter?)? in
            guard let waiter = core.waiters[id] else { return (.vehicleUnreachable, nil) }
            if let settled = waiter.settledWhileSending { return (settled.failure, core.waiters.removeValue(forKey: id)) }
            if waiter.isConfirmed { return (nil, core.waiters.removeValue(forKey: id)) }
            core.waiters[id]?.deadline = deadline
            core.waiters[id]?.timeout = timeout
            armReaper(for: deadline, &core)
            return nil
        }
        if let settled {
            return CommandOutcome(targets: targets, confirmed: settled.waiter?.confirmed ?? [:], failure: settled.failure, frames: settled.waiter?.frames ?? [])
        }
        if let stallBeforeWaiting { await stallBeforeWaiting() }
        let failure: CommandFailure? = await withCheckedContinuation { continuation in
            let now = core.withLock { core -> Settled? in
                guard let waiter = core.waiters[id] else { return Settled(failure: .vehicleUnreachable) }
                if let settled = waiter.settledWhileSending { return settled }
                if waiter.isConfirmed { return Settled(failure: nil) }
                core.waiters[id]?.continuation = continuation
                return nil
            }
            if let now { continuation.resume(returning: now.failure) }
        }
        let finished = core.withLock { $0.waiters.removeValue(forKey: id) }
        return CommandOutcome(targets: targets, confirmed: finished?.confirmed ?? [:], failure: failure, frames: finished?.frames ?? [])
    }

    /// Tells the observers that want commands that `targets` are pending; the command's
    /// id, or nil when nobody listens (or there is nothing to send).
    func announce(_ targets: [PropertyKey: PropertyValue], intent: IntentName?) -> Int? {
        guard !targets.isEmpty else { return nil }
        return core.withLock { core -> Int? in
            guard core.observers.values.contains(where: \.commands) else { return nil }
            let id = core.makeID()
            Self.tell(CommandProgress(id: id, intent: intent, targets: targets, stage: .pending), &core)
            return id
        }
    }

    /// How command `id` settled, to the observers that want commands (a listener that
    /// came after the pending still hears it: the dash clears nothing it does not know).
    func announce(_ id: Int, _ outcome: CommandOutcome, intent: IntentName?) {
        let stage: CommandProgress.Stage = outcome.failure.map { .failed($0) } ?? .confirmed
        core.withLock { Self.tell(CommandProgress(id: id, intent: intent, targets: outcome.targets, stage: stage), &$0) }
    }

    static func tell(_ progress: CommandProgress, _ core: inout Core) {
        for observer in core.observers.values where observer.commands { observer.continuation.yield(.command(progress)) }
    }

    /// Makes sure the reaper wakes by `deadline`.
    func armReaper(for deadline: ContinuousClock.Instant, _ core: inout Core) {
        if core.reaper != nil, let wakes = core.reaperWakes, wakes <= deadline { return }
        core.reaper?.cancel()
        core.reaperGeneration += 1
        let generation = core.reaperGeneration
        core.reaperWakes = deadline
        let clock = clock
        core.reaper = Task { [weak self] in
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return
            }
            self?.reap(generation)
        }
    }

    /// Expires the waiters whose deadline passed; re-arms for the next deadline.
    func reap(_ generation: Int) {
        let wakes = core.withLock { core -> [Wake] in
            guard generation == core.reaperGeneration else { return [] }
            core.reaper = nil
            core.reaperWakes = nil
            let now = clock.now
            var next: ContinuousClock.Instant?
            var wakes: [Wake] = []
            for (id, waiter) in core.waiters {
                guard let deadline = waiter.deadline else { continue }
                if deadline <= now {
                    if let wake = Self.expire(id, after: waiter.timeout, &core) { wakes.append(wake) }
                } else if waiter.continuation != nil || waiter.settledWhileSending == nil {
                    next = next.map { min($0, deadline) } ?? deadline
                }
            }
            if let next { armReaper(for: next, &core) }
            return wakes
        }
        for wake in wakes { wake.fire() }
    }

    static func expire(_ id: Int, after waited: Duration, _ core: inout Core) -> Wake? {
        guard let waiter = core.waiters[id], let continuation = waiter.continuation else { return nil }
        core.waiters[id]?.continuation = nil
        if let error = waiter.lastE2EError, !waiter.isConfirmed {
            return .command(continuation, .e2eError(message: error.message, status: error.status))
        }
        var reported: [PropertyKey: PropertyValue] = [:]
        for key in waiter.expected.keys where waiter.confirmed[key] == nil {
            if let value = core.state[key] { reported[key] = value }
        }
        return .command(continuation, .timeout(waited: waited, reported: reported))
    }

    static func finish(_ id: Int, with failure: CommandFailure?, _ core: inout Core, _ wakes: inout [Wake]) {
        guard let continuation = core.waiters[id]?.continuation else {
            // Still sending: keep the first outcome for when the waiter starts waiting.
            if core.waiters[id] != nil, core.waiters[id]?.settledWhileSending == nil { core.waiters[id]?.settledWhileSending = Settled(failure: failure) }
            return
        }
        core.waiters[id]?.continuation = nil
        wakes.append(.command(continuation, failure))
    }
}

