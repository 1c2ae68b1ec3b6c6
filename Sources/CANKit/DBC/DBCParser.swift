/// Reads the statements of a DBC file into raw declarations. Statements the codec
/// does not need are skipped with a warning. A malformed statement is skipped too, with
/// file, line, column and what was expected: a message it belongs to is set aside as
/// unreadable (refused only by whoever needs that message), and the rest of the file is
/// read, so every problem of the file is reported in one run.
struct DBCParser {
    private let source: String
    private let bytes: [UInt8]
    private let tokens: [DBCToken]
    private var position = 0
    private(set) var declarations = DBCDeclarations()

    init(bytes: [UInt8], source: String) {
        let lexer = DBCLexer(bytes: bytes)
        self.source = source
        self.bytes = lexer.bytes
        self.tokens = lexer.tokenize()
    }

    /// Every keyword of the DBC language: a word that ends lists of names.
    static let keywords: Set<String> = [
        "BA_", "BA_DEF_", "BA_DEF_DEF_", "BA_DEF_DEF_REL_", "BA_DEF_REL_", "BA_DEF_SGTYPE_", "BA_REL_", "BA_SGTYPE_",
        "BO_", "BO_TX_BU_", "BS_", "BU_", "BU_BO_REL_", "BU_EV_REL_", "BU_SG_REL_", "CAT_", "CAT_DEF_", "CM_",
        "ENVVAR_DATA_", "EV_", "EV_DATA_", "FILTER", "NS_", "NS_DESC_", "SG_", "SG_MUL_VAL_", "SGTYPE_", "SGTYPE_VAL_",
        "SIG_GROUP_", "SIG_TYPE_REF_", "SIG_VALTYPE_", "SIGTYPE_VALTYPE_", "VAL_", "VAL_TABLE_", "VERSION",
    ]

    /// Statements that are valid DBC but carry nothing the codec uses.
    static let ignoredStatements: Set<String> = [
        "EV_", "ENVVAR_DATA_", "EV_DATA_", "BA_DEF_REL_", "BA_DEF_DEF_REL_", "BA_REL_", "BA_DEF_SGTYPE_", "BA_SGTYPE_",
        "SGTYPE_", "SGTYPE_VAL_", "SIG_TYPE_REF_", "SIGTYPE_VALTYPE_", "CAT_DEF_", "CAT_", "FILTER", "NS_DESC_",
        "BU_SG_REL_", "BU_EV_REL_", "BU_BO_REL_",
    ]

    mutating func parse() -> DBCDeclarations {
        while true {
            let token = tokens[position]
            if token.kind == .end { break }
            guard token.kind == .word else {
                skipUnknownStatement(reason: "unexpected \(describe(token)) at top level; skipped to the next statement")
                continue
            }
            do throws(DBCParseError) {
                try parseStatement(keyword: text(token))
            } catch {
                declarations.unreadableStatements.append(error)
                skipToNextStatement(after: token)
            }
        }
        return declarations
    }

    private mutating func parseStatement(keyword: String) throws(DBCParseError) {
        switch keyword {
        case "VERSION": try parseVersion()
        case "NS_": parseNewSymbols()
        case "BS_": try parseBitTiming()
        case "BU_": try parseNodes()
        case "BO_": parseMessage()
        case "SG_":
            // A signal outside a message: cantools' grammar has no place for it.
            throw error(at: tokens[position], expected: "a signal (SG_) only inside a message (after BO_)", found: "")
        case "CM_": try parseComment()
        case "BA_DEF_": try parseAttributeDefinition()
        case "BA_DEF_DEF_": try parseAttributeDefault()
        case "BA_": try parseAttribute()
        case "VAL_": try parseChoices()
        case "VAL_TABLE_": try parseValueTable()
        case "SIG_VALTYPE_": try parseSignalValueType()
        case "SG_MUL_VAL_": try parseMultiplexerValues()
        case "BO_TX_BU_": try parseMessageSenders()
        case "SIG_GROUP_": try parseSignalGroup()
        default:
            if Self.ignoredStatements.contains(keyword) {
                skipUnknownStatement(reason: "\(keyword) statement is not used by carplayd; skipped", untilSemicolon: true)
            } else {
                skipUnknownStatement(reason: "unknown statement '\(keyword)'; skipped to the next statement")
            }
        }
    }

