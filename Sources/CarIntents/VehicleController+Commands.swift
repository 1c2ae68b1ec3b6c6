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
        guard runner.withCore({ $0.unit.resendsAfterResync(first) }) else { return first }
        var second = await applyOnce(targets, timeout: timeout, origin: origin)
        second.frames = first.frames + second.frames
        return second
    }

    func applyOnce(_ targets: [PropertyKey: PropertyValue], timeout: Duration, origin: HeadUnit.CommandOrigin) async -> CommandOutcome {
        guard !targets.isEmpty else { return CommandOutcome(targets: targets, confirmed: [:], failure: nil, frames: []) }
        let (context, reachable) = snapshot()
        guard reachable else {
            return CommandOutcome(targets: targets, confirmed: [:], failure: .vehicleUnreachable, frames: [])
        }
        let (direct, stepped) = runner.withCore { $0.unit.split(targets) }
        var outcome = CommandOutcome(targets: targets, confirmed: [:], failure: nil, frames: [])
        if !direct.isEmpty {
            var context = context
            let toggles = runner.withCore { $0.unit.togglesToRead(direct, context: context) }
            if !toggles.isEmpty {
                guard let known = await state(knowing: toggles, timeout: timeout) else {
                    return CommandOutcome(targets: targets, confirmed: [:], failure: .timeout(waited: timeout, reported: [:]), frames: [])
                }
                context = known
            }
            let (sending, shown) = runner.withCore { $0.unit.sending(direct, context: context) }
            outcome.confirmed = shown.filter { sending[$0.key] == nil }
            if !sending.isEmpty {
                let encoded = runner.withCore { core in
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
        for target in stepped {
            let result = await step(target, timeout: max(target.command.stepTimeout, timeout), origin: origin)
            outcome.frames += result.frames
            outcome.confirmed.merge(result.confirmed) { $1 }
            if let failure = result.failure {
                outcome.failure = failure
                return outcome
            }
        }
        return outcome
    }

    /// Presses a stepped property until the status shows its target, as the machine
    /// decides each press (`HeadUnit.nextStep`); each press waits up to `timeout` for the
    /// status to move one step (the profile's step timeout, at least the confirmation timeout).
    func step(_ target: HeadUnit.SteppedTarget, timeout: Duration, origin: HeadUnit.CommandOrigin) async -> CommandOutcome {
        let key = target.key
        var outcome = CommandOutcome(targets: [key: target.value], confirmed: [:], failure: nil, frames: [])
        var presses = 0
        while true {
            var state = currentState
            if state[key] == nil { state = await self.state(knowing: [key], timeout: timeout) ?? state }
            let decision = runner.withCore { $0.unit.nextStep(target, current: state[key], presses: presses, timeout: timeout) }
            let (up, next): (Bool, PropertyValue)
            switch decision {
            case let .reached(value):
                outcome.confirmed[key] = value
                return outcome
            case let .failed(failure):
                outcome.failure = failure
                return outcome
            case let .press(direction, expecting):
                (up, next) = (direction, expecting)
            }
            let encoded = runner.withCore { core in
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
        let token = runner.withCore { $0.unit.beginCommand(commandFrames, expecting: targets, confirmed: shown, context: context, origin: origin) }
        // One clock read for the frames sent together (sending takes microseconds), again
        // only after a pause between held frames: the cyclic schedule and the timeout
        // count from it.
        var now = clock.now
        for (index, frame) in commandFrames.enumerated() {
            if index > 0, let pause = pacing[frame.id], commandFrames[index - 1].id == frame.id {
                try? await clock.sleep(for: pause)
                now = clock.now
            }
            let position = runner.withCore { $0.unit.recordedFrameCount(of: token) }
            switch port.send(frame) {
            case let .sent(sent), let .queued(sent):
                runner.withCore { core in
                    core.unit.sent(sent, for: token, at: position)
                    core.unit.cyclicFrameSent(frame.id, at: now)
                }
            case let .failed(error):
                return runner.withCore { $0.unit.finishCommand(token, abandoning: .bus(error)) }
            }
        }
        if let stallBeforeWaiting { await stallBeforeWaiting() }
        // Answered while sending (the in-process vehicle): no suspension at all.
        if let outcome = runner.withCore({ core in core.unit.isSettled(token) ? core.unit.finishCommand(token) : nil }) { return outcome }
        // The timeout starts and the continuation is stored under one lock: whatever
        // settles the command (a frame, the timer) finds the continuation, or the outcome
        // stays in the machine for the check below it.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = runner.scheduling { core -> Bool in
                if core.unit.isSettled(token) { return true }
                core.unit.startTimeout(token, after: timeout, at: now)
                core.commandWaits.insert(continuation, for: token)
                return false
            }
            if ready { continuation.resume() }
        }
        return runner.withCore { $0.unit.finishCommand(token) }
    }

    /// Tells the observers that want commands that `targets` are pending; the command's
    /// id, or nil when nobody listens (or there is nothing to send).
    func announce(_ targets: [PropertyKey: PropertyValue], intent: IntentName?) -> Int? {
        guard !targets.isEmpty else { return nil }
        return runner.withCore { core -> Int? in
            guard core.observers.values.contains(where: \.commands) else { return nil }
            let id = core.makeID()
            core.tell(CommandProgress(id: id, intent: intent, targets: targets, stage: .pending))
            return id
        }
    }

    /// How command `id` settled, to the observers that want commands (a listener that
    /// came after the pending still hears it: the dash clears nothing it does not know).
    func announce(_ id: Int, _ outcome: CommandOutcome, intent: IntentName?) {
        let stage: CommandProgress.Stage = outcome.failure.map { .failed($0) } ?? .confirmed
        runner.withCore { $0.tell(CommandProgress(id: id, intent: intent, targets: outcome.targets, stage: stage)) }
    }
}
