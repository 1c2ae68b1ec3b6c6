import CarplayJSON
import VehicleKit

/// A script of what happens to the simulated vehicle on its own -- the driver turns a
/// knob, locks the doors with the key, the fuel falls, a charger is plugged in, a
/// message goes quiet -- at set times since the scenario started (docs/SIMULATION.md,
/// "Scenarios"). A value; `ScenarioSchedule` says when each event is due and
/// `ScenarioRunner` applies them on a running `SimulatedVehicleNode`.
public struct Scenario: Sendable, Hashable {
    /// Seeds the jitter of events (`ScenarioRandom`): the same file and seed, the same times.
    public var seed: UInt64
    /// Start again after `duration`, for ever.
    public var loop: Bool
    /// The length of one pass; required with `loop`. Without `loop` the scenario ends
    /// there (else after its last `at` event, or never with an unbounded `every`).
    public var duration: Duration?
    public var events: [ScenarioEvent]

    public init(seed: UInt64 = 0, loop: Bool = false, duration: Duration? = nil, events: [ScenarioEvent]) {
        self.seed = seed
        self.loop = loop
        self.duration = duration
        self.events = events
    }
}

/// One line of a scenario: when, and what.
public struct ScenarioEvent: Sendable, Hashable {
    public enum Timing: Sendable, Hashable {
        /// Once, this long after the start of each pass.
        case at(Duration)
        /// Repeatedly: at `first`, then every `period`, before `until` (and the pass's end).
        case every(Duration, first: Duration, until: Duration?)
        /// `delay` after each command of this message the vehicle applies: the driver
        /// reacting to what the head unit did (not on the clock: `ScenarioSchedule` leaves
        /// it out, `ScenarioRunner` waits for the command).
        case afterCommand(String, delay: Duration)
    }

    public enum Action: Sendable, Hashable {
        /// The vehicle takes these values as its own (`SimulatedVehicleNode.override`).
        case set([PropertyKey: PropertyValue])
        /// The vehicle's numeric values move by these amounts (clamped: see `ScenarioRunner`).
        case add([PropertyKey: Double])
        /// A fault rule joins the plan; with a duration it holds for that long only.
        case fault(FaultRule, lasting: Duration?)
        /// Every fault rule is removed (those of `--faults` too).
        case clearFaults
        /// Plugs in at this connector, or unplugs (nil).
        case plugIn(ChargingConnectorType?)
        /// Drives at this speed, km/h (0 stops).
        case drive(Double)
    }

    public var timing: Timing
    /// Each occurrence is late by a seeded random amount in [0, jitter].
    public var jitter: Duration
    public var action: Action
    /// Where the event is in its file (`events[3]`), for the runner's log.
    public var path: String

    public init(timing: Timing, jitter: Duration = .zero, action: Action, path: String = "") {
        self.timing = timing
        self.jitter = jitter
        self.action = action
        self.path = path
    }
}

// MARK: - JSON

extension Scenario {
    /// A scenario file's text; `source` names it in errors. With a `profile`, keys,
    /// connectors and message names are checked against that car too.
    public init(parsing text: String, source: String, profile: VehicleProfile? = nil) throws(JSONContentError) {
        try self.init(json: JSONNode(parsing: Array(text.utf8), file: source), profile: profile)
    }

    public init(json node: JSONNode, profile: VehicleProfile? = nil) throws(JSONContentError) {
        let object = try node.object(known: ["seed", "loop", "duration", "events"])
        if let seedNode = object.optional("seed") {
            let seed = try seedNode.integer()
            guard seed >= 0 else { throw seedNode.error("a seed is an integer ≥ 0") }
            self.seed = UInt64(seed)
        } else {
            seed = 0
        }
        loop = try object.optional("loop")?.bool() ?? false
        duration = try object.optional("duration").map { node throws(JSONContentError) in try Self.seconds(node, positive: true) }
        if loop, duration == nil {
            throw JSONContentError(
                file: node.file, path: object.path("duration"), reason: "a looping scenario needs a duration (seconds): the length of one pass")
        }
        let eventsNode = try object.required("events")
        var events: [ScenarioEvent] = []
        for eventNode in try eventsNode.array() {
            events.append(try ScenarioEvent(json: eventNode, duration: duration, profile: profile))
        }
        self.events = events
    }

    /// Seconds (a number ≥ 0, or > 0) as a duration.
    static func seconds(_ node: JSONNode, positive: Bool = false) throws(JSONContentError) -> Duration {
        let seconds = try node.number()
        guard seconds.isFinite, positive ? seconds > 0 : seconds >= 0 else {
            throw node.error(positive ? "expected seconds > 0, found \(seconds)" : "expected seconds ≥ 0, found \(seconds)")
        }
        return .microseconds(Int64((seconds * 1_000_000).rounded()))
    }
}

extension ScenarioEvent {
    static let actions = ["set", "add", "fault", "clearFaults", "plugIn", "drive"]