    /// After a statement that could not be read: on to the next keyword that starts a
    /// line (DBC writers put each statement on its own line), past `after`.
    private mutating func skipToNextStatement(after first: DBCToken) {
        if position < tokens.count - 1, tokens[position].start == first.start { advance() }
        while tokens[position].kind != .end {
            let token = tokens[position]
            if token.kind == .word, Self.keywords.contains(text(token)), startsLine(position) { return }
            advance()
        }
    }

    private func startsLine(_ index: Int) -> Bool { index == 0 || tokens[index - 1].line < tokens[index].line }

    // MARK: - Statements

    private mutating func parseVersion() throws(DBCParseError) {
        advance()
        declarations.version = try expectString("the version string in quotes")
    }

    /// `NS_ :` then a list of symbol names, up to the next `WORD :` (normally `BS_:`).
    private mutating func parseNewSymbols() {
        advance()
        if isPunctuation(tokens[position], ":") { advance() }
        while tokens[position].kind != .end {
            if position + 1 < tokens.count, isPunctuation(tokens[position + 1], ":") { break }
            advance()
        }
    }

    /// `BS_ : [baudrate : BTR1 , BTR2]` -- obsolete, accepted and ignored.
    private mutating func parseBitTiming() throws(DBCParseError) {
        advance()
        try expectPunctuation(":", "':' after BS_")
        if tokens[position].kind == .number {
            advance()
            if isPunctuation(tokens[position], ":") {
                advance()
                _ = try expectNumberText("BTR1")
                try expectPunctuation(",", "',' between BTR1 and BTR2")
                _ = try expectNumberText("BTR2")
            }
        }
    }

    private mutating func parseNodes() throws(DBCParseError) {
        advance()
        try expectPunctuation(":", "':' after BU_")
        while isPlainWord(tokens[position]) {
            declarations.nodes.append(text(tokens[position]))
            advance()
        }
    }

    /// `BO_ id name: length sender` and its signals. A header that cannot be read sets the
    /// message (and its signals) aside; so does a signal that cannot be read, after the
    /// rest of its signals were checked.
    private mutating func parseMessage() {
        let keyword = tokens[position]
        var frameID: UInt64?
        var name: String?
        do throws(DBCParseError) {
            var message = try parseMessageHeader(keyword: keyword, frameID: &frameID, name: &name)
            var damage: [DBCParseError] = []
            while tokens[position].kind == .word, text(tokens[position]) == "SG_" {
                let signalToken = tokens[position]
                do throws(DBCParseError) {
                    message.signals.append(try parseSignal())
                } catch {
                    damage.append(error)
                    skipToNextStatement(after: signalToken)
                }
            }
            if damage.isEmpty {
                declarations.messages.append(message)
            } else {
                declarations.unreadableMessages.append(
                    DBCUnreadableMessage(frameIDDBC: message.frameIDDBC, name: message.name, line: keyword.line, errors: damage))
            }
        } catch {
            declarations.unreadableMessages.append(DBCUnreadableMessage(frameIDDBC: frameID, name: name, line: keyword.line, errors: [error]))
            skipToNextStatement(after: keyword)
            // Its signals go with it.
            while tokens[position].kind == .word, text(tokens[position]) == "SG_" { skipToNextStatement(after: tokens[position]) }
        }
    }

    private mutating func parseMessageHeader(keyword: DBCToken, frameID: inout UInt64?, name: inout String?) throws(DBCParseError) -> RawMessage {
        advance()
        let idToken = tokens[position]
        let parsedID = try expectUnsigned("the message's frame ID (a decimal number)")
        frameID = parsedID
        let parsedName = try expectName("the message name")
        name = parsedName
        try expectPunctuation(":", "':' after the message name")
        let lengthToken = tokens[position]
        let lengthText = try expectNumberText("the message length in bytes")
        guard let length = Int(lengthText), length >= 0 else {
            throw error(at: lengthToken, expected: "the message length as a whole number of bytes", found: "'\(lengthText)'")
        }
        // CAN FD carries at most 64 bytes; a larger length made the encoder allocate it
        // (found by fuzzing: a length of 6789012345678901 bytes).
        guard length <= 64 else {
            throw error(at: lengthToken, expected: "a message length of at most 64 bytes (CAN FD)", found: "\(length)")
        }
        let sender = try expectName("the sending node (or Vector__XXX)")
        return RawMessage(
            frameIDDBC: parsedID, name: parsedName, length: length, sender: sender,
            line: keyword.line, column: keyword.column, idLine: idToken.line, idColumn: idToken.column)
    }

