import CANBus
import CANKit
import Synchronization
import VehicleKit

/// Sending commands and waiting for their confirmation: setpoints and presses, steps,
/// pacing by the command message's cycle time.
extension VehicleController {
    /// Sends the commands that set `targets` and waits until status frames show every
    /// target (as the status signals quantize it), the vehicle rejects a command, or
    /// `timeout` passes. Stepped properties are pressed one step at a time, each step
    /// waiting for the status to move (`StepCommand.stepTimeout`), after the others.
    /// Observers that asked hear the command pending before anything is sent, then how
    /// it settled.
    public func apply(_ targets: [PropertyKey: PropertyValue], timeout: Duration, for intent: IntentName? = nil) async -> CommandOutcome {
        let id = announce(targets, intent: intent)
        let outcome = await applyRetrying(targets, timeout: timeout, origin: HeadUnit.CommandOrigin(id: id, intent: intent))
        if let id { announce(id, outcome, intent: intent) }
        return outcome
    }

    func applyRetrying(_ targets: [PropertyKey: PropertyValue], timeout: Duration, origin: HeadUnit.CommandOrigin) async -> CommandOutcome {
        let first = await applyOnce(targets, timeout: timeout, origin: origin)
        // A vehicle that has never acknowledged us may still hold the alive counters of
        // a previous head unit (this daemon restarted): it drops our first frames as out
        // of sequence and resynchronises. One more try settles it; later timeouts stand.
        // Only setpoints are sent again: a press sent twice is two presses.
        if profile.acknowledgement != nil, core.withLock({ $0.unit.acknowledgements == 0 }), case .timeout? = first.failure,
            targets.keys.allSatisfy({ frames.commandKind(of: $0) == .setpoint })
        {
            var second = await applyOnce(targets, timeout: timeout, origin: origin)
            second.frames = first.frames + second.frames
            return second
        }
        return first
    }

    func applyOnce(_ targets: [PropertyKey: PropertyValue], timeout: Duration, origin: HeadUnit.CommandOrigin) async -> CommandOutcome {
        guard !targets.isEmpty else { return CommandOutcome(targets: targets, confirmed: [:], failure: nil, frames: []) }
        let (context, reachable) = snapshot()
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
            let toggles = hasToggles ? direct.keys.filter { frames.commandKind(of: $0) == .toggle } : []
            var context = context
            if !toggles.isEmpty, toggles.contains(where: { context[$0] == nil }) {
                guard let known = await state(knowing: toggles, timeout: timeout) else {
                    return CommandOutcome(targets: targets, confirmed: [:], failure: .timeout(waited: timeout, reported: [:]), frames: [])
                }
                context = known
            }
            // A target the vehicle already shows is confirmed by the state, and a command
            // message whose targets it all shows is not encoded or sent: a command whose
            // status would not change could only be "confirmed" by a status frame sent
            // before the vehicle took it (and encoding would spend its alive counter).
            let shown = core.withLock { $0.unit.shownTargets(direct, in: context) }
            let needed = Set(direct.keys.compactMap { shown[$0] == nil ? profile.bindings[$0]?.command?.message : nil })
            let sending = direct.filter { shown[$0.key] == nil || profile.bindings[$0.key]?.command.map { needed.contains($0.message) } == true }
            outcome.confirmed = shown.filter { sending[$0.key] == nil }
            if !sending.isEmpty {
                let encoded = core.withLock { core in
                    Result { () throws(VehicleFramesError) in try core.unit.commandFrames(for: sending, context: context) }
                }
                let commandFrames: [CANFrame]
                switch encoded {
                case let .success(built): commandFrames = built
                case let .failure(error): return CommandOutcome(targets: targets, confirmed: [:], failure: .unencodable(error.description), frames: [])
                }
                let sent = await transmit(
                    commandFrames, expecting: sending, confirmed: shown.filter { sending[$0.key] != nil }, context: context, timeout: timeout, origin: origin)
                outcome.confirmed.merge(sent.confirmed) { $1 }
                outcome.frames = sent.frames
                outcome.failure = sent.failure
                if sent.failure != nil { return outcome }
            }
        }
        for (key, value, command) in stepped {
            let result = await step(key, to: value, command: command, timeout: max(command.stepTimeout, timeout), origin: origin)
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
    func step(_ key: PropertyKey, to target: PropertyValue, command: StepCommand, timeout: Duration, origin: HeadUnit.CommandOrigin) async -> CommandOutcome {
        var outcome = CommandOutcome(targets: [key: target], confirmed: [:], failure: nil, frames: [])
        let wanted = frames.reportedValue(target, for: key) ?? target
        var presses = 0
        while true {
            var state = currentState
            if state[key] == nil { state = await self.state(knowing: [key], timeout: timeout) ?? state }
            guard let current = state[key], let position = current.doubleValue, let goal = wanted.doubleValue else {
                outcome.failure = .timeout(waited: timeout, reported: [:])
                return outcome
            }
            if HeadUnit.matches(current, wanted) {
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
            let encoded = core.withLock { core in
                Result { () throws(VehicleFramesError) in try core.unit.stepFrames(for: key, up: up, context: state) }
            }
            guard case let .success(press) = encoded else {
                if case let .failure(error) = encoded { outcome.failure = .unencodable(error.description) }
                return outcome
            }
            let result = await transmit(press, expecting: [key: next], confirmed: [:], context: state, timeout: timeout, origin: origin)
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
        context: VehicleState, timeout: Duration, origin: HeadUnit.CommandOrigin
    ) async -> CommandOutcome {
        // Registered before sending: the acknowledgement may arrive while `send` runs.
        let token = core.withLock { $0.unit.beginCommand(commandFrames, expecting: targets, confirmed: shown, context: context, origin: origin) }
        // One clock read for the frames sent together (sending takes microseconds), again
        // only after a pause between held frames: the cyclic schedule and the timeout
        // count from it.
        var now = clock.now
        for (index, frame) in commandFrames.enumerated() {
            if index > 0, let pause = pacing[frame.id], commandFrames[index - 1].id == frame.id {
                try? await clock.sleep(for: pause)
                now = clock.now
            }
            let position = core.withLock { $0.unit.recordedFrameCount(of: token) }
            switch port.send(frame) {
            case let .sent(sent), let .queued(sent):
                core.withLock { core in
                    core.unit.sent(sent, for: token, at: position)
                    core.unit.cyclicFrameSent(frame.id, at: now)
                }
            case let .failed(error):
                return core.withLock { $0.unit.finishCommand(token, abandoning: .bus(error)) }
            }
        }
        if let stallBeforeWaiting { await stallBeforeWaiting() }
        // Answered while sending (the in-process vehicle): no suspension at all.
        if let outcome = core.withLock({ core in core.unit.isSettled(token) ? core.unit.finishCommand(token) : nil }) { return outcome }
        // The timeout starts and the continuation is stored under one lock: whatever
        // settles the command (a frame, the timer) finds the continuation, or the outcome
        // stays in the machine for the check below it.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = core.withLock { core -> Bool in
                if core.unit.isSettled(token) { return true }
                core.unit.startTimeout(token, after: timeout, at: now)
                core.commandWaits[token] = continuation
                armTimer(&core)
                return false
            }
            if ready { continuation.resume() }
        }
        return core.withLock { $0.unit.finishCommand(token) }
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
}
