extension DBCDatabase {
    /// Parses DBC source bytes (cp1252, as cantools reads them). `source` names the
    /// file in errors and warnings.
    /// A message or statement that cannot be read is set aside (`unreadableMessages`,
    /// `unreadableStatements`) and the rest loads; what throws is a problem of the whole
    /// file (an attribute definition every message depends on).
    public init(parsing bytes: [UInt8], source: String = "<dbc>") throws(DBCParseError) {
        var parser = DBCParser(bytes: bytes, source: source)
        let declarations = parser.parse()
        var assembler = DBCAssembler(source: source, declarations: declarations)
        self = try assembler.assemble()
    }

    /// Parses DBC text.
    public init(parsing text: String, source: String = "<dbc>") throws(DBCParseError) {
        try self.init(parsing: Array(text.utf8), source: source)
    }
}

/// Turns raw declarations into messages the way cantools' DBC loader does: long names,
/// attributes with their definitions' types, choices, value types, multiplexing.
struct DBCAssembler {
    let source: String
    var declarations: DBCDeclarations
    var warnings: [DBCDiagnostic]
    private var definitions: [String: DBCAttributeDefinition] = [:]
    private var databaseAttributes: [String: DBCAttributeValue] = [:]
    private var messageAttributes: [UInt64: [String: DBCAttributeValue]] = [:]
    private var signalAttributes: [UInt64: [String: [String: DBCAttributeValue]]] = [:]
    private var nodeAttributes: [String: [String: DBCAttributeValue]] = [:]

    init(source: String, declarations: DBCDeclarations) {
        self.source = source
        self.declarations = declarations
        self.warnings = declarations.warnings
    }

    private mutating func warn(_ line: Int, _ column: Int, _ message: String, isOverlap: Bool = false) {
        warnings.append(DBCDiagnostic(file: source, line: line, column: column, message: message, isOverlap: isOverlap))
    }

    private func failure(_ line: Int, _ column: Int, _ message: String) -> DBCParseError {
        DBCParseError(file: source, line: line, column: column, expected: message, found: "")
    }

    mutating func assemble() throws(DBCParseError) -> DBCDatabase {
        try loadAttributeDefinitions()
        try loadAttributes()

        // VAL_ and SIG_VALTYPE_ by (frame ID, short signal name); entries left unclaimed are reported.
        var choices: [UInt64: [String: RawChoices]] = [:]
        for entry in declarations.choices where !entry.choices.isEmpty {
            choices[entry.frameIDDBC, default: [:]][entry.signal] = entry
        }
        var signalTypes: [UInt64: [String: RawSignalType]] = [:]
        for entry in declarations.signalTypes {
            signalTypes[entry.frameIDDBC, default: [:]][entry.signal] = entry
        }
        // SG_MUL_VAL_: frame -> multiplexer -> signal -> ids.
        var multiplexerValues: [UInt64: [String: [String: [Int]]]] = [:]
        for entry in declarations.multiplexerValues {
            var ids: [Int] = []
            for range in entry.ranges { ids.append(contentsOf: range) }
            multiplexerValues[entry.frameIDDBC, default: [:]][entry.multiplexer, default: [:]][entry.signal] = ids
        }

        let frameFormat = try frameFormatDefinition()
        var unreadable = declarations.unreadableMessages
        var messages: [DBCMessage] = []
        // Every message's name by its frame ID, readable or not: what the unmatched
        // statements below name.
        var messageNames: [UInt64: String] = [:]
        for raw in declarations.messages {
            messageNames[raw.frameIDDBC] = raw.name
            // Signals not assigned to any message; cantools discards them too.
            if raw.name == "VECTOR__INDEPENDENT_SIG_MSG" { continue }
            do throws(DBCParseError) {
                let message = try assembleMessage(
                    raw, choices: &choices, signalTypes: &signalTypes,
                    multiplexerValues: multiplexerValues[raw.frameIDDBC] ?? [:], frameFormat: frameFormat)
                messages.append(message)
            } catch {
                unreadable.append(DBCUnreadableMessage(frameIDDBC: raw.frameIDDBC, name: raw.name, line: raw.line, errors: [error]))
            }
        }
        // What is left names a signal its message does not have, or a frame no message has.
        func unmatched(_ statement: String, _ signal: String, _ frameID: UInt64) -> String {
            guard let message = messageNames[frameID] else { return "\(statement) for '\(signal)' names frame \(frameID), which no message has; ignored" }
            return "\(statement) for '\(signal)' in frame \(frameID): message \(message) has no signal '\(signal)'; ignored"
        }
        for (_, entries) in choices {
            for (_, entry) in entries { warn(entry.line, entry.column, unmatched("VAL_", entry.signal, entry.frameIDDBC)) }
        }
        for (_, entries) in signalTypes {
            for (_, entry) in entries { warn(entry.line, entry.column, unmatched("SIG_VALTYPE_", entry.signal, entry.frameIDDBC)) }
        }

        var nodes: [DBCNode] = []
        for name in declarations.nodes {
            let attributes = nodeAttributes[name] ?? [:]
            let longName = attributes["SystemNodeLongSymbol"]?.description ?? name
            nodes.append(DBCNode(name: longName, comment: declarations.nodeComments[name], attributes: attributes))
        }

        var valueTables: [String: [DBCChoice]] = [:]
        for (name, table) in declarations.valueTables { valueTables[name] = table }

        var database = DBCDatabase(
            source: source, version: declarations.version, nodes: nodes, messages: messages,
            valueTables: valueTables, attributeDefinitions: definitions, attributes: databaseAttributes,
            comment: declarations.busComment, warnings: warnings)
        database.unreadableMessages = unreadable.sorted { $0.line < $1.line }
        database.unreadableStatements = declarations.unreadableStatements
        return database
    }

