import CANKit
import CarplayJSON

/// What a profile adds to the DBC's messages (`messages`), and the acknowledgement
/// message.
struct DeclaredMessages {
    var settings: [String: MessageSettings] = [:]
    var protection: [String: MessageProtection] = [:]
}

extension ProfileReader {
    static let messageKeys = ["cycleTimeMs", "send", "defaults", "choices", "protection"]

    /// `messages`: cycle times, send mode, defaults and protection per message; the
    /// choices it names are added to `database` (in memory) for the bindings to use.
    func parseMessages(_ node: JSONNode, database: inout DBCDatabase) throws(ProfileError) -> DeclaredMessages {
        var declared = DeclaredMessages()
        for (name, entryNode) in try node.map() {
            let entry = try entryNode.object(known: Self.messageKeys)
            guard database.message(named: name) != nil else { throw missingMessage(name, at: entryNode, database: database) }
            if let choicesNode = entry.optional("choices") {
                for (signalName, tableNode) in try choicesNode.map() {
                    guard let signal = database.message(named: name)?.signal(named: signalName) else {
                        throw tableNode.error("no signal \"\(signalName)\" in message \"\(name)\" of \(dbcName)")
                    }
                    guard signal.choices.isEmpty else {
                        throw tableNode.error(
                            "signal \"\(signalName)\" already has a value table in \(dbcName)\(choiceList(signal)); bindings can name those choices")
                    }
                    var choices: [DBCChoice] = []
                    for (rawText, choiceNode) in try tableNode.map() {
                        guard let raw = Int128(rawText) else { throw choiceNode.error("\"\(rawText)\" is not a raw integer value") }
                        let (low, high) = rawLimits(signal)
                        guard raw >= low, raw <= high else {
                            throw choiceNode.error("raw value \(rawText) does not fit the \(signal.length) bits of signal \"\(signalName)\" (\(low)...\(high))")
                        }
                        let choiceName = try choiceNode.nonEmptyString()
                        if choices.contains(where: { $0.name == choiceName }) { throw choiceNode.error("choice \"\(choiceName)\" named twice") }
                        choices.append(DBCChoice(value: raw, name: choiceName))
                    }
                    _ = database.addChoices(choices.sorted { $0.value < $1.value }, message: name, signal: signalName)
                }
            }
            let message = database.message(named: name)!
            var settings = MessageSettings()
            if let cycleNode = entry.optional("cycleTimeMs") {
                let cycle = try cycleNode.integer()
                guard cycle > 0 else { throw cycleNode.error("must be greater than 0 (milliseconds)") }
                settings.cycleTime = .milliseconds(cycle)
            } else {
                settings.cycleTime = message.cycleTime.map { .milliseconds($0) }
            }
            if let sendNode = entry.optional("send") {
                switch try sendNode.string() {
                case "event": settings.cyclic = false
                case "cyclic":
                    guard settings.cycleTime != nil else {
                        throw sendNode.error("a cyclic message needs its period: give cycleTimeMs (\(dbcName) has no GenMsgCycleTime for \"\(name)\")")
                    }
                    settings.cyclic = true
                case let other: throw sendNode.error("send is \"event\" or \"cyclic\", not \"\(other)\"")
                }
            }
            if let defaultsNode = entry.optional("defaults") {
                for (signalName, valueNode) in try defaultsNode.map() {
                    guard let signal = message.signal(named: signalName) else {
                        throw valueNode.error("no signal \"\(signalName)\" in message \"\(name)\" of \(dbcName)")
                    }
                    settings.defaults[signalName] = try rawValue(valueNode, signal: signal, message: message).raw
                }
            }
            if let protectionNode = entry.optional("protection") {
                declared.protection[name] = try parseProtection(protectionNode, message: message)
            }
            declared.settings[name] = settings
        }
        return declared
    }