    private mutating func parseSignal() throws(DBCParseError) -> RawSignal {
        let keyword = tokens[position]
        advance()
        let name = try expectName("the signal name")
        var marker: String?
        var markerToken: DBCToken?
        if tokens[position].kind == .word {
            markerToken = tokens[position]
            marker = text(tokens[position])
            advance()
        }
        try expectPunctuation(":", "':' after the signal name\(marker == nil ? "" : " and multiplexer indicator")")
        let startToken = tokens[position]
        let start = try expectInt("the start bit")
        try expectPunctuation("|", "'|' between start bit and length")
        let lengthToken = tokens[position]
        let length = try expectInt("the signal length in bits")
        try expectPunctuation("@", "'@' and the byte order (0 = Motorola, 1 = Intel)")
        let orderToken = tokens[position]
        let orderText = try expectNumberText("the byte order (0 = Motorola, 1 = Intel)")
        let byteOrder: DBCByteOrder
        switch orderText {
        case "0": byteOrder = .bigEndian
        case "1": byteOrder = .littleEndian
        default: throw error(at: orderToken, expected: "the byte order 0 (Motorola) or 1 (Intel)", found: "'\(orderText)'")
        }
        let signToken = tokens[position]
        let signed: Bool
        if isPunctuation(signToken, "+") {
            signed = false
        } else if isPunctuation(signToken, "-") {
            signed = true
        } else {
            throw error(at: signToken, expected: "'+' (unsigned) or '-' (signed) after the byte order", found: describe(signToken))
        }
        advance()
        try expectPunctuation("(", "'(' before factor and offset")
        let scale = try expectDBCNumber("the factor")
        try expectPunctuation(",", "',' between factor and offset")
        let offset = try expectDBCNumber("the offset")
        try expectPunctuation(")", "')' after the offset")
        try expectPunctuation("[", "'[' before minimum and maximum")
        let minimumText = try expectNumberText("the minimum")
        try expectPunctuation("|", "'|' between minimum and maximum")
        let maximumText = try expectNumberText("the maximum")
        try expectPunctuation("]", "']' after the maximum")
        let unit = try expectString("the unit in quotes")
        var receivers: [String] = []
        // Receivers: comma-separated names; some writers separate them with spaces.
        while isPlainWord(tokens[position]) {
            receivers.append(text(tokens[position]))
            advance()
            if isPunctuation(tokens[position], ",") { advance() }
        }
        if length <= 0 {
            throw error(at: lengthToken, expected: "a signal length greater than 0 for signal '\(name)'", found: "\(length)")
        }
        if start < 0 {
            throw error(at: startToken, expected: "a start bit of 0 or more for signal '\(name)'", found: "\(start)")
        }
        // Far beyond any 64-byte message, and small enough that bit arithmetic cannot overflow.
        if start > 0xFFFF || length > 0xFFFF {
            let (token, what, value) = start > 0xFFFF ? (startToken, "start bit", start) : (lengthToken, "length", length)
            throw error(at: token, expected: "a \(what) of at most 65535 for signal '\(name)'", found: "\(value)")
        }
        return RawSignal(
            name: name, marker: marker, markerLine: markerToken?.line ?? keyword.line, markerColumn: markerToken?.column ?? keyword.column,
            start: start, length: length, byteOrder: byteOrder, isSigned: signed,
            scale: scale, offset: offset, minimumText: minimumText, maximumText: maximumText,
            unit: unit, receivers: receivers, line: keyword.line, column: keyword.column)
    }

