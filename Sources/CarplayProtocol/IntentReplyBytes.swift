import CANBus
import CANKit
import CarIntents
import CarplayJSON
import VehicleKit

// The intent methods' replies as bytes: every Perform reply carries the resolutions, the
// frames and the state, written straight into the reply instead of through a tree of
// values (docs/BENCHMARKS.md). The domain (CarIntents) gives the values; this layer
// writes them, and reads a resolution back for clients.

extension IntentOutcome {
    /// `{"<parameter>":{"kind":…},…}`, members in `JSONValue`'s order.
    package func resolutionsJSON() -> [UInt8] {
        let parameters = resolution.parameters
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(48 * parameters.count + 2)
        for (index, member) in ResolutionsLayout.of(parameters, intent: resolution.intent.name).members.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: member.name)
            parameters[member.position].result.appendJSON(to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// The members of the phase's reply:
    /// - resolve: `resolutions`, `ready`;
    /// - confirm: `resolutions`, `response`;
    /// - handle: `response`, `frames`, `state`;
    /// - perform: `resolutions`, `response`, `frames`, `state`.
    /// `resolutions`, `frames` and `state` come as serialized JSON (`raw`): the
    /// resolutions and the frames' candump lines written straight into bytes, the state
    /// as `stateJSON` gives it (a cache).
    public func replyMembers(stateJSON: (VehicleState, Int) -> [UInt8]) -> (members: [String: JSONValue], raw: [String: [UInt8]]) {
        switch phase {
        case .resolve:
            return (["ready": .bool(isReady)], ["resolutions": resolutionsJSON()])
        case .confirm:
            return (["response": response.jsonValue], ["resolutions": resolutionsJSON()])
        case .handle:
            return (["response": response.jsonValue], ["frames": framesJSON(), "state": stateJSON(state, stateVersion)])
        case .perform:
            return (
                ["response": response.jsonValue],
                ["resolutions": resolutionsJSON(), "frames": framesJSON(), "state": stateJSON(state, stateVersion)]
            )
        }
    }

    /// The phase's reply as one JSON object (what `carplayctl perform --simulate` prints).
    public var json: JSONValue {
        let (members, raw) = replyMembers { state, _ in state.jsonValue.serializedBytes() }
        var bytes: [UInt8] = []
        JSONBytes.appendObject(members, raw: raw, to: &bytes)
        // The bytes were written from values: they parse.
        return (try? JSONValue(parsing: bytes)) ?? .null
    }

    /// `["(1700000000.000100) vcan0 3A0#2D00", …]`.
    package func framesJSON() -> [UInt8] {
        var lines: [UInt8] = [UInt8(ascii: "[")]
        lines.reserveCapacity(frames.count * 64 + 2)
        var line: [UInt8] = []
        for (index, frame) in frames.enumerated() {
            if index > 0 { lines.append(UInt8(ascii: ",")) }
            let record = CandumpRecord(timestamp: frame.timestamp, interface: frame.interface, frame: frame.frame)
            // A candump line is digits, hex, "().# " and the interface's name: written
            // straight into the string unless the name needs escaping.
            if !frame.interface.utf8.contains(where: JSONBytes.needsEscape) {
                lines.append(UInt8(ascii: "\""))
                CandumpWriter.appendLogLine(record, to: &lines)
                lines.append(UInt8(ascii: "\""))
            } else {
                line.removeAll(keepingCapacity: true)
                CandumpWriter.appendLogLine(record, to: &line)
                line.withUnsafeBufferPointer { JSONBytes.appendString(utf8: $0, to: &lines) }
            }
        }
        lines.append(UInt8(ascii: "]"))
        return lines
    }
}

extension ResolutionResult {
    /// The JSON object, written straight into `bytes` with its members in `JSONValue`'s
    /// order (kind, options, reason, value): every Perform reply carries a dozen of
    /// these, and a tree of dictionaries per result, sorted when written, cost more
    /// than the rest of the reply (docs/BENCHMARKS.md).
    package func appendJSON(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: Self.kindMembers[kindIndex])
        func member(_ name: String, _ value: JSONValue) {
            bytes.append(UInt8(ascii: ","))
            JSONBytes.appendString(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            value.write(to: &bytes)
        }
        switch self {
        case let .success(value): member("value", value)
        case let .disambiguation(options): member("options", .array(options))
        case let .confirmationRequired(value, reason):
            member("reason", .string(reason))
            member("value", value)
        case let .needsValue(reason), let .unsupported(reason): member("reason", .string(reason))
        case .notRequired: break
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// `{"kind":"<kind>"` per kind, written once, in the order of `ResolutionKind`'s cases.
    private static let kindMembers: [[UInt8]] = ResolutionKind.allCases.map { kind in
        var bytes = Array(#"{"kind":"#.utf8)
        JSONBytes.appendString(kind.rawValue, to: &bytes)
        return bytes
    }
    private static let kinds = ResolutionKind.allCases

    /// The kind's place in `kindMembers`: found by comparing cases (a raw-value enum as a
    /// dictionary key hashes its text).
    private var kindIndex: Int { Self.kinds.firstIndex(of: kind)! }

    /// The JSON form read back (a client reading a reply): the members `jsonValue` writes
    /// for the kind, others ignored; a success without a value holds null.
    public init(json node: JSONNode) throws(JSONContentError) {
        let object = try node.object()
        func reason() throws(JSONContentError) -> String { try object.required("reason").string() }
        switch try object.required("kind").enumeration(ResolutionKind.self, what: "resolution kind") {
        case .success: self = .success(object.optional("value")?.value ?? .null)
        case .disambiguation: self = .disambiguation(try object.required("options").array().map(\.value))
        case .confirmationRequired: self = .confirmationRequired(try object.required("value").value, reason: try reason())
        case .needsValue: self = .needsValue(reason: try reason())
        case .notRequired: self = .notRequired
        case .unsupported: self = .unsupported(reason: try reason())
        }
    }
}

/// How a reply writes the resolutions of an intent's parameters: each one's `"name":`
/// and its place among the parameters, in the order `JSONValue` writes members. Each
/// intent's parameters are known, so their layouts are made once: sorting and escaping
/// a dozen names per reply cost as much as writing the results.
struct ResolutionsLayout: Sendable {
    let names: [String]
    let members: [(position: Int, name: [UInt8])]

    init(names: [String]) {
        self.names = names
        members = names.indices.sorted { JSONBytes.precedes(names[$0], names[$1]) }.map { position in
            var member: [UInt8] = []
            JSONBytes.appendString(names[position], to: &member)
            member.append(UInt8(ascii: ":"))
            return (position, member)
        }
    }

    private static let known = IntentName.allCases.map { (intent: $0, layout: ResolutionsLayout(names: Intent.parameterNames(of: $0))) }

    /// The layout of `parameters`: the intent's own when they are its parameters in
    /// SiriKit's order (as the resolver gives them), else one made for them.
    static func of(_ parameters: [(name: String, result: ResolutionResult)], intent: IntentName) -> ResolutionsLayout {
        if let layout = known.first(where: { $0.intent == intent })?.layout, layout.names.count == parameters.count,
            zip(layout.names, parameters).allSatisfy({ $0 == $1.name })
        {
            return layout
        }
        return ResolutionsLayout(names: parameters.map(\.name))
    }
}