    /// A raw value as a profile names it: a choice name of the signal or a raw integer
    /// that fits its bits.
    func rawValue(_ node: JSONNode, signal: DBCSignal, message: DBCMessage) throws(ProfileError) -> (name: RawValueName, raw: Int128) {
        switch node.value {
        case let .string(name):
            guard let raw = signal.choiceValue(named: name) else {
                throw node.error("no choice \"\(name)\" in signal \"\(signal.name)\" of message \"\(message.name)\"\(choiceList(signal))")
            }
            return (.choice(name), raw)
        case .integer, .number:
            let number = try node.integer()
            let raw = Int128(number)
            let (low, high) = rawLimits(signal)
            guard raw >= low, raw <= high else {
                throw node.error("raw value \(number) does not fit the \(signal.length) bits of signal \"\(signal.name)\" (\(low)...\(high))")
            }
            return (.raw(raw), raw)
        default:
            throw node.error("expected a choice name or a raw number, found \(node.value.typeName)")
        }
    }

    func rawLimits(_ signal: DBCSignal) -> (Int128, Int128) {
        let length = Int128(signal.length)
        return signal.isSigned ? (-(Int128(1) << (length - 1)), (Int128(1) << (length - 1)) - 1) : (0, (Int128(1) << length) - 1)
    }

    func choiceList(_ signal: DBCSignal) -> String {
        signal.choices.isEmpty ? " (it has no choices)" : " (choices: \(signal.choices.map(\.name).joined(separator: ", ")))"
    }

    // MARK: - Acknowledgement

    func resolveAcknowledgement(
        _ node: JSONNode?, database: DBCDatabase, bindings: [PropertyKey: ResolvedBinding]
    ) throws(ProfileError) -> AcknowledgementBinding? {
        guard let node else { return nil }
        let object = try node.object(known: ["message", "commandId", "counter", "result", "accepted"])
        let messageNode = try object.required("message")
        let name = try messageNode.string()
        guard let message = database.message(named: name) else { throw missingMessage(name, at: messageNode, database: database) }
        func signal(_ key: String) throws(ProfileError) -> DBCSignal {
            let signalNode = try object.required(key)
            let signalName = try signalNode.string()
            guard let signal = message.signal(named: signalName) else {
                throw signalNode.error("no signal \"\(signalName)\" in message \"\(name)\" of \(dbcName)")
            }
            return signal
        }
        let commandID = try signal("commandId")
        let commands = bindings.values.compactMap(\.commandMessage)
        let needed = commands.contains { $0.isExtended } ? 29 : 11
        let largest = commands.map(\.frameID).max() ?? 0
        let fits =
            commandID.valueType == .integer(signed: false) && commandID.length >= needed
            && commandID.scale.doubleValue == 1 && commandID.offset.doubleValue == 0
            && (commandID.maximum.map { $0.doubleValue >= Double(largest) } ?? true)
        guard fits else {
            throw fail(
                object.path("commandId"),
                "signal \"\(commandID.name)\" cannot hold the command frame IDs (up to 0x\(String(largest, radix: 16, uppercase: true))): it needs \(needed) unsigned bits, scale 1, offset 0, and a maximum of at least \(largest)"
            )
        }
        let counter = try signal("counter")
        guard counter.length == 4 else {
            throw fail(object.path("counter"), "the acknowledged alive counter \"\(counter.name)\" must be 4 bits, not \(counter.length)")
        }
        let result = try signal("result")
        let acceptedNode = try object.required("accepted")
        let accepted = try acceptedNode.string()
        guard result.choiceValue(named: accepted) != nil else {
            throw acceptedNode.error("no choice \"\(accepted)\" in signal \"\(result.name)\" of message \"\(name)\"\(choiceList(result))")
        }
        return AcknowledgementBinding(
            message: name, commandIDSignal: commandID.name, counterSignal: counter.name, resultSignal: result.name, acceptedChoice: accepted)
    }
}