    // MARK: - Attributes

    private mutating func loadAttributeDefinitions() throws(DBCParseError) {
        for raw in declarations.attributeDefinitions {
            var definition = DBCAttributeDefinition(
                name: raw.name, kind: raw.kind, type: raw.type, enumValues: raw.enumValues,
                minimum: nil, maximum: nil, defaultValue: nil)
            if raw.limits.count >= 2 {
                definition.minimum = Double(raw.limits[0])
                definition.maximum = Double(raw.limits[1])
            }
            if let defaultValue = declarations.attributeDefaults[raw.name] {
                // Defaults of INT/HEX/FLOAT become numbers; ENUM and STRING defaults stay text.
                switch raw.type {
                case .int, .hex, .float:
                    definition.defaultValue = try convert(defaultValue, as: raw.type, attribute: raw.name)
                case .enumeration, .string:
                    definition.defaultValue = .string(defaultValue.text)
                }
            }
            definitions[raw.name] = definition
        }
    }

    private func convert(_ value: RawAttributeValue, as type: DBCAttributeDefinition.ValueType, attribute: String) throws(DBCParseError) -> DBCAttributeValue {
        switch type {
        case .int, .hex, .enumeration:
            // cantools: int(Decimal(text)) -- truncates "1.5" and reads "1e3".
            if let integer = Int128(value.text) { return .integer(integer) }
            if let real = Double(value.text), real.isFinite, abs(real) < 1e38 { return .integer(Int128(real)) }
            throw failure(value.line, value.column, "a whole number for attribute \"\(attribute)\", found \(value.isString ? "\"\(value.text)\"" : value.text)")
        case .float:
            if let real = Double(value.text) { return .real(real) }
            throw failure(value.line, value.column, "a number for FLOAT attribute \"\(attribute)\", found \"\(value.text)\"")
        case .string:
            return .string(value.text)
        }
    }

    private mutating func loadAttributes() throws(DBCParseError) {
        for raw in declarations.attributes {
            guard let definition = definitions[raw.name] else {
                warn(raw.line, raw.column, "attribute \"\(raw.name)\" has no BA_DEF_ definition; ignored")
                continue
            }
            let value = try convert(raw.value, as: definition.type, attribute: raw.name)
            switch raw.target {
            case .database: databaseAttributes[raw.name] = value
            case let .message(frameID): messageAttributes[frameID, default: [:]][raw.name] = value
            case let .signal(frameID, signal): signalAttributes[frameID, default: [:]][signal, default: [:]][raw.name] = value
            case let .node(node): nodeAttributes[node, default: [:]][raw.name] = value
            case .environmentVariable: break
            }
        }
    }

    /// cantools' VFrameFormat: an ENUM as defined, or an INT mapped onto the standard names.
    private func frameFormatDefinition() throws(DBCParseError) -> (choices: [String], defaultFormat: String?)? {
        guard let definition = definitions["VFrameFormat"] else { return nil }
        if definition.type == .int || definition.type == .hex {
            let standard = [
                "StandardCAN", "ExtendedCAN", "reserved", "J1939PG", "reserved", "reserved", "reserved", "reserved",
                "reserved", "reserved", "reserved", "reserved", "reserved", "reserved", "StandardCAN_FD", "ExtendedCAN_FD",
            ]
            guard let index = definition.defaultValue?.intValue, index >= 0, index < standard.count else {
                let line = declarations.attributeDefinitions.first { $0.name == "VFrameFormat" }
                throw failure(line?.line ?? 1, line?.column ?? 1, "a default value (BA_DEF_DEF_) for the INT attribute VFrameFormat")
            }
            return (standard, standard[Int(index)])
        }
        return (definition.enumValues, definition.defaultValue.map { $0.description })
    }