    private mutating func parseComment() throws(DBCParseError) {
        advance()
        let token = tokens[position]
        if token.kind == .string {
            let comment = try expectString("the comment")
            if let imported = Self.importedFile(comment) {
                declarations.imports.append(DBCImport(file: imported, line: token.line, column: token.column))
            } else {
                declarations.busComment = (declarations.busComment ?? "") + comment
            }
        } else if token.kind == .number {
            // `CM_ 145 "..."`: a message comment without BO_ (opendbc's Hyundai/Kia files).
            let frameID = try expectUnsigned("the frame ID of the commented message")
            warn(token, "a message comment without BO_ before the frame ID; read as CM_ BO_")
            declarations.messageComments[frameID] = try expectString("the comment in quotes")
        } else {
            let kind = try expectWord("SG_, BO_, BU_, EV_ or a quoted comment")
            switch kind {
            case "SG_":
                let frameID = try expectUnsigned("the frame ID of the commented signal")
                if tokens[position].kind == .string {
                    // `CM_ SG_ 304 "..."`: no signal named (opendbc's Honda files).
                    warn(tokens[position], "a signal comment that names no signal; ignored")
                    advance()
                    break
                }
                let signal = try expectWord("the commented signal's name")
                let comment = try expectString("the comment in quotes")
                declarations.signalComments[frameID, default: [:]][signal] = comment
            case "BO_":
                let frameID = try expectUnsigned("the frame ID of the commented message")
                declarations.messageComments[frameID] = try expectString("the comment in quotes")
            case "BU_":
                let node = try expectWord("the commented node's name")
                declarations.nodeComments[node] = try expectString("the comment in quotes")
            case "EV_":
                _ = try expectWord("the environment variable's name")
                _ = try expectString("the comment in quotes")
            default:
                throw error(at: token, expected: "SG_, BO_, BU_, EV_ or a quoted comment after CM_", found: "'\(kind)'")
            }
        }
        try expectTerminator("';' after the comment")
    }

    /// The file a `CM_ "IMPORT file.dbc";` comment names (opendbc's source form), if it is one.
    static func importedFile(_ comment: String) -> String? {
        guard comment.hasPrefix("IMPORT ") else { return nil }
        let file = comment.dropFirst("IMPORT ".count).drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
        return file.isEmpty ? nil : String(file)
    }

    private mutating func parseAttributeDefinition() throws(DBCParseError) {
        let keyword = tokens[position]
        advance()
        var kind = DBCAttributeDefinition.Kind.database
        if tokens[position].kind == .word {
            let objectToken = tokens[position]
            let object = text(objectToken)
            guard let parsed = DBCAttributeDefinition.Kind(rawValue: object), parsed != .database else {
                throw error(at: objectToken, expected: "BU_, BO_, SG_, EV_ or the attribute name in quotes", found: "'\(object)'")
            }
            kind = parsed
            advance()
        }
        let name = try expectString("the attribute name in quotes")
        let typeToken = tokens[position]
        let typeName = try expectWord("the attribute type (INT, HEX, FLOAT, STRING or ENUM)")
        guard let type = DBCAttributeDefinition.ValueType(rawValue: typeName) else {
            throw error(at: typeToken, expected: "the attribute type INT, HEX, FLOAT, STRING or ENUM", found: "'\(typeName)'")
        }
        var definition = RawAttributeDefinition(kind: kind, name: name, type: type, line: keyword.line, column: keyword.column)
        switch type {
        case .enumeration:
            while tokens[position].kind == .string {
                definition.enumValues.append(try expectString("an enum value"))
                if isPunctuation(tokens[position], ",") { advance() }
            }
        case .int, .hex, .float:
            while tokens[position].kind == .number {
                definition.limits.append(text(tokens[position]))
                advance()
            }
        case .string:
            break
        }
        try expectPunctuation(";", "';' after the attribute definition")
        declarations.attributeDefinitions.append(definition)
    }

    private mutating func parseAttributeDefault() throws(DBCParseError) {
        advance()
        let name = try expectString("the attribute name in quotes")
        let value = try expectAttributeValue()
        try expectPunctuation(";", "';' after the default value")
        declarations.attributeDefaults[name] = value
    }

