import CANBus
import VehicleKit

/// Commands applied after they timed out. A vehicle may act on a command late (a busy
/// module, a frame held in a gateway): the intent has already failed, and the late
/// change may undo a value a newer command confirmed. The machine keeps the targets of a
/// command that timed out for `lateApplicationWatch`; a status change to such a target
/// that no open command expects is reported, never taken silently.
extension HeadUnit {
    /// Who sent a command, so that what happens to it later can name it.
    public struct CommandOrigin: Sendable, Hashable {
        /// The id its `CommandProgress` replies carry (nil: nobody listened then).
        public var id: Int?
        public var intent: IntentName?

        public init(id: Int?, intent: IntentName?) {
            self.id = id
            self.intent = intent
        }
    }

    /// A timed-out command's target, watched in the status.
    struct LateWatch {
        var value: PropertyValue
        var origin: CommandOrigin?
        var timedOutAt: Instant
    }

    /// The vehicle showed targets of a command after the command had timed out.
    public struct LateApplication: Sendable {
        public var origin: CommandOrigin?
        /// What the status now shows of the command's targets.
        public var targets: [PropertyKey: PropertyValue]
        /// How long after the command's timeout the status showed them.
        public var after: Duration
        /// The status frame that showed them.
        public var frame: ReceivedFrame

        public var description: String {
            let shown = targets.keys.sorted().map { "\($0) = \(targets[$0]!)" }.joined(separator: ", ")
            let intent = origin?.intent.map { " (\($0.rawValue))" } ?? ""
            return "the vehicle applied a timed-out command\(intent) \(after) after its timeout: \(shown)"
        }
    }

    /// How long a timed-out command's targets are watched: long enough for a late module,
    /// short enough that a change made by hand much later is not blamed on the command.
    public static let lateApplicationWatch: Duration = .seconds(30)

    /// Watches the targets `command` did not see confirmed before it timed out at `deadline`.
    mutating func watchForLateApplication(of command: PendingCommand, timedOutAt deadline: Instant) {
        for (key, value) in command.expected where command.confirmed[key] == nil {
            lateWatches[key] = LateWatch(value: value, origin: command.origin, timedOutAt: deadline)
        }
    }

    /// A new command for `key` with the same target takes the watch over: the status it
    /// waits for is its own confirmation.
    mutating func endLateWatch(of key: PropertyKey, expecting value: PropertyValue) {
        if let watch = lateWatches[key], Self.matches(value, watch.value) { lateWatches[key] = nil }
    }

    /// After the status changed `keys` (in `frame` at `now`): the watched targets it now
    /// shows that no open command expects, one event per command they came from.
    mutating func reportLateApplications(among keys: [PropertyKey], frame: ReceivedFrame, at now: Instant, _ events: inout [Event]) {
        var found: [LateApplication] = []
        for key in keys {
            guard let watch = lateWatches[key] else { continue }
            if now - watch.timedOutAt > Self.lateApplicationWatch {
                lateWatches[key] = nil
                continue
            }
            guard let value = state[key], Self.matches(value, watch.value), !isExpectedByAnOpenCommand(key, value) else { continue }
            lateWatches[key] = nil
            if let index = found.firstIndex(where: { $0.origin == watch.origin && $0.after == now - watch.timedOutAt }) {
                found[index].targets[key] = value
            } else {
                found.append(LateApplication(origin: watch.origin, targets: [key: value], after: now - watch.timedOutAt, frame: frame))
            }
        }
        for application in found {
            lateApplications += 1
            lastLateApplication = application.description
            events.append(.appliedLate(application))
        }
        // Watches past their time go even when their property never changes again.
        if !lateWatches.isEmpty { lateWatches = lateWatches.filter { now - $0.value.timedOutAt <= Self.lateApplicationWatch } }
    }

    private func isExpectedByAnOpenCommand(_ key: PropertyKey, _ value: PropertyValue) -> Bool {
        commands.contains { command in
            guard command.isOpen, let expected = command.expected[key] else { return false }
            return Self.matches(value, expected)
        }
    }
}