    // MARK: - Messages

    private mutating func assembleMessage(
        _ raw: RawMessage, choices: inout [UInt64: [String: RawChoices]], signalTypes: inout [UInt64: [String: RawSignalType]],
        multiplexerValues: [String: [String: [Int]]], frameFormat: (choices: [String], defaultFormat: String?)?
    ) throws(DBCParseError) -> DBCMessage {
        // As written: what other statements name the message by.
        let frameIDDBC = raw.frameIDDBC
        var written = frameIDDBC
        // An ID above 0x7FF written without bit 31 can only be extended: opendbc reads it
        // so (and writes its files that way); cantools refuses it.
        if written & 0x8000_0000 == 0, written > UInt64(CANID.maxStandard), written <= UInt64(CANID.maxExtended) {
            warn(
                raw.idLine, raw.idColumn,
                "frame ID 0x\(String(written, radix: 16)) of message \(raw.name) is above 0x7FF without bit 31; read as extended")
            written |= 0x8000_0000
        }
        let isExtended = written & 0x8000_0000 != 0
        let frameID = UInt32(truncatingIfNeeded: written & 0x7FFF_FFFF)
        let attributes = messageAttributes[frameIDDBC] ?? [:]
        let name = attributes["SystemMessageLongSymbol"]?.description ?? raw.name
        if isExtended {
            guard written <= 0xFFFF_FFFF, frameID <= CANID.maxExtended else {
                throw failure(raw.idLine, raw.idColumn, "an extended frame ID of at most 29 bits in message \(name), found 0x\(String(frameID, radix: 16))")
            }
        } else {
            guard frameID <= CANID.maxStandard else {
                throw failure(
                    raw.idLine, raw.idColumn,
                    "a standard frame ID of at most 11 bits in message \(name), found 0x\(String(frameID, radix: 16)) (extended IDs are written with bit 31 set)"
                )
            }
        }

        var format: String?
        if let frameFormat {
            if let index = attributes["VFrameFormat"]?.intValue {
                guard index >= 0, index < frameFormat.choices.count else {
                    throw failure(raw.line, raw.column, "a VFrameFormat value between 0 and \(frameFormat.choices.count - 1) for message \(name)")
                }
                format = frameFormat.choices[Int(index)]
            } else {
                format = frameFormat.defaultFormat
            }
        }
        let isFD = format?.hasSuffix("CAN_FD") ?? false

        var senders = [longNodeName(raw.sender)]
        for sender in declarations.messageSenders[frameIDDBC] ?? [] {
            let long = longNodeName(sender)
            if !senders.contains(long) { senders.append(long) }
        }
        if senders == ["Vector__XXX"] { senders = [] }

        // cantools' multiplexing rules: one `M` signal makes simple multiplexing; several
        // (cascaded `mNM`) leave it to SG_MUL_VAL_.
        var singleMultiplexer: String?
        for signal in raw.signals where signal.marker?.hasSuffix("M") == true {
            if singleMultiplexer == nil {
                singleMultiplexer = signal.name
            } else {
                singleMultiplexer = nil
                break
            }
        }
        var multiplexerOfSignal: [String: String] = [:]
        for (multiplexer, items) in multiplexerValues {
            for signalName in items.keys { multiplexerOfSignal[signalName] = multiplexer }
        }

        var signals: [DBCSignal] = []
        for rawSignal in raw.signals {
            let attributesOfSignal = signalAttributes[frameIDDBC]?[rawSignal.name] ?? [:]
            let isMultiplexer = rawSignal.marker?.hasSuffix("M") ?? false

            var ids: [Int] = []
            var multiplexerName: String?
            if let singleMultiplexer {
                if let marker = rawSignal.marker, !marker.hasSuffix("M") {
                    guard marker.hasPrefix("m"), let id = Int(marker.dropFirst()) else {
                        throw failure(
                            rawSignal.markerLine, rawSignal.markerColumn, "a multiplexer indicator M, mN or mNM for signal \(rawSignal.name), found '\(marker)'"
                        )
                    }
                    ids.append(id)
                }
                multiplexerName = singleMultiplexer
            } else {
                multiplexerName = multiplexerOfSignal[rawSignal.name]
            }
            var multiplexerIDs: [Int]?
            if let multiplexerName {
                if let extra = multiplexerValues[multiplexerName]?[rawSignal.name] { ids.append(contentsOf: extra) }
                if !ids.isEmpty { multiplexerIDs = Array(Set(ids)).sorted() }
            }
            var multiplexerSignal: String?
            if rawSignal.marker != nil {
                if let singleMultiplexer {
                    multiplexerSignal = rawSignal.name != singleMultiplexer ? singleMultiplexer : nil
                } else {
                    multiplexerSignal = multiplexerOfSignal[rawSignal.name]
                }
            }

            var valueType = DBCValueType.integer(signed: rawSignal.isSigned)
            if let typeEntry = signalTypes[frameIDDBC]?.removeValue(forKey: rawSignal.name) {
                switch typeEntry.type {
                case 1:
                    guard rawSignal.length == 32 else {
                        throw failure(typeEntry.line, typeEntry.column, "a length of 32 bits for float32 signal \(rawSignal.name), found \(rawSignal.length)")
                    }
                    valueType = .float32
                case 2:
                    guard rawSignal.length == 64 else {
                        throw failure(typeEntry.line, typeEntry.column, "a length of 64 bits for float64 signal \(rawSignal.name), found \(rawSignal.length)")
                    }
                    valueType = .float64
                default: break
                }
            }
            if !valueType.isFloat, rawSignal.length > 64 {
                throw failure(rawSignal.line, rawSignal.column, "a signal of at most 64 bits: \(rawSignal.name) has \(rawSignal.length)")
            }

            var minimum: DBCNumber?
            var maximum: DBCNumber?
            if !(rawSignal.minimumText == "0" && rawSignal.maximumText == "0") {
                minimum = DBCNumber(pythonText: rawSignal.minimumText)
                maximum = DBCNumber(pythonText: rawSignal.maximumText)
            }
            var initial: DBCNumber?
            if let start = attributesOfSignal["GenSigStartValue"] {
                switch start {
                case let .integer(value): initial = .integer(value)
                case let .real(value): initial = .real(value)
                case .string:
                    throw failure(rawSignal.line, rawSignal.column, "a number for GenSigStartValue of signal \(rawSignal.name)")
                }
            }
            let signalChoices = choices[frameIDDBC]?.removeValue(forKey: rawSignal.name)?.choices ?? []
            var receivers = rawSignal.receivers
            if receivers == ["Vector__XXX"] { receivers = [] }

            signals.append(
                DBCSignal(
                    name: attributesOfSignal["SystemSignalLongSymbol"]?.description ?? rawSignal.name,
                    startBit: rawSignal.start, length: rawSignal.length, byteOrder: rawSignal.byteOrder,
                    valueType: valueType, scale: rawSignal.scale, offset: rawSignal.offset,
                    minimum: minimum, maximum: maximum, unit: rawSignal.unit.isEmpty ? nil : rawSignal.unit,
                    receivers: receivers.map(longNodeName), choices: signalChoices,
                    comment: declarations.signalComments[frameIDDBC]?[rawSignal.name], initialRawValue: initial,
                    isMultiplexer: isMultiplexer, multiplexerIDs: multiplexerIDs, multiplexerSignal: multiplexerSignal,
                    attributes: attributesOfSignal, line: rawSignal.line))
        }
        // cantools' default order: by start bit (network order for Motorola), stable.
        let sorted = signals.enumerated().sorted { ($0.element.sortKey, $0.offset) < ($1.element.sortKey, $1.offset) }.map(\.element)

        var cycleTime: Int?
        if let definition = definitions["GenMsgCycleTime"] {
            let value = attributes["GenMsgCycleTime"]?.intValue ?? definition.defaultValue?.intValue
            if let value, value != 0 { cycleTime = Int(clamping: value) }
        }
        var sendType: String?
        if let definition = definitions["GenMsgSendType"] {
            if let value = attributes["GenMsgSendType"] {
                if !definition.enumValues.isEmpty, let index = value.intValue, index >= 0, index < definition.enumValues.count {
                    sendType = definition.enumValues[Int(index)]
                } else {
                    sendType = value.description
                }
            } else {
                sendType = definition.defaultValue?.description
            }
        }

        let groups = (declarations.signalGroups[frameIDDBC] ?? []).map { group in
            DBCSignalGroup(
                name: group.name, repetitions: group.repetitions,
                signalNames: group.signalNames.map { signalAttributes[frameIDDBC]?[$0]?["SystemSignalLongSymbol"]?.description ?? $0 })
        }
        let codec = MessageCodec(messageName: name, length: raw.length, signals: sorted)
        for problem in codec.problems {
            warn(raw.line, raw.column, problem, isOverlap: codec.problem == nil)
        }
        return DBCMessage(
            frameID: frameID, isExtended: isExtended, name: name, length: raw.length, isFD: isFD,
            senders: senders, cycleTime: cycleTime, sendType: sendType,
            comment: declarations.messageComments[frameIDDBC], signals: sorted, signalGroups: groups,
            attributes: attributes, line: raw.line, codec: codec)
    }

    private func longNodeName(_ name: String) -> String {
        nodeAttributes[name]?["SystemNodeLongSymbol"]?.description ?? name
    }
}
