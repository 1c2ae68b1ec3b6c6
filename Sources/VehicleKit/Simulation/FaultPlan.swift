/// Faults the simulated vehicle injects: a list of rules, scriptable from tests and
/// (as JSON) from a file or flags. Rules can be replaced while the vehicle runs
/// (`VehicleSimulation.setFaults`).
///
/// JSON form of a plan: `{"rules":[{"kind":"delay","ms":300,"property":"climate.","count":2}]}`;
/// see `FaultRule` for the fields.
public struct FaultPlan: Sendable, Hashable, Codable {
    public var rules: [FaultRule]

    public init(_ rules: [FaultRule] = []) { self.rules = rules }

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
public struct FaultRule: Sendable, Hashable, Codable, CustomStringConvertible {
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

    // MARK: - Codable (flat JSON, durations in milliseconds)

    private enum CodingKeys: String, CodingKey { case kind, ms, result, property, message, count, fromMs, untilMs }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .kind)
        switch name {
        case "drop": kind = .drop
        case "delay":
            let ms = try container.decode(Double.self, forKey: .ms)
            guard ms >= 0 else { throw DecodingError.dataCorruptedError(forKey: .ms, in: container, debugDescription: "a delay cannot be negative") }
            kind = .delay(Self.duration(ms))
        case "reject": kind = .reject(result: try container.decodeIfPresent(String.self, forKey: .result))
        case "wrongValue": kind = .wrongValue
        case "badCRC": kind = .badCRC
        case "repeatCounter": kind = .repeatCounter
        case "silence": kind = .silence
        case "busOff": kind = .busOff
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container,
                debugDescription: "unknown fault kind \"\(name)\" (drop, delay, reject, wrongValue, badCRC, repeatCounter, silence, busOff)")
        }
        property = try container.decodeIfPresent(String.self, forKey: .property)
        message = try container.decodeIfPresent(String.self, forKey: .message)
        count = try container.decodeIfPresent(Int.self, forKey: .count)
        from = try container.decodeIfPresent(Double.self, forKey: .fromMs).map(Self.duration)
        until = try container.decodeIfPresent(Double.self, forKey: .untilMs).map(Self.duration)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind.name, forKey: .kind)
        switch kind {
        case let .delay(delay): try container.encode(Self.milliseconds(delay), forKey: .ms)
        case let .reject(result): try container.encodeIfPresent(result, forKey: .result)
        default: break
        }
        try container.encodeIfPresent(property, forKey: .property)
        try container.encodeIfPresent(message, forKey: .message)
        try container.encodeIfPresent(count, forKey: .count)
        try container.encodeIfPresent(from.map(Self.milliseconds), forKey: .fromMs)
        try container.encodeIfPresent(until.map(Self.milliseconds), forKey: .untilMs)
    }

    static func duration(_ milliseconds: Double) -> Duration { .microseconds(Int64((milliseconds * 1000).rounded())) }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