    init(json node: JSONNode, duration: Duration?, profile: VehicleProfile?) throws(JSONContentError) {
        let object = try node.object(known: ["at", "every", "from", "until", "jitter", "afterCommand", "delay", "comment"] + Self.actions)
        path = node.path
        // When.
        if let message = object.optional("afterCommand") {
            timing = try Self.afterCommand(message, object, profile: profile)
        } else if object.has("delay") {
            throw JSONContentError(file: node.file, path: object.path("delay"), reason: "\"delay\" goes with \"afterCommand\"")
        } else {
            switch (object.optional("at"), object.optional("every")) {
            case let (at?, nil):
                for key in ["from", "until"] where object.has(key) {
                    throw JSONContentError(file: node.file, path: object.path(key), reason: "\"\(key)\" goes with \"every\", not \"at\"")
                }
                let time = try Scenario.seconds(at)
                if let duration, time >= duration { throw at.error("at \(Self.text(time)) s is not before the scenario's duration (\(Self.text(duration)) s)") }
                timing = .at(time)
            case let (nil, every?):
                let period = try Scenario.seconds(every, positive: true)
                let first = try object.optional("from").map { node throws(JSONContentError) in try Scenario.seconds(node) } ?? period
                let until = try object.optional("until").map { node throws(JSONContentError) in try Scenario.seconds(node) }
                if let until, until <= first {
                    throw JSONContentError(file: node.file, path: object.path("until"), reason: "until must be after the first time (\(Self.text(first)) s)")
                }
                if let duration, first >= duration {
                    throw JSONContentError(
                        file: node.file, path: object.path(object.has("from") ? "from" : "every"),
                        reason: "the first time (\(Self.text(first)) s) is not before the scenario's duration (\(Self.text(duration)) s)")
                }
                timing = .every(period, first: first, until: until)
            case (nil, nil):
                throw node.error("an event needs \"at\" (seconds), \"every\" (seconds) or \"afterCommand\" (a command message)")
            case (_?, _?):
                throw JSONContentError(file: node.file, path: object.path("every"), reason: "an event has \"at\" or \"every\", not both")
            }
        }
        jitter = try object.optional("jitter").map { node throws(JSONContentError) in try Scenario.seconds(node) } ?? .zero
        if case let .every(period, _, _) = timing, jitter >= period {
            // Jitter shorter than the period keeps an event's occurrences in order.
            throw JSONContentError(file: node.file, path: object.path("jitter"), reason: "jitter must be shorter than the period (\(Self.text(period)) s)")
        }
        // What: exactly one action.
        let present = Self.actions.filter { object.has($0) }
        guard let name = present.first else {
            throw node.error("an event needs one action: \(Self.actions.joined(separator: ", "))")
        }
        guard present.count == 1 else {
            throw JSONContentError(
                file: node.file, path: object.path(present[1]),
                reason: "an event has one action; this one has \(present.joined(separator: " and ")): write two events")
        }
        let actionNode = try object.required(name)
        switch name {
        case "set": action = .set(try Self.values(actionNode, profile: profile))
        case "add": action = .add(try Self.deltas(actionNode, profile: profile))
        case "fault": action = try Self.fault(actionNode, profile: profile)
        case "clearFaults":
            guard try actionNode.bool() else { throw actionNode.error("clearFaults is written true") }
            action = .clearFaults
        case "plugIn": action = .plugIn(try Self.connector(actionNode, profile: profile))
        default:
            let speed = try actionNode.number()
            guard speed.isFinite, speed >= 0 else { throw actionNode.error("expected a speed in km/h ≥ 0, found \(speed)") }
            action = .drive(speed)
        }
    }

    /// `"afterCommand": "ClimateCommand", "delay": 0.5`: a command message of the car
    /// (the DBC's, one a binding commands with), the delay in seconds (default 0); a
    /// `jitter` varies it (a driver's reaction time), as it does a timed event.
    static func afterCommand(_ messageNode: JSONNode, _ object: JSONObject, profile: VehicleProfile?) throws(JSONContentError) -> Timing {
        for key in ["at", "every", "from", "until"] where object.has(key) {
            throw JSONContentError(
                file: messageNode.file, path: object.path(key),
                reason: "\"\(key)\" does not go with \"afterCommand\" (its time is the command's, plus \"delay\" and \"jitter\")")
        }
        let message = try messageNode.string()
        if let profile {
            let commands = Set(profile.bindings.values.compactMap { $0.command?.message })
            guard commands.contains(message) else {
                let known = commands.sorted().joined(separator: ", ")
                throw messageNode.error(
                    "\(message) is not a command message of \(profile.displayName) (its command messages: \(known.isEmpty ? "none" : known))")
            }
        }
        let delay = try object.optional("delay").map { node throws(JSONContentError) in try Scenario.seconds(node) } ?? .zero
        return .afterCommand(message, delay: delay)
    }

