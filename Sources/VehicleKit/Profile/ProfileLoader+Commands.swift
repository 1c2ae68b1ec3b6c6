import CANKit
import CarplayJSON

/// Schema 2 commands, one parser per kind (VehicleProfiles/README.md, "Command kinds").
extension ProfileReader {
    func parseCommand(
        _ node: JSONNode, key: PropertyKey, kind: PropertyKind, profile: VehicleProfile
    ) throws(ProfileError) -> (PropertyCommand, [ResolvedSignal]) {
        guard case let .object(fields) = node.value else { throw node.error("expected an object, found \(node.value.typeName)") }
        var name = PropertyCommand.Kind.setpoint.rawValue
        if case let .string(given)? = fields["kind"] { name = given }
        guard let commandKind = PropertyCommand.Kind(rawValue: name) else {
            let kindNode = try node.object(known: fields.keys.sorted()).required("kind")
            let kinds = PropertyCommand.Kind.allCases.map(\.rawValue).joined(separator: ", ")
            throw kindNode.error("unknown command kind \"\(name)\"; expected one of \(kinds)")
        }
        let known: [String]
        switch commandKind {
        case .setpoint: known = ["kind", "message", "signal", "signals", "idle", "with"] + Self.mappingKeys.filter { $0 != "otherwise" }
        case .momentary: known = ["kind", "message", "requests", "holdFrames", "with"]
        case .toggle: known = ["kind", "message", "signal", "value", "holdFrames", "with"]
        case .step: known = ["kind", "message", "up", "down", "step", "maxSteps", "stepTimeoutMs", "holdFrames", "with"]
        }
        let object = try node.object(known: known)
        let message = try resolveMessage(object.required("message"), database: profile.database)
        switch commandKind {
        case .setpoint: return try parseSetpoint(object, key: key, kind: kind, message: message, range: numberRange(of: key, in: profile))
        case .momentary: return try parseMomentary(object, key: key, kind: kind, message: message, profile: profile)
        case .toggle: return try parseToggle(object, key: key, kind: kind, message: message, profile: profile)
        case .step: return try parseStep(object, key: key, kind: kind, message: message, profile: profile)
        }
    }

    func parseSetpoint(_ object: JSONObject, key: PropertyKey, kind: PropertyKind, message: DBCMessage, range: ClosedRange<Double>?) throws(ProfileError) -> (
        PropertyCommand, [ResolvedSignal]
    ) {
        // "signal": S, or "signals": [S, T, ...]: the same value on each (left and right requests).
        var signals: [ResolvedSignal] = []
        switch (object.optional("signal"), object.optional("signals")) {
        case let (signalNode?, nil): signals = [try resolveSignal(signalNode, in: message, path: object.path)]
        case let (nil, listNode?):
            for (index, item) in try listNode.array().enumerated() {
                let resolved = try resolveSignal(item, in: message, path: object.path("signals") + "[\(index)]")
                if signals.contains(where: { $0.signal.name == resolved.signal.name }) {
                    throw item.error("signal \"\(resolved.signal.name)\" is listed twice")
                }
                signals.append(resolved)
            }
            guard !signals.isEmpty else { throw listNode.error("name at least one signal") }
        case (_?, _?): throw fail(object.path("signals"), "give signal or signals, not both")
        case (nil, nil): throw fail(object.path("signal"), "missing: the signal that carries the set point (or signals: [...])")
        }
        let signal = signals[0]
        var idle: Int128?
        if let idleNode = object.optional("idle") { idle = try rawValue(idleNode, signal: signal.signal, message: message).raw }
        let values = try parseMapping(object, key: key, kind: kind, signal: signal, isStatus: false, range: range)
        if let idle {
            for (text, names) in values.values {
                if let first = names.first, ValueCodec.raw(first, signal: signal.signal) == idle {
                    throw fail(
                        object.path("values") + "[\"\(text)\"]",
                        "\(first) is the idle value of signal \"\(signal.signal.name)\": the vehicle could not tell \(key.rawValue) = \(text) from no request")
                }
            }
        }
        for other in signals.dropFirst() {
            // One value in every signal: each must read a raw value the way the first does.
            let (a, b) = (signal.signal, other.signal)
            guard a.length == b.length, a.scale == b.scale, a.offset == b.offset, a.isSigned == b.isSigned else {
                throw fail(
                    other.path,
                    "signal \"\(b.name)\" does not carry values the way \"\(a.name)\" does (length, sign, scale and offset must match) to be sent the same value"
                )
            }
        }
        let command = SetpointCommand(signal: signal.reference, also: signals.dropFirst().map(\.signal.name), idle: idle, values: values)
        return (.setpoint(command), signals)
    }