    private mutating func parseAttribute() throws(DBCParseError) {
        let keyword = tokens[position]
        advance()
        let name = try expectString("the attribute name in quotes")
        var target = RawAttribute.Target.database
        if tokens[position].kind == .word {
            let objectToken = tokens[position]
            switch text(objectToken) {
            case "BO_":
                advance()
                target = .message(try expectUnsigned("the message's frame ID"))
            case "SG_":
                advance()
                let frameID = try expectUnsigned("the signal's frame ID")
                target = .signal(frameID, try expectWord("the signal name"))
            case "BU_":
                advance()
                target = .node(try expectWord("the node name"))
            case "EV_":
                advance()
                target = .environmentVariable(try expectWord("the environment variable name"))
            default:
                throw error(at: objectToken, expected: "BO_, SG_, BU_, EV_ or the attribute value", found: "'\(text(objectToken))'")
            }
        }
        let value = try expectAttributeValue()
        try expectPunctuation(";", "';' after the attribute value")
        declarations.attributes.append(RawAttribute(name: name, target: target, value: value, line: keyword.line, column: keyword.column))
    }

    private mutating func parseChoices() throws(DBCParseError) {
        let keyword = tokens[position]
        advance()
        var frameID: UInt64?
        if tokens[position].kind == .number {
            frameID = try expectUnsigned("the frame ID")
        }
        let signal = try expectWord("the signal (or environment variable) name")
        let choices = try parseChoicePairs()
        try expectTerminator("';' after the value descriptions")
        // VAL_ without a frame ID describes an environment variable: not used here.
        guard let frameID else { return }
        declarations.choices.append(RawChoices(frameIDDBC: frameID, signal: signal, choices: choices, line: keyword.line, column: keyword.column))
    }

    private mutating func parseValueTable() throws(DBCParseError) {
        advance()
        let name = try expectWord("the value table name")
        let choices = try parseChoicePairs()
        try expectTerminator("';' after the value table")
        declarations.valueTables.append((name, choices))
    }

    private mutating func parseChoicePairs() throws(DBCParseError) -> [DBCChoice] {
        var choices: [DBCChoice] = []
        while tokens[position].kind == .number {
            let valueToken = tokens[position]
            let valueText = text(valueToken)
            guard let value = Int128(valueText) else {
                throw error(at: valueToken, expected: "an integer value before its description", found: "'\(valueText)'")
            }
            advance()
            let name = try expectString("the value's description in quotes")
            choices.append(DBCChoice(value: value, name: name))
        }
        return choices
    }

    private mutating func parseSignalValueType() throws(DBCParseError) {
        let keyword = tokens[position]
        advance()
        let frameID = try expectUnsigned("the frame ID")
        let signal = try expectWord("the signal name")
        // Some writers omit the colon.
        if isPunctuation(tokens[position], ":") { advance() }
        let typeToken = tokens[position]
        let type = try expectInt("the value type (0 integer, 1 float32, 2 float64)")
        guard (0...3).contains(type) else {
            throw error(at: typeToken, expected: "the value type 0 (integer), 1 (float32) or 2 (float64)", found: "\(type)")
        }
        try expectPunctuation(";", "';' after the value type")
        declarations.signalTypes.append(RawSignalType(frameIDDBC: frameID, signal: signal, type: type, line: keyword.line, column: keyword.column))
    }

