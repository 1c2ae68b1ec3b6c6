import CANBus
import CANKit
import VehicleKit

/// Commands: their frames (with the command messages' alive counters), what their status
/// must show, and how each one settled.
extension HeadUnit {
    /// A command sent (or being sent) and what is known of its confirmation.
    struct PendingCommand {
        let token: Token
        var targets: [PropertyKey: PropertyValue]
        /// The targets as the status signals carry them.
        var expected: [PropertyKey: PropertyValue]
        var confirmed: [PropertyKey: PropertyValue] = [:]
        /// Command frames sent for it: (frame ID, alive counter) to match acknowledgements.
        var sent: [(id: UInt32, counter: UInt8?, message: String)] = []
        var statusMessages: Set<String>
        var lastE2EError: (message: String, status: E2EStatus)?
        /// The frames of its window, sent and received, in bus order.
        var frames: [ReceivedFrame] = []
        /// Set once its frames are sent.
        var deadline: Instant?
        var timeout: Duration = .zero
        var origin: CommandOrigin?
        /// How it ended (nil inside: confirmed); nil while it is open.
        var settled: CommandFailure??

        var isConfirmed: Bool { confirmed.count == expected.count }
        var isOpen: Bool { settled == nil }
    }

    /// The command frames that set `targets` (setpoints, momentary and toggle presses)
    /// in `context`, each with the next alive counter of its message.
    public mutating func commandFrames(for targets: [PropertyKey: PropertyValue], context: VehicleState) throws(VehicleFramesError) -> [CANFrame] {
        try frames.commandFrames(for: targets, context: context, counters: &counters)
    }

    /// The targets the vehicle already shows in `context` (as their status signals carry
    /// them): confirmed by the state, they need no command. Momentary requests are never
    /// shown: an action (a horn, a flash) is asked for each time.
    public func shownTargets(_ targets: [PropertyKey: PropertyValue], in context: VehicleState) -> [PropertyKey: PropertyValue] {
        var shown: [PropertyKey: PropertyValue] = [:]
        for (key, value) in targets where frames.commandKind(of: key) != .momentary {
            guard let current = context[key] else { continue }
            let wanted = frames.reportedValue(value, for: key, context: context, targets: targets) ?? value
            if Self.matches(current, wanted) { shown[key] = current }
        }
        return shown
    }

    /// One up or down press of the stepped property `key`.
    public mutating func stepFrames(for key: PropertyKey, up: Bool, context: VehicleState) throws(VehicleFramesError) -> [CANFrame] {
        try frames.stepFrames(for: key, up: up, context: context, counters: &counters)
    }

    /// Registers a command before its frames go out (an acknowledgement or the status may
    /// arrive while they are sent): `targets` must show in the status, `shown` already
    /// does. It has no deadline until `startTimeout`.
    public mutating func beginCommand(
        _ commandFrames: [CANFrame], expecting targets: [PropertyKey: PropertyValue], confirmed shown: [PropertyKey: PropertyValue],
        context: VehicleState, origin: CommandOrigin? = nil
    ) -> Token {
        var expected: [PropertyKey: PropertyValue] = [:]
        var statusMessages = Set<String>()
        for (key, value) in targets {
            expected[key] = frames.reportedValue(value, for: key, context: context, targets: targets) ?? value
            if let binding = profile.bindings[key] { statusMessages.insert(binding.status.message) }
        }
        if !lateWatches.isEmpty { for (key, value) in expected { endLateWatch(of: key, expecting: value) } }
        let token = makeToken()
        var command = PendingCommand(token: token, targets: targets, expected: expected, statusMessages: statusMessages)
        command.confirmed = shown
        command.origin = origin
        for frame in commandFrames {
            let message = profile.database.message(id: frame.id)?.name ?? ""
            let counter = profile.protection[message]?.protection.counter(in: frame.data)
            command.sent.append((frame.id.rawValue, counter, message))
        }
        // Toggles that already show their targets: nothing left to confirm.
        if command.isConfirmed { command.settled = .some(nil) }
        commands.append(command)
        return token
    }

    /// How many frames the command has recorded (where a frame about to be sent goes:
    /// an in-process bus delivers the vehicle's answer before the send returns).
    public func recordedFrameCount(of token: Token) -> Int { command(token) { $0.frames.count } ?? 0 }

    /// A frame of the command went out; `position` is `recordedFrameCount` before the send.
    public mutating func sent(_ frame: ReceivedFrame, for token: Token, at position: Int) {
        recordSent(frame)
        updateCommand(token) { $0.frames.insert(frame, at: min(position, $0.frames.count)) }
    }

    /// A frame the head unit sent, counted in the bus traffic.
    public mutating func recordSent(_ frame: ReceivedFrame) {
        traffic[frame.frame.id, default: MessageTraffic(id: frame.frame.id)].sent += 1
    }

    /// Whether the command's outcome is ready (or the command is unknown).
    public func isSettled(_ token: Token) -> Bool { command(token) { !$0.isOpen } ?? true }

    /// A reading of the command `token`, nil if there is none.
    func command<T>(_ token: Token, _ read: (borrowing PendingCommand) -> T) -> T? {
        guard let index = commands.firstIndex(where: { $0.token == token }) else { return nil }
        return read(commands[index])
    }

    /// Changes the command `token` in place, nil if there is none.
    @discardableResult
    mutating func updateCommand<T>(_ token: Token, _ change: (inout PendingCommand) -> T) -> T? {
        guard let index = commands.firstIndex(where: { $0.token == token }) else { return nil }
        return change(&commands[index])
    }

    /// Starts the command's timeout at `now`, once its frames are sent.
    public mutating func startTimeout(_ token: Token, after timeout: Duration, at now: Instant) {
        updateCommand(token) { command in
            guard command.isOpen else { return }
            command.deadline = now + timeout
            command.timeout = timeout
        }
    }

    /// The command's outcome, and it is forgotten; `vehicleUnreachable` for a command the
    /// machine does not know (or no longer: `stop`). Called once its outcome is ready, or
    /// to abandon it with `failure` (its frames could not be sent).
    public mutating func finishCommand(_ token: Token, abandoning failure: CommandFailure? = nil) -> CommandOutcome {
        guard let index = commands.firstIndex(where: { $0.token == token }) else {
            return CommandOutcome(targets: [:], confirmed: [:], failure: failure ?? .vehicleUnreachable, frames: [])
        }
        let command = commands.remove(at: index)
        let outcome: CommandFailure? = failure ?? (command.settled ?? .vehicleUnreachable)
        return CommandOutcome(targets: command.targets, confirmed: command.confirmed, failure: outcome, frames: command.frames)
    }

    /// Commands registered and not yet finished.
    public var commandCount: Int { commands.count }

    /// Settles the command at `index` of `commands`: the first outcome stands.
    mutating func settle(at index: Int, with failure: CommandFailure?, _ events: inout [Event]) {
        guard commands[index].isOpen else { return }
        commands[index].settled = .some(failure)
        events.append(.commandSettled(commands[index].token))
    }

    func timeoutFailure(of command: PendingCommand) -> CommandFailure {
        if let error = command.lastE2EError, !command.isConfirmed {
            return .e2eError(message: error.message, status: error.status)
        }
        var reported: [PropertyKey: PropertyValue] = [:]
        for key in command.expected.keys where command.confirmed[key] == nil {
            if let value = state[key] { reported[key] = value }
        }
        return .timeout(waited: command.timeout, reported: reported)
    }
}
