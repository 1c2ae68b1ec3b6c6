import VehicleKit

/// What the machine decides about a command before and between its sends, so the runner
/// (`VehicleController.apply`) only does what it is told: which targets are pressed one
/// step at a time, which toggles need their state read first, which targets to send, the
/// next press of a step, and whether a timed-out first try is sent once more.
extension HeadUnit {
    /// A property pressed up or down one step per frame (`StepCommand`), with its target.
    public struct SteppedTarget: Sendable {
        public let key: PropertyKey
        public let value: PropertyValue
        public let command: StepCommand
    }

    /// `targets` split into those set by one command (direct) and those pressed one step
    /// at a time, in key order, after the direct ones.
    public func split(_ targets: [PropertyKey: PropertyValue]) -> (direct: [PropertyKey: PropertyValue], stepped: [SteppedTarget]) {
        guard hasSteps else { return (targets, []) }
        var direct = targets
        var stepped: [SteppedTarget] = []
        for (key, value) in targets {
            guard let command = frames.stepCommand(of: key) else { continue }
            stepped.append(SteppedTarget(key: key, value: value, command: command))
            direct[key] = nil
        }
        stepped.sort { $0.key < $1.key }
        return (direct, stepped)
    }

    /// The toggles among `targets` whose state `context` lacks: a toggle pressed without
    /// knowing the state could flip it the wrong way, so the runner reads it first.
    public func togglesToRead(_ targets: [PropertyKey: PropertyValue], context: VehicleState) -> [PropertyKey] {
        guard hasToggles else { return [] }
        let toggles = targets.keys.filter { frames.commandKind(of: $0) == .toggle }
        return toggles.contains { context[$0] == nil } ? toggles : []
    }

    /// Which targets to send, and which the state confirms already. A target the vehicle
    /// already shows is confirmed by the state, and a command message whose targets it
    /// all shows is not encoded or sent: a command whose status would not change could
    /// only be "confirmed" by a status frame sent before the vehicle took it (and encoding
    /// would spend its alive counter). A target that shares a sent message is sent too.
    public func sending(_ targets: [PropertyKey: PropertyValue], context: VehicleState) -> (
        send: [PropertyKey: PropertyValue], shown: [PropertyKey: PropertyValue]
    ) {
        let shown = shownTargets(targets, in: context)
        let needed = Set(targets.keys.compactMap { shown[$0] == nil ? profile.bindings[$0]?.command?.message : nil })
        let send = targets.filter { shown[$0.key] == nil || profile.bindings[$0.key]?.command.map { needed.contains($0.message) } == true }
        return (send, shown)
    }

    /// The next move of a stepped property toward its target, from what the vehicle
    /// reports now and the presses made so far.
    public enum StepDecision: Sendable, Equatable {
        /// The status shows the target.
        case reached(PropertyValue)
        /// Press once; the status should then show `expecting`.
        case press(up: Bool, expecting: PropertyValue)
        case failed(CommandFailure)
    }

    /// `current`: the value the vehicle reports (nil: it reported none within the wait).
    public func nextStep(_ target: SteppedTarget, current: PropertyValue?, presses: Int, timeout: Duration) -> StepDecision {
        let wanted = frames.reportedValue(target.value, for: target.key) ?? target.value
        guard let current, let position = current.doubleValue, let goal = wanted.doubleValue else {
            return .failed(.timeout(waited: timeout, reported: [:]))
        }
        if Self.matches(current, wanted) { return .reached(current) }
        let step = target.command.step
        let remaining = (goal - position) / step
        guard abs(remaining) >= 0.5 else {
            return .failed(.unencodable("\(target.key) = \(target.value) is not on the car's steps of \(step) from the \(current) it reports"))
        }
        guard presses < target.command.maxSteps else { return .failed(.timeout(waited: timeout, reported: [target.key: current])) }
        let up = remaining > 0
        let moved = position + (up ? step : -step)
        let next: PropertyValue = if case .integer = current { .integer(Int(moved.rounded())) } else { .number(moved) }
        return .press(up: up, expecting: next)
    }

    /// True when a first try that timed out is sent once more: the vehicle has never
    /// acknowledged us and may still hold a previous head unit's alive counters (this
    /// daemon restarted), dropping our first frames as out of sequence while it
    /// resynchronises. Only setpoints are sent again: a press sent twice is two presses.
    public func resendsAfterResync(_ first: CommandOutcome) -> Bool {
        guard profile.acknowledgement != nil, acknowledgements == 0, case .timeout? = first.failure else { return false }
        return first.targets.keys.allSatisfy { frames.commandKind(of: $0) == .setpoint }
    }
}
