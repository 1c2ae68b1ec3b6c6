import CANBus
import CANKit
import CarplayJSON
import VehicleKit

/// SiriKit's phases, as a client asks for them: each later one runs the earlier ones
/// first, on one reading of the vehicle's state.
public enum IntentPhase: String, Sendable, Hashable, CaseIterable {
    /// How each parameter resolves; nothing is sent.
    case resolve
    /// Resolve, then whether the intent may be handled now.
    case confirm
    /// Resolve, confirm, then send and wait for the vehicle to confirm; the reply
    /// leaves out the resolutions.
    case handle
    /// Handle with the resolutions in the reply.
    case perform
}

/// Why an intent was not handled.
public enum IntentRefusal: Sendable, Hashable {
    /// A parameter did not resolve to a value: the first such parameter and why.
    case notResolved(parameter: String, reason: String)
    /// The intent is restricted while the caller's device is locked, and it is.
    case restrictedWhileLocked(reason: String)
    /// carplayd's car-state policy refuses the intent while the car is locked.
    case carLocked
    /// No trusted status frame from the vehicle for several cycle times.
    case vehicleUnreachable
    /// The CAN controller of `interface` is bus-off.
    case busOff(interface: String)
    /// Confirm refused for another reason; the response says which (satellite radio
    /// not subscribed).
    case refused
}

/// What one phase produced: the resolutions, the response (after Resolve: ready or
/// notResolved), why the intent was not handled if it was not, every frame sent and
/// received while it was handled, and the vehicle state afterwards.
public struct IntentOutcome: Sendable {
    public var phase: IntentPhase
    public var resolution: IntentResolution
    public var response: IntentResponse
    public var refusal: IntentRefusal?
    public var frames: [ReceivedFrame]
    public var state: VehicleState
    /// `VehicleController.versionedState()`'s version of `state`.
    public var stateVersion: Int

    public init(
        phase: IntentPhase, resolution: IntentResolution, response: IntentResponse, refusal: IntentRefusal?, frames: [ReceivedFrame],
        state: VehicleState, stateVersion: Int
    ) {
        self.phase = phase
        self.resolution = resolution
        self.response = response
        self.refusal = refusal
        self.frames = frames
        self.state = state
        self.stateVersion = stateVersion
    }

    /// Every parameter resolved to a value: the intent can be confirmed and handled.
    public var isReady: Bool { resolution.action != nil }

    /// `{"<parameter>":{"kind":…},…}`, members in `JSONValue`'s order.
    func resolutionsJSON() -> [UInt8] {
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
    func framesJSON() -> [UInt8] {
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

extension IntentRefusal {
    /// The refusal a confirm-phase response stands for.
    init(confirmation response: IntentResponse) {
        switch response.reason {
        case IntentResponse.restrictedWhileLocked?: self = .restrictedWhileLocked(reason: response.fields["detail"]?.stringValue ?? "the device is locked")
        case IntentResponse.carLocked?: self = .carLocked
        case IntentResponse.vehicleUnreachable?: self = .vehicleUnreachable
        case IntentResponse.busOff?: self = .busOff(interface: response.fields["interface"]?.stringValue ?? "")
        default: self = .refused
        }
    }

    /// The first parameter of `resolution` that did not resolve, and why.
    static func notResolved(_ resolution: IntentResolution) -> IntentRefusal {
        guard let (name, result) = resolution.parameters.first(where: { !$0.result.isResolved }) else {
            return .notResolved(parameter: "parameters", reason: "not resolved")
        }
        let reason: String
        switch result {
        case let .needsValue(text), let .unsupported(text), let .confirmationRequired(_, text): reason = text
        case .disambiguation: reason = "several values match; choose one (Resolve lists them)"
        default: reason = "not resolved"
        }
        return .notResolved(parameter: name, reason: reason)
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