    private mutating func parseMultiplexerValues() throws(DBCParseError) {
        let keyword = tokens[position]
        advance()
        let frameID = try expectUnsigned("the frame ID")
        let signal = try expectWord("the multiplexed signal's name")
        let multiplexer = try expectWord("the multiplexer signal's name")
        var ranges: [ClosedRange<Int>] = []
        var total = 0
        repeat {
            let lowToken = tokens[position]
            let low = try expectInt("the low end of a multiplexer range (as in 3-5)")
            // "3-5" lexes as the numbers 3 and -5, as in cantools; "3 - 5" has a lone sign.
            if isPunctuation(tokens[position], "-") { advance() }
            let highToken = tokens[position]
            let highText = try expectNumberText("the high end of a multiplexer range (as in 3-5)")
            guard let high = Int(highText.hasPrefix("-") || highText.hasPrefix("+") ? String(highText.dropFirst()) : highText) else {
                throw error(at: highToken, expected: "the high end of a multiplexer range as a whole number", found: "'\(highText)'")
            }
            guard low <= high else {
                throw error(at: lowToken, expected: "a multiplexer range whose low end is not above its high end", found: "\(low)-\(high)")
            }
            // Overflow-safe; and at most 2^20 values over the whole statement.
            let (span, overflow) = high.subtractingReportingOverflow(low)
            guard !overflow, span < (1 << 20) - total else {
                throw error(at: lowToken, expected: "multiplexer ranges of at most 1048576 values in all", found: "\(low)-\(high)")
            }
            total += span + 1
            ranges.append(low...high)
            if isPunctuation(tokens[position], ",") { advance() } else { break }
        } while true
        try expectPunctuation(";", "';' after the multiplexer ranges")
        declarations.multiplexerValues.append(
            RawMultiplexerValues(frameIDDBC: frameID, signal: signal, multiplexer: multiplexer, ranges: ranges, line: keyword.line, column: keyword.column))
    }

    private mutating func parseMessageSenders() throws(DBCParseError) {
        advance()
        let frameID = try expectUnsigned("the frame ID")
        try expectPunctuation(":", "':' after the frame ID")
        var senders: [String] = [try expectWord("a sending node")]
        while isPunctuation(tokens[position], ",") {
            advance()
            senders.append(try expectWord("a sending node after ','"))
        }
        try expectPunctuation(";", "';' after the senders")
        declarations.messageSenders[frameID, default: []].append(contentsOf: senders)
    }

    private mutating func parseSignalGroup() throws(DBCParseError) {
        advance()
        let frameID = try expectUnsigned("the frame ID")
        let name = try expectWord("the signal group name")
        let repetitions = try expectInt("the repetitions count")
        try expectPunctuation(":", "':' before the group's signals")
        var names: [String] = []
        while isPlainWord(tokens[position]) {
            names.append(text(tokens[position]))
            advance()
            if isPunctuation(tokens[position], ",") { advance() }
        }
        try expectPunctuation(";", "';' after the group's signals")
        declarations.signalGroups[frameID, default: []].append(DBCSignalGroup(name: name, repetitions: repetitions, signalNames: names))
    }

    /// Skips to the end of the current statement: past the next ';', or up to the next
    /// keyword that starts a statement, whichever comes first.
    /// Known statements (which may mention keywords inside) are skipped to their ';'.
    private mutating func skipUnknownStatement(reason: String, untilSemicolon: Bool = false) {
        let first = tokens[position]
        declarations.warnings.append(DBCDiagnostic(file: source, line: first.line, column: first.column, message: reason))
        advance()
        while tokens[position].kind != .end {
            let token = tokens[position]
            if isPunctuation(token, ";") {
                advance()
                return
            }
            if !untilSemicolon, token.kind == .word, Self.keywords.contains(text(token)) { return }
            advance()
        }
    }

    // MARK: - Tokens

    private mutating func advance() {
        if tokens[position].kind != .end { position += 1 }
    }

    private func text(_ token: DBCToken) -> String {
        String(decoding: bytes[token.start..<token.end], as: UTF8.self)
    }

    private func isPunctuation(_ token: DBCToken, _ character: Unicode.Scalar) -> Bool {
        token.kind == .punctuation(UInt8(character.value))
    }

    private func isPlainWord(_ token: DBCToken) -> Bool {
        token.kind == .word && !Self.keywords.contains(text(token))
    }

    private func describe(_ token: DBCToken) -> String {
        switch token.kind {
        case .end: return "end of file"
        case .string: return "a string"
        case let .unexpected(byte):
            if byte == 0x22 { return "an unterminated string" }
            if byte >= 0x20, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
            return "byte 0x\(String(byte, radix: 16, uppercase: true))"
        default:
            var shown = text(token)
            if shown.count > 40 { shown = String(shown.prefix(40)) + "…" }
            return "'\(shown)'"
        }
    }

