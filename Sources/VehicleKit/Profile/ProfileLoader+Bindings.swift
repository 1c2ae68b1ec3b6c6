import CANKit
import CarplayJSON

/// `bindings`: each property's status signal and value mapping, and its command
/// (parsed by kind in `ProfileLoader+Commands`).
extension ProfileReader {
    /// The keys of a value mapping (on `status` and on a setpoint command).
    static let mappingKeys = ["values", "otherwise", "invalid", "unit", "linear"]

    func resolveBindings(_ node: JSONNode, profile: VehicleProfile) throws(ProfileError) -> [PropertyKey: ResolvedBinding] {
        var resolved: [PropertyKey: ResolvedBinding] = [:]
        // "message.signal" -> the path that binds it, and whether as a setpoint (setpoint
        // and status may share a signal, a setpoint and a request never).
        var owners: [String: (path: String, setpoint: Bool)] = [:]
        // "message.signal=raw" -> the request that uses that value.
        var requests: [String: String] = [:]
        // `command.with` signals, checked against `owners` once every binding is read.
        var companionPaths: [(id: String, path: String, value: RawValueName, message: DBCMessage)] = []
        for (rawKey, bindingNode) in try node.map() {
            let key = PropertyKey(rawKey)
            guard let kind = key.kind else {
                throw bindingNode.error("unknown property key \"\(rawKey)\" (not in the vocabulary of VehicleProfiles/README.md)")
            }
            let capability = capability(of: key, in: profile)
            guard capability.enabled else {
                throw bindingNode.error("the car has no such capability: \(rawKey) needs \(capability.needs)")
            }
            let object = try bindingNode.object(known: ["command", "status", "signalUnit"])
            let statusNode = try object.required("status")
            let statusKeys = ["message", "signal", "valid"] + Self.mappingKeys
            let status = try resolveSignal(statusNode, known: statusKeys, database: profile.database)
            let validNode = try statusNode.object(known: statusKeys).optional("valid")
            let validity = try validNode.map { node throws(ProfileError) in try parseValidity(node, status: status) }
            if let commandNode = object.optional("command"), key.isStatusOnly {
                throw commandNode.error("\(rawKey) is status only: the vehicle reports it and nothing sets it, so it cannot have a command")
            }
            let statusValues = try parseMapping(
                statusNode.object(known: statusKeys), key: key, kind: kind, signal: status, isStatus: true, range: numberRange(of: key, in: profile))
            var command: PropertyCommand?
            var commandSignals: [ResolvedSignal] = []
            var companions: [SignalRequest] = []
            if let commandNode = object.optional("command") {
                (command, commandSignals) = try parseCommand(commandNode, key: key, kind: kind, profile: profile)
                if let message = commandSignals.first?.message {
                    companions = try parseCompanions(commandNode, message: message)
                    for companion in companions {
                        companionPaths.append(
                            ("\(message.name).\(companion.signal.signal)", commandNode.path + ".with[\"\(companion.signal.signal)\"]", companion.value, message)
                        )
                    }
                }
            }

            // A frame sets its page's selector itself.
            for reference in commandSignals where reference.signal.isMultiplexer {
                throw fail(
                    reference.path + ".signal",
                    "signal \"\(reference.signal.name)\" selects the pages of message \"\(reference.message.name)\" (a multiplexer): bind a signal on a page, and the frame sets the selector"
                )
            }

            // Who binds which signal.
            if let command {
                let isSetpoint = if case .setpoint = command { true } else { false }
                for reference in commandSignals {
                    let id = "\(reference.message.name).\(reference.signal.name)"
                    if let owner = owners[id], owner.setpoint != isSetpoint {
                        throw fail(
                            reference.path + ".signal",
                            "signal \"\(reference.signal.name)\" of message \"\(reference.message.name)\" is already \(owner.setpoint ? "the setpoint" : "a request signal") of \(owner.path); one signal is either a setpoint or carries requests"
                        )
                    }
                    owners[id] = (reference.path, isSetpoint)
                }
                for request in Self.requests(of: command) {
                    let id = "\(request.signal.message).\(request.signal.signal)=\(request.value)"
                    if let other = requests[id] {
                        throw fail(
                            bindingNode.childPath("command", quoted: false),
                            "\(request.value) on signal \"\(request.signal.signal)\" is already the request of \(other): the vehicle could not tell the two apart"
                        )
                    }
                    requests[id] = "bindings[\"\(rawKey)\"]"
                }
            }

            // An enumeration maps every case the car has, and no other.
            if case .enumeration = kind {
                let needed: [String] =
                    switch key {
                    case .audioSource: profile.audioSources.map(\.rawValue)
                    case .radioBand: profile.radio?.bands.map(\.type.rawValue) ?? []
                    case .activeConnector: profile.car.chargingConnectors.map(\.type.rawValue) + [PropertyKey.noConnector]
                    case .temperatureUnit: ["celsius", "fahrenheit"]
                    default: AirCirculationMode.allCases.map(\.rawValue)
                    }
                var sides: [(path: String, names: Set<String>, exact: Bool)] = [
                    (statusNode.childPath("values", quoted: false), Set(statusValues.values.keys), true)
                ]
                switch command {
                case let .setpoint(setpoint)?:
                    sides.append((bindingNode.childPath("command", quoted: false) + ".values", Set(setpoint.values.values.keys), true))
                case let .momentary(momentary)?:
                    sides.append((bindingNode.childPath("command", quoted: false) + ".requests", Set(momentary.requests.keys), false))
                default: break
                }
                for side in sides {
                    for name in needed where !side.names.contains(name) {
                        throw fail("\(side.path)[\"\(name)\"]", "missing: the car has \(name), so \(rawKey) maps it to a value of the DBC signal")
                    }
                    for name in side.names.sorted() where !needed.contains(name) && side.exact {
                        throw fail(
                            "\(side.path)[\"\(name)\"]",
                            "the car has no \(name) (\(key == .audioSource ? "audioSources" : key == .radioBand ? "radio.bands" : key == .activeConnector ? "car.chargingConnectors" : "climate.recirculation") does not list it)"
                        )
                    }
                }
            }

            var signalUnit: String?
            if let unitNode = object.optional("signalUnit") {
                guard key == .radioFrequency else {
                    throw unitNode.error("signalUnit is only for radio.frequency (other units: \"unit\" on status or a setpoint command)")
                }
                let unit = try unitNode.string()
                guard FrequencyUnit.kilohertz(unit) != nil else { throw unitNode.error("signalUnit is \"kHz\" or \"MHz\", not \"\(unit)\"") }
                for reference in commandSignals + [status] {
                    if let dbcUnit = reference.signal.unit, !dbcUnit.isEmpty, dbcUnit != unit {
                        throw unitNode.error(
                            "signal \"\(reference.signal.name)\" of message \"\(reference.message.name)\" is in \"\(dbcUnit)\" according to \(dbcName), not \"\(unit)\""
                        )
                    }
                }
                signalUnit = unit
            }

            let binding = PropertyBinding(
                command: command, status: status.reference, statusValues: statusValues, signalUnit: signalUnit, validity: validity?.validity,
                companions: companions)
            resolved[key] = ResolvedBinding(
                key: key, path: bindingNode.path, commandSignals: commandSignals, status: status, qualifier: validity?.qualifier, binding: binding)
        }
        // A companion is a fixed value beside a command: never another command's signal,
        // and one value wherever it is named (two commands may share a frame).
        var companionValue: [String: (path: String, raw: Int128?)] = [:]
        for companion in companionPaths.sorted(by: { $0.path < $1.path }) {
            if let owner = owners[companion.id] {
                throw fail(
                    companion.path,
                    "signal \"\(companion.id)\" is the \(owner.setpoint ? "setpoint" : "request signal") of \(owner.path); a companion is a signal no command writes"
                )
            }
            let signalName = String(companion.id.split(separator: ".").last ?? "")
            let raw = companion.message.signal(named: signalName).flatMap { ValueCodec.raw(companion.value, signal: $0) }
            if let other = companionValue[companion.id], other.raw != raw {
                throw fail(
                    companion.path, "\(companion.value) differs from \(other.path): two commands in one frame would set \"\(signalName)\" to different values")
            }
            companionValue[companion.id] = (companion.path, raw)
        }
        // "unit": "display" reads the car's display unit.
        if resolved[.temperatureUnit] == nil {
            for binding in resolved.values.sorted(by: { $0.key < $1.key }) {
                var follows = binding.binding.statusValues.followsDisplayUnit ? binding.status.path : nil
                if case let .setpoint(setpoint)? = binding.binding.command, setpoint.values.followsDisplayUnit { follows = binding.path + ".command" }
                if let follows {
                    throw fail(
                        follows + ".unit",
                        "\"display\" follows the unit the car displays, so extension.temperatureUnit must be bound (the signal that says celsius or fahrenheit)"
                    )
                }
            }
        }
        for key in requiredKeys(for: profile) where resolved[key] == nil {
            throw fail(
                node.childPath(key.rawValue, quoted: true),
                "missing binding: the car has \(capability(of: key, in: profile).needs), so \(key.rawValue) must be bound")
        }
        return resolved
    }