    func parseMomentary(
        _ object: JSONObject, key: PropertyKey, kind: PropertyKind, message: DBCMessage, profile: VehicleProfile
    ) throws(ProfileError) -> (PropertyCommand, [ResolvedSignal]) {
        switch kind {
        case .bool, .enumeration: break
        default: throw fail(object.path("kind"), "a momentary request sets one value per request; \(key.rawValue) is a number: use a setpoint or step command")
        }
        let requestsNode = try object.required("requests")
        var requests: [String: SignalRequest] = [:]
        var spelled: [String: String] = [:]
        var signals: [ResolvedSignal] = []
        for (text, requestNode) in try requestsNode.map() {
            guard ValueCodec.value(text, kind: kind) != nil else { throw requestNode.error("\"\(text)\" is not a value of \(key.rawValue)") }
            let name = kind.canonicalName(text)
            if let other = spelled.updateValue(text, forKey: name) { throw requestNode.error("\"\(text)\" and \"\(other)\" both name \(name)") }
            let (request, signal) = try parseRequest(requestNode, message: message, profile: profile)
            requests[name] = request
            signals.append(signal)
        }
        guard !requests.isEmpty else { throw requestsNode.error("a momentary command has at least one request") }
        return (.momentary(MomentaryCommand(message: message.name, requests: requests, holdFrames: try holdFrames(object))), signals)
    }

    func parseToggle(
        _ object: JSONObject, key: PropertyKey, kind: PropertyKind, message: DBCMessage, profile: VehicleProfile
    ) throws(ProfileError) -> (PropertyCommand, [ResolvedSignal]) {
        guard kind == .bool else { throw fail(object.path("kind"), "a toggle flips a boolean; \(key.rawValue) is not one") }
        let (press, signal) = try parseRequest(object.node, message: message, profile: profile, known: ["kind", "message", "signal", "value", "holdFrames"])
        return (.toggle(ToggleCommand(press: press, holdFrames: try holdFrames(object))), [signal])
    }

    func parseStep(
        _ object: JSONObject, key: PropertyKey, kind: PropertyKind, message: DBCMessage, profile: VehicleProfile
    ) throws(ProfileError) -> (PropertyCommand, [ResolvedSignal]) {
        switch kind {
        case .integer, .number: break
        default: throw fail(object.path("kind"), "up/down steps move a number; \(key.rawValue) is not one")
        }
        let (up, upSignal) = try parseRequest(object.required("up"), message: message, profile: profile)
        let (down, downSignal) = try parseRequest(object.required("down"), message: message, profile: profile)
        if up.signal == down.signal, up.value == down.value {
            throw fail(object.path("down"), "up and down send the same request: the vehicle could not tell them apart")
        }
        let range = stepRange(of: key, in: profile)
        var step = range?.step ?? 1
        if let stepNode = object.optional("step") {
            step = try stepNode.number()
            guard step > 0, step.isFinite else { throw stepNode.error("a step moves the property by more than 0") }
            if kind == .integer, step.rounded() != step { throw stepNode.error("\(key.rawValue) is an integer: a step moves it by whole levels") }
        }
        var maxSteps = range.map { Int((($0.max - $0.min) / step).rounded(.up)) + 1 } ?? 100
        if let maxNode = object.optional("maxSteps") {
            maxSteps = try maxNode.integer()
            guard maxSteps > 0 else { throw maxNode.error("must be greater than 0") }
        }
        var timeout = profile.policies.confirmationTimeout
        if let timeoutNode = object.optional("stepTimeoutMs") {
            let milliseconds = try timeoutNode.integer()
            guard milliseconds > 0 else { throw timeoutNode.error("must be greater than 0 (milliseconds)") }
            timeout = .milliseconds(milliseconds)
        }
        let command = StepCommand(up: up, down: down, step: step, maxSteps: maxSteps, stepTimeout: timeout, holdFrames: try holdFrames(object))
        return (.step(command), [upSignal, downSignal])
    }

