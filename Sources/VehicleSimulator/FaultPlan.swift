import CarplayJSON
import VehicleKit

/// Faults the simulated vehicle injects: a list of rules, scriptable from tests and
/// (as JSON) from a file or flags. Rules can be replaced while the vehicle runs
/// (`VehicleSimulation.setFaults`).
///
/// JSON form of a plan: `{"rules":[{"kind":"delay","ms":300,"property":"climate.","count":2}]}`;
/// see `FaultRule` for the fields.
public struct FaultPlan: Sendable, Hashable {
    public var rules: [FaultRule]

    public init(_ rules: [FaultRule] = []) { self.rules = rules }

    /// A plan in its JSON form; `source` names where the text came from in errors
    /// (`--faults`, a file, `SetFaults`).
    public init(parsing text: String, source: String) throws(JSONContentError) {
        try self.init(json: JSONNode(parsing: Array(text.utf8), file: source))
    }

    public init(json node: JSONNode) throws(JSONContentError) {
        let object = try node.object(known: ["rules"])
        var rules: [FaultRule] = []
        for rule in try object.required("rules").array() { rules.append(try FaultRule(json: rule)) }
        self.rules = rules
    }

    public var jsonValue: JSONValue { .object(["rules": .array(rules.map(\.jsonValue))]) }

    /// No faults: the vehicle behaves.
    public static let none = FaultPlan()

    public var isEmpty: Bool { rules.isEmpty }
}