    /// The requests a command sends (momentary, toggle and step presses).
    static func requests(of command: PropertyCommand) -> [SignalRequest] {
        switch command {
        case .setpoint: []
        case let .momentary(momentary): momentary.requests.keys.sorted().compactMap { momentary.requests[$0] }
        case let .toggle(toggle): [toggle.press]
        case let .step(step): [step.up, step.down]
        }
    }

    func resolveSignal(_ node: JSONNode, known: [String], database: DBCDatabase) throws(ProfileError) -> ResolvedSignal {
        let object = try node.object(known: known)
        let message = try resolveMessage(object.required("message"), database: database)
        return try resolveSignal(object.required("signal"), in: message, path: node.path)
    }

    /// A message of the DBC. A multiplexed one too: a status is read from any page (the
    /// selector is decoded with it), a command goes out on the pages its signals are on.
    func resolveMessage(_ messageNode: JSONNode, database: DBCDatabase) throws(ProfileError) -> DBCMessage {
        let messageName = try messageNode.string()
        guard let message = database.message(named: messageName) else { throw missingMessage(messageName, at: messageNode, database: database) }
        return message
    }

    /// No message `name` to bind: the DBC lacks it, or it is one the DBC reader set aside
    /// (then the profile is refused, naming that message and why).
    func missingMessage(_ name: String, at node: JSONNode, database: DBCDatabase) -> ProfileError {
        if let unreadable = database.unreadableMessage(named: name) {
            return node.error("message \"\(name)\" of \(dbcName) could not be read: " + unreadable.errors.map(\.description).joined(separator: "; "))
        }
        return node.error("no message \"\(name)\" in \(dbcName)")
    }