    private func error(at token: DBCToken, expected: String, found: String) -> DBCParseError {
        DBCParseError(file: source, line: token.line, column: token.column, expected: expected, found: found)
    }

    private mutating func warn(_ token: DBCToken, _ message: String) {
        declarations.warnings.append(DBCDiagnostic(file: source, line: token.line, column: token.column, message: message))
    }

    /// The `;` that ends a statement; where a writer left it out before the end of the
    /// file or the next statement's line, a warning.
    private mutating func expectTerminator(_ expected: String) throws(DBCParseError) {
        let token = tokens[position]
        if isPunctuation(token, ";") {
            advance()
        } else if token.kind == .end || (token.kind == .word && Self.keywords.contains(text(token)) && startsLine(position)) {
            warn(token, "missing \(expected); the statement ends at \(token.kind == .end ? "the end of the file" : "the next line")")
        } else {
            throw error(at: token, expected: expected, found: describe(token))
        }
    }

    /// A name that a statement defines (a message, a signal, a sender). One that starts
    /// with a digit is not a DBC name, but files have them (`0_COUNTER`): a warning.
    private mutating func expectName(_ expected: String) throws(DBCParseError) -> String {
        let token = tokens[position]
        let name = try expectWord(expected)
        if let first = name.utf8.first, first >= 0x30, first <= 0x39 {
            warn(token, "the name '\(name)' starts with a digit; accepted")
        }
        return name
    }

    private mutating func expectPunctuation(_ character: Unicode.Scalar, _ expected: String) throws(DBCParseError) {
        let token = tokens[position]
        guard isPunctuation(token, character) else { throw error(at: token, expected: expected, found: describe(token)) }
        advance()
    }

    private mutating func expectWord(_ expected: String) throws(DBCParseError) -> String {
        let token = tokens[position]
        guard token.kind == .word else { throw error(at: token, expected: expected, found: describe(token)) }
        advance()
        return text(token)
    }

    private mutating func expectString(_ expected: String) throws(DBCParseError) -> String {
        let token = tokens[position]
        guard token.kind == .string else { throw error(at: token, expected: expected, found: describe(token)) }
        advance()
        return stringValue(token)
    }

    private func stringValue(_ token: DBCToken) -> String {
        let inner = bytes[(token.start + 1)..<(token.end - 1)]
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(inner.count)
        var index = inner.startIndex
        while index < inner.endIndex {
            if inner[index] == 0x5C, index + 1 < inner.endIndex, inner[index + 1] == 0x22 {
                unescaped.append(0x22)
                index += 2
            } else {
                unescaped.append(inner[index])
                index += 1
            }
        }
        return CP1252.decode(unescaped)
    }

    private mutating func expectNumberText(_ expected: String) throws(DBCParseError) -> String {
        let token = tokens[position]
        guard token.kind == .number else { throw error(at: token, expected: expected, found: describe(token)) }
        advance()
        return text(token)
    }

    private mutating func expectInt(_ expected: String) throws(DBCParseError) -> Int {
        let token = tokens[position]
        let value = try expectNumberText(expected)
        guard let parsed = Int(value) else { throw error(at: token, expected: "\(expected) as a whole number", found: "'\(value)'") }
        return parsed
    }

    private mutating func expectUnsigned(_ expected: String) throws(DBCParseError) -> UInt64 {
        let token = tokens[position]
        let value = try expectNumberText(expected)
        guard let parsed = UInt64(value.hasPrefix("+") ? String(value.dropFirst()) : value) else {
            throw error(at: token, expected: "\(expected) as a whole number of at most 64 bits", found: "'\(value)'")
        }
        return parsed
    }

    private mutating func expectDBCNumber(_ expected: String) throws(DBCParseError) -> DBCNumber {
        let token = tokens[position]
        let value = try expectNumberText(expected)
        guard let number = DBCNumber(pythonText: value) else { throw error(at: token, expected: expected, found: "'\(value)'") }
        if value.hasPrefix(".") || value.hasPrefix("-.") || value.hasPrefix("+.") {
            warn(token, "\(expected) '\(value)' has no digit before its point; read as \(number)")
        }
        return number
    }