/// One fault: what goes wrong (`kind`), and for which events (`scope`).
///
/// Events are of two sides:
/// - **command** faults (`drop`, `delay`, `reject`, `wrongValue`) match a received,
///   E2E-valid command frame; one frame is one event;
/// - **transmit** faults (`badCRC`, `repeatCounter`, `silence`, `busOff`) match a frame
///   the vehicle is about to send; one frame is one event. Unscoped `badCRC` and
///   `repeatCounter` touch status frames only; name the acknowledgement message in
///   `message` to corrupt acknowledgements.
///
/// JSON: `{"kind": "drop" | "delay" | "reject" | "wrongValue" | "badCRC" | "repeatCounter" | "silence" | "busOff",
///         "ms": 300,                // delay only
///         "result": "RejectedBusy", // reject only, optional: the acknowledgement's result choice
///         "property": "climate.",   // optional key prefix
///         "message": "ClimateCommand", // optional message name
///         "count": 2,               // optional: the next N matching events, then the rule expires
///         "fromMs": 0, "untilMs": 5000}` // optional window, time since the simulation started
public struct FaultRule: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Ignore matching commands: no acknowledgement, no change.
        case drop
        /// Apply and acknowledge matching commands only after this delay.
        case delay(Duration)
        /// Acknowledge matching commands with a rejection (`result`, or the DBC's generic
        /// rejection choice) and apply nothing.
        case reject(result: String?)
        /// Apply a different value than commanded (numbers one step / 1.0 off, booleans
        /// inverted, enumerations the next case the car has) and acknowledge "Accepted".
        case wrongValue
        /// Matching frames leave with a corrupted CRC.
        case badCRC
        /// Matching frames repeat the previous alive counter (with a valid CRC).
        case repeatCounter
        /// Matching frames are not sent at all (status and acknowledgements). Commands are
        /// still applied: the vehicle works, its transmitter does not.
        case silence
        /// Reserved for bus-off simulation (issue 5). Until then it behaves like `silence`.
        case busOff

        public var name: String {
            switch self {
            case .drop: "drop"
            case .delay: "delay"
            case .reject: "reject"
            case .wrongValue: "wrongValue"
            case .badCRC: "badCRC"
            case .repeatCounter: "repeatCounter"
            case .silence: "silence"
            case .busOff: "busOff"
            }
        }

        /// Whether the rule acts on received commands (else on transmitted frames).
        public var isCommandFault: Bool {
            switch self {
            case .drop, .delay, .reject, .wrongValue: true
            case .badCRC, .repeatCounter, .silence, .busOff: false
            }
        }
    }

    public var kind: Kind
    /// Property key prefix, e.g. "climate." or "seat.frontLeft.heating"; nil matches any.
    public var property: String?
    /// Message name (a command message for command faults, a status or the
    /// acknowledgement message for transmit faults); nil matches any.
    public var message: String?
    /// The rule applies to the next `count` matching events, then expires; nil: unlimited.
    public var count: Int?
    /// Active from this time since the simulation started (inclusive); nil: from the start.
    public var from: Duration?
    /// Active until this time (exclusive); nil: forever.
    public var until: Duration?

    public init(_ kind: Kind, property: String? = nil, message: String? = nil, count: Int? = nil, from: Duration? = nil, until: Duration? = nil) {
        self.kind = kind
        self.property = property
        self.message = message
        self.count = count
        self.from = from
        self.until = until
    }

    public static func drop(property: String? = nil, message: String? = nil, count: Int? = nil) -> FaultRule {
        FaultRule(.drop, property: property, message: message, count: count)
    }

    public static func delay(_ delay: Duration, property: String? = nil, message: String? = nil, count: Int? = nil) -> FaultRule {
        FaultRule(.delay(delay), property: property, message: message, count: count)
    }

    public static func reject(result: String? = nil, property: String? = nil, message: String? = nil, count: Int? = nil) -> FaultRule {
        FaultRule(.reject(result: result), property: property, message: message, count: count)
    }

    /// Whether the rule is in its time window at `now` (and not used up).
    public func isActive(at now: Duration) -> Bool {
        if let count, count <= 0 { return false }
        if let from, now < from { return false }
        if let until, now >= until { return false }
        return true
    }

    /// Whether the rule's scope covers an event about `message` touching `keys`.
    public func matches(message name: String, keys: some Sequence<PropertyKey>) -> Bool {
        if let message, message != name { return false }
        if let property, !keys.contains(where: { $0.rawValue.hasPrefix(property) }) { return false }
        return true
    }

    public var description: String {
        var text = kind.name
        switch kind {
        case let .delay(delay): text += "(\(Self.milliseconds(delay)) ms)"
        case let .reject(result?): text += "(\(result))"
        default: break
        }
        if let property { text += " property=\(property)" }
        if let message { text += " message=\(message)" }
        if let count { text += " count=\(count)" }
        if let from { text += " from=\(Self.milliseconds(from))ms" }
        if let until { text += " until=\(Self.milliseconds(until))ms" }
        return text
    }

    // MARK: - JSON (flat, durations in milliseconds)

    public init(json node: JSONNode) throws(JSONContentError) {
        let object = try node.object(known: ["kind", "ms", "result", "property", "message", "count", "fromMs", "untilMs"])
        let kindNode = try object.required("kind")
        let name = try kindNode.string()
        switch name {
        case "drop": kind = .drop
        case "delay":
            let msNode = try object.required("ms")
            let ms = try msNode.number()
            guard ms >= 0 else { throw msNode.error("a delay cannot be negative") }
            kind = .delay(Self.duration(ms))
        case "reject": kind = .reject(result: try object.optional("result")?.string())
        case "wrongValue": kind = .wrongValue
        case "badCRC": kind = .badCRC
        case "repeatCounter": kind = .repeatCounter
        case "silence": kind = .silence
        case "busOff": kind = .busOff
        default:
            throw kindNode.error("unknown fault kind \"\(name)\" (drop, delay, reject, wrongValue, badCRC, repeatCounter, silence, busOff)")
        }
        property = try object.optional("property")?.string()
        message = try object.optional("message")?.string()
        count = try object.optional("count")?.integer()
        from = try object.optional("fromMs").map { node throws(JSONContentError) in Self.duration(try node.number()) }
        until = try object.optional("untilMs").map { node throws(JSONContentError) in Self.duration(try node.number()) }
    }

    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["kind": .string(kind.name)]
        switch kind {
        case let .delay(delay): object["ms"] = .number(Self.milliseconds(delay))
        case let .reject(result?): object["result"] = .string(result)
        default: break
        }
        if let property { object["property"] = .string(property) }
        if let message { object["message"] = .string(message) }
        if let count { object["count"] = .integer(count) }
        if let from { object["fromMs"] = .number(Self.milliseconds(from)) }
        if let until { object["untilMs"] = .number(Self.milliseconds(until)) }
        return .object(object)
    }

    static func duration(_ milliseconds: Double) -> Duration { .microseconds(Int64((milliseconds * 1000).rounded())) }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