    func resolveSignal(_ signalNode: JSONNode, in message: DBCMessage, path: String) throws(ProfileError) -> ResolvedSignal {
        let signalName = try signalNode.string()
        guard let signal = message.signal(named: signalName) else {
            throw signalNode.error("no signal \"\(signalName)\" in message \"\(message.name)\" of \(dbcName)")
        }
        return ResolvedSignal(message: message, signal: signal, path: path)
    }

    /// `status.valid`: `{"signal": S, "values": [...]}`, a signal of the status message and
    /// the raw values (or choice names) that say the status value is valid.
    func parseValidity(_ node: JSONNode, status: ResolvedSignal) throws(ProfileError) -> (validity: StatusValidity, qualifier: ResolvedSignal) {
        let object = try node.object(known: ["signal", "values"])
        let signalNode = try object.required("signal")
        let qualifier = try resolveSignal(signalNode, in: status.message, path: node.path)
        let codec = status.message.codec
        guard qualifier.signal.name != status.signal.name else {
            throw signalNode.error(
                "\"\(status.signal.name)\" is the status signal itself; its validity is another signal of message \"\(status.message.name)\"")
        }
        if let index = codec.index(ofSignal: qualifier.signal.name), let statusIndex = codec.index(ofSignal: status.signal.name),
            codec.overlappingSignals(ofSignalAt: index).contains(statusIndex)
        {
            throw signalNode.error(
                "signal \"\(qualifier.signal.name)\" shares bits with the status signal \"\(status.signal.name)\": a frame carries only one of them (a group signal is no qualifier; its validity bit is)"
            )
        }
        // A page of a multiplexed message that carries the value carries its qualifier.
        if let selector = qualifier.signal.multiplexerSignal,
            selector != status.signal.multiplexerSignal || !Set(status.signal.multiplexerIDs ?? []).isSubset(of: qualifier.signal.multiplexerIDs ?? [])
        {
            throw signalNode.error(
                "signal \"\(qualifier.signal.name)\" is not on every page of \"\(selector)\" that carries the status signal \"\(status.signal.name)\": a frame would carry the value without its qualifier"
            )
        }
        let valuesNode = try object.required("values")
        var valid: [RawValueName] = []
        var seen = Set<Int128>()
        for item in try valuesNode.array() {
            let (name, raw) = try rawValue(item, signal: qualifier.signal, message: qualifier.message)
            guard seen.insert(raw).inserted else { throw item.error("raw value \(raw) is listed twice") }
            valid.append(name)
        }
        guard !valid.isEmpty else { throw valuesNode.error("name the raw values that say the status is valid") }
        return (StatusValidity(signal: qualifier.reference, valid: valid), qualifier)
    }