    private mutating func expectAttributeValue() throws(DBCParseError) -> RawAttributeValue {
        let token = tokens[position]
        switch token.kind {
        case .number:
            advance()
            return RawAttributeValue(text: text(token), isString: false, line: token.line, column: token.column)
        case .string:
            advance()
            return RawAttributeValue(text: stringValue(token), isString: true, line: token.line, column: token.column)
        default:
            throw error(at: token, expected: "the attribute value (a number or a quoted string)", found: describe(token))
        }
    }
}

extension DBCNumber {
    /// cantools' `num()`: `int(text)`, else `float(text)`.
    init?(pythonText text: String) {
        let digits = text.hasPrefix("+") ? String(text.dropFirst()) : text
        if let integer = Int128(digits) {
            self = .integer(integer)
        } else if let real = Double(digits.hasSuffix(".") ? digits + "0" : digits) {
            self = .real(real)
        } else {
            return nil
        }
    }
}

// MARK: - Raw declarations, before they are assembled into messages

struct RawSignal {
    var name: String
    var marker: String?
    var markerLine: Int
    var markerColumn: Int
    var start: Int
    var length: Int
    var byteOrder: DBCByteOrder
    var isSigned: Bool
    var scale: DBCNumber
    var offset: DBCNumber
    var minimumText: String
    var maximumText: String
    var unit: String
    var receivers: [String]
    var line: Int
    var column: Int
}

struct RawMessage {
    var frameIDDBC: UInt64
    var name: String
    var length: Int
    var sender: String
    var line: Int
    var column: Int
    var idLine: Int
    var idColumn: Int
    var signals: [RawSignal] = []
}

struct RawAttributeDefinition {
    var kind: DBCAttributeDefinition.Kind
    var name: String
    var type: DBCAttributeDefinition.ValueType
    var enumValues: [String] = []
    var limits: [String] = []
    var line: Int
    var column: Int
}

struct RawAttributeValue {
    var text: String
    var isString: Bool
    var line: Int
    var column: Int
}

struct RawAttribute {
    enum Target {
        case database
        case message(UInt64)
        case signal(UInt64, String)
        case node(String)
        case environmentVariable(String)
    }

    var name: String
    var target: Target
    var value: RawAttributeValue
    var line: Int
    var column: Int
}

struct RawChoices {
    var frameIDDBC: UInt64
    var signal: String
    var choices: [DBCChoice]
    var line: Int
    var column: Int
}

struct RawSignalType {
    var frameIDDBC: UInt64
    var signal: String
    var type: Int
    var line: Int
    var column: Int
}

struct RawMultiplexerValues {
    var frameIDDBC: UInt64
    var signal: String
    var multiplexer: String
    var ranges: [ClosedRange<Int>]
    var line: Int
    var column: Int
}

struct DBCDeclarations {
    var version: String?
    var nodes: [String] = []
    var messages: [RawMessage] = []
    var busComment: String?
    var signalComments: [UInt64: [String: String]] = [:]
    var messageComments: [UInt64: String] = [:]
    var nodeComments: [String: String] = [:]
    var attributeDefinitions: [RawAttributeDefinition] = []
    var attributeDefaults: [String: RawAttributeValue] = [:]
    var attributes: [RawAttribute] = []
    var choices: [RawChoices] = []
    var valueTables: [(String, [DBCChoice])] = []
    var signalTypes: [RawSignalType] = []
    var multiplexerValues: [RawMultiplexerValues] = []
    var messageSenders: [UInt64: [String]] = [:]
    var signalGroups: [UInt64: [DBCSignalGroup]] = [:]
    var warnings: [DBCDiagnostic] = []
    /// Messages set aside: their header or a signal could not be read.
    var unreadableMessages: [DBCUnreadableMessage] = []
    /// Other statements that could not be read (skipped).
    var unreadableStatements: [DBCParseError] = []
    /// `CM_ "IMPORT file.dbc";`: files whose messages this one includes.
    var imports: [DBCImport] = []
}

/// A file named by `CM_ "IMPORT file.dbc";`, where the comment is.
struct DBCImport {
    var file: String
    var line: Int
    var column: Int
}