    /// The range a stepped property moves in (and the capability's step), when the
    /// capability gives one.
    func stepRange(of key: PropertyKey, in profile: VehicleProfile) -> SteppedRange? {
        if key.rawValue.hasPrefix("climate.temperature."), let climate = profile.climate { return climate.celsius }
        if key == .fanSpeed, let levels = profile.climate?.fanSpeedLevels, levels > 0 {
            return SteppedRange(min: 1, max: Double(levels), step: 1)
        }
        let parts = key.rawValue.split(separator: ".").map(String.init)
        if parts.count == 3, parts[0] == "seat", let seat = CarSeat(rawValue: parts[1]), let feature = SeatFeature(rawValue: parts[2]),
            let maximum = profile.seat(seat)?.maximum(feature), maximum > 0
        {
            return SteppedRange(min: 0, max: Double(maximum), step: 1)
        }
        return nil
    }

    /// `{"signal": S, "value": V}`: a request value on a signal of `message` that differs
    /// from the signal's idle value (else a press could not be told from no request).
    func parseRequest(
        _ node: JSONNode, message: DBCMessage, profile: VehicleProfile, known: [String] = ["signal", "value"]
    ) throws(ProfileError) -> (SignalRequest, ResolvedSignal) {
        let object = try node.object(known: known)
        let signal = try resolveSignal(object.required("signal"), in: message, path: node.path)
        let valueNode = try object.required("value")
        let (name, raw) = try rawValue(valueNode, signal: signal.signal, message: message)
        let idle = profile.defaultRaw(of: signal.signal, in: message.name)
        guard raw != idle else {
            throw valueNode.error(
                "\(name) is the idle value of signal \"\(signal.signal.name)\" (raw \(idle): messages[\"\(message.name)\"].defaults, else NoRequest, else the DBC's start value, else 0): a press could not be told from no request"
            )
        }
        return (SignalRequest(signal: signal.reference, value: name), signal)
    }

    /// `command.with`: `{"Signal": raw value or choice name, ...}`, the fixed values a frame
    /// carrying the command sets beside it (an "HMI active" bit, a request-type code).
    func parseCompanions(_ commandNode: JSONNode, message: DBCMessage) throws(ProfileError) -> [SignalRequest] {
        guard case .object = commandNode.value, let withNode = try commandNode.object().optional("with") else { return [] }
        var companions: [SignalRequest] = []
        for (name, valueNode) in try withNode.map() {
            guard let signal = message.signal(named: name) else { throw valueNode.error("no signal \"\(name)\" in message \"\(message.name)\" of \(dbcName)") }
            let (value, _) = try rawValue(valueNode, signal: signal, message: message)
            companions.append(SignalRequest(signal: SignalReference(message: message.name, signal: name), value: value))
        }
        return companions
    }

    func holdFrames(_ object: JSONObject) throws(ProfileError) -> Int {
        guard let node = object.optional("holdFrames") else { return 1 }
        let frames = try node.integer()
        guard (1...100).contains(frames) else { throw node.error("a request is held for 1...100 frames, not \(frames)") }
        return frames
    }
}