    static func text(_ duration: Duration) -> String {
        let seconds = FaultRule.milliseconds(duration).rounded() / 1000
        return seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
    }

    /// A key of the vocabulary, and of the car when there is a profile.
    static func key(_ name: String, _ node: JSONNode, profile: VehicleProfile?) throws(JSONContentError) -> (PropertyKey, PropertyKind) {
        let key = PropertyKey(name)
        guard let kind = key.kind else { throw node.error("unknown property \(name) (VehicleProfiles/README.md lists them)") }
        if let profile, profile.bindings[key] == nil { throw node.error("\(profile.displayName) has no \(name)") }
        return (key, kind)
    }

    /// `{"climate.temperature.left": 19, "lock.locked": true}`, checked as `--state` is.
    static func values(_ node: JSONNode, profile: VehicleProfile?) throws(JSONContentError) -> [PropertyKey: PropertyValue] {
        var values: [PropertyKey: PropertyValue] = [:]
        for (name, value) in try node.map() {
            let (key, kind) = try key(name, value, profile: profile)
            guard let parsed = PropertyValue(json: value.value, kind: kind) else {
                throw value.error("\(value.value.serialized(sortedKeys: true)) is not a valid value of \(name)")
            }
            values[key] = parsed
        }
        guard !values.isEmpty else { throw node.error("set needs at least one property") }
        return values
    }

    /// `{"power.fuelPercent": -1}`: numbers, for integer and number properties.
    static func deltas(_ node: JSONNode, profile: VehicleProfile?) throws(JSONContentError) -> [PropertyKey: Double] {
        var deltas: [PropertyKey: Double] = [:]
        for (name, value) in try node.map() {
            let (key, kind) = try key(name, value, profile: profile)
            switch kind {
            case .integer: deltas[key] = Double(try value.integer())
            case .number: deltas[key] = try value.number()
            case .bool, .enumeration: throw value.error("\(name) is not a number: add moves numbers only (use set)")
            }
        }
        guard !deltas.isEmpty else { throw node.error("add needs at least one property") }
        return deltas
    }

    static func connector(_ node: JSONNode, profile: VehicleProfile?) throws(JSONContentError) -> ChargingConnectorType? {
        let name = try node.string()
        if name == PropertyKey.noConnector { return nil }
        let connector = try node.enumeration(ChargingConnectorType.self, what: "connector (or \"none\" to unplug)")
        if let profile, !profile.car.chargingConnectors.contains(where: { $0.type == connector }) {
            let known = profile.car.chargingConnectors.map(\.type.rawValue)
            throw node.error(
                "\(profile.displayName) has no \(name) connector (car.chargingConnectors: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
        }
        return connector
    }

    /// A fault rule as in a fault plan, with `forMs` instead of a window: the event's
    /// time opens it.
    static func fault(_ node: JSONNode, profile: VehicleProfile?) throws(JSONContentError) -> Action {
        guard case var .object(fields) = node.value else { throw node.error("expected an object, found \(node.value.typeName)") }
        for key in ["fromMs", "untilMs"] where fields[key] != nil {
            throw JSONContentError(
                file: node.file, path: node.childPath(key, quoted: false), reason: "the event's time opens a scenario fault: give forMs for how long it lasts")
        }
        var lasting: Duration?
        if let value = fields.removeValue(forKey: "forMs") {
            let forNode = JSONNode(value: value, path: node.childPath("forMs", quoted: false), file: node.file)
            let ms = try forNode.number()
            guard ms.isFinite, ms > 0 else { throw forNode.error("expected milliseconds > 0, found \(ms)") }
            lasting = FaultRule.duration(ms)
        }
        let rule = try FaultRule(json: JSONNode(value: .object(fields), path: node.path, file: node.file))
        if let profile, let message = rule.message { try check(message: message, of: rule, node.childPath("message", quoted: false), node.file, profile) }
        return .fault(rule, lasting: lasting)
    }

    /// A message the rule can match: in the DBC, and on the rule's side (a command fault
    /// never sees a status frame).
    static func check(message: String, of rule: FaultRule, _ path: String, _ file: String, _ profile: VehicleProfile) throws(JSONContentError) {
        guard profile.database.message(named: message) != nil else {
            throw JSONContentError(file: file, path: path, reason: "the DBC has no message \(message)")
        }
        let commands = Set(profile.bindings.values.compactMap { $0.command?.message })
        if rule.kind.isCommandFault, !commands.contains(message) {
            throw JSONContentError(
                file: file, path: path,
                reason:
                    "\(rule.kind.name) acts on received commands and \(message) is not a command message; to keep the vehicle's \(message) frames off the bus use \"silence\""
            )
        }
        if !rule.kind.isCommandFault, commands.contains(message) {
            throw JSONContentError(file: file, path: path, reason: "\(rule.kind.name) acts on the vehicle's own frames and \(message) is a command message")
        }
    }
}