    /// A value mapping on a status signal or a setpoint command's signal. A number's table
    /// names sentinels and a DBC value table's entries: `"min"`/`"max"` (the raw values
    /// that mean LO/HI: the property's `range`) or a number (`"0": ["Empty"]`).
    func parseMapping(
        _ object: JSONObject, key: PropertyKey, kind: PropertyKind, signal: ResolvedSignal, isStatus: Bool, range: ClosedRange<Double>?
    ) throws(ProfileError) -> ValueMapping {
        var mapping = ValueMapping()
        if let valuesNode = object.optional("values") {
            var owner: [Int128: String] = [:]
            var spelled: [String: String] = [:]
            for (written, entry) in try valuesNode.map() {
                var text = kind.canonicalName(written)
                switch kind {
                case .bool:
                    guard text == "true" || text == "false" else { throw entry.error("\"\(text)\" is not a value of \(key.rawValue); expected false, true") }
                case let .enumeration(cases):
                    guard cases.names.contains(text) else {
                        throw entry.error("\"\(written)\" is not a value of \(key.rawValue); expected \(cases.names.joined(separator: ", "))")
                    }
                    if let other = spelled.updateValue(written, forKey: text) { throw entry.error("\"\(written)\" and \"\(other)\" both name \(text)") }
                case .integer:
                    guard Int(text) != nil else {
                        throw entry.error("\"\(text)\" is not a level of \(key.rawValue): values of an integer property are \"0\", \"1\", ...")
                    }
                case .number:
                    if text == "min" || text == "max" {
                        guard let range else {
                            throw entry.error("\(key.rawValue) has no range for \"\(text)\" to stand for; name the number (\"0\": [...])")
                        }
                        text = (text == "min" ? range.lowerBound : range.upperBound).plainText()
                    } else {
                        guard let number = Double(text), number.isFinite else {
                            throw entry.error("\"\(text)\" is not a value of \(key.rawValue): a number, \"min\" or \"max\" (the raw values that mean LO/HI)")
                        }
                        text = number.plainText()
                    }
                    if let other = spelled.updateValue(written, forKey: text) { throw entry.error("\"\(written)\" and \"\(other)\" both name \(text)") }
                }
                let items: [JSONNode] = if case .array = entry.value { try entry.array() } else { [entry] }
                guard !items.isEmpty else { throw entry.error("an empty list maps nothing") }
                var names: [RawValueName] = []
                for item in items {
                    let (name, raw) = try rawValue(item, signal: signal.signal, message: signal.message)
                    if let other = owner[raw] { throw item.error("raw value \(raw) is already the value \"\(other)\"") }
                    owner[raw] = text
                    names.append(name)
                }
                mapping.values[text] = names
            }
            // SiriKit only asks to activate a car signal: "true" alone is enough there.
            let trueOnly = CarSignal.allCases.contains { key == .signal($0) } && mapping.values.keys.elementsEqual(["true"])
            if kind == .bool, !isStatus, mapping.values.count != 2, !trueOnly {
                throw valuesNode.error(
                    "a boolean command maps both \"false\" and \"true\" (a request that only ever means one of them is a button: \"kind\": \"momentary\", \"requests\": {\"true\": {\"signal\": …, \"value\": …}})"
                )
            }
        }
        if let otherwiseNode = object.optional("otherwise") {
            guard isStatus else { throw otherwiseNode.error("otherwise is for status signals: a command sends one value per property value") }
            let text: String
            switch otherwiseNode.value {
            case let .bool(flag): text = String(flag)
            case let .string(name): text = name
            case .integer, .number: text = String(try otherwiseNode.integer())
            default: throw otherwiseNode.error("expected a value of \(key.rawValue), found \(otherwiseNode.value.typeName)")
            }
            guard ValueCodec.value(text, kind: kind) != nil else { throw otherwiseNode.error("\"\(text)\" is not a value of \(key.rawValue)") }
            mapping.otherwise = kind.canonicalName(text)
        }
        if let invalidNode = object.optional("invalid") {
            for item in try invalidNode.array() { mapping.invalid.append(try rawValue(item, signal: signal.signal, message: signal.message).name) }
        }
        if let unitNode = object.optional("unit") {
            let unit = try unitNode.string()
            let temperature = key.rawValue.hasPrefix("climate.temperature.") || key == .cabinTemperature || key == .outsideTemperature
            let allowed = temperature ? ["celsius", "fahrenheit"] : key == .distanceRemaining ? ["km", "mi"] : []
            guard !allowed.isEmpty else {
                throw unitNode.error(
                    "unit is for temperatures (celsius, fahrenheit) and distances (km, mi)\(key == .radioFrequency ? "; a frequency signal's unit is the binding's signalUnit" : ""); use linear for \(key.rawValue)"
                )
            }
            if temperature, unit == "display" {
                // The unit follows the car's display setting, read at run time.
                mapping.followsDisplayUnit = true
            } else {
                guard allowed.contains(unit), let transform = LinearTransform.converting(from: unit) else {
                    throw unitNode.error(
                        "\(key.rawValue) takes unit \(allowed.joined(separator: " or "))\(temperature ? " or display (the car's extension.temperatureUnit)" : ""), not \"\(unit)\""
                    )
                }
                mapping.linear = transform
            }
        }
        if let linearNode = object.optional("linear") {
            if object.has("unit") { throw linearNode.error("give unit or linear, not both") }
            switch kind {
            case .integer, .number: break
            default: throw linearNode.error("linear converts numbers; \(key.rawValue) is not a number")
            }
            let linear = try linearNode.object(known: ["factor", "offset"])
            let factorNode = try linear.required("factor")
            let factor = try factorNode.number()
            guard factor != 0, factor.isFinite else { throw factorNode.error("the factor must be a non-zero number") }
            mapping.linear = LinearTransform(factor: factor, offset: try linear.optional("offset")?.number() ?? 0)
        }
        return mapping
    }
}
