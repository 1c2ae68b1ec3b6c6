import CarplayJSON

/// A CAN database loaded from a DBC file, with cantools' semantics.
public struct DBCDatabase: Sendable {
    public var version: String?
    public var nodes: [DBCNode]
    public var messages: [DBCMessage]
    public var valueTables: [String: [DBCChoice]]
    public var attributeDefinitions: [String: DBCAttributeDefinition]
    /// Database-level (`BA_ "Name" value;`) attributes.
    public var attributes: [String: DBCAttributeValue]
    /// Bus comment (`CM_ "…";`); several are concatenated as CANdb++ does.
    public var comment: String?
    /// Statements that were skipped or entries that could not be used; never fatal.
    public var warnings: [DBCDiagnostic]
    /// Messages that could not be read, set aside with why.
    public var unreadableMessages: [DBCUnreadableMessage] = []
    /// Statements that could not be read, other than messages: skipped.
    public var unreadableStatements: [DBCParseError] = []
    /// Where the database came from (for messages), e.g. the file path.
    public var source: String

    private var indexByFrameID: [UInt32: Int]
    private var indexByID: [CANID: Int]
    private var indexByName: [String: Int]

    init(
        source: String, version: String?, nodes: [DBCNode], messages: [DBCMessage],
        valueTables: [String: [DBCChoice]], attributeDefinitions: [String: DBCAttributeDefinition],
        attributes: [String: DBCAttributeValue], comment: String?, warnings: [DBCDiagnostic]
    ) {
        self.source = source
        self.version = version
        self.nodes = nodes
        self.messages = messages
        self.valueTables = valueTables
        self.attributeDefinitions = attributeDefinitions
        self.attributes = attributes
        self.comment = comment
        self.warnings = warnings
        var byFrameID: [UInt32: Int] = [:]
        var byID: [CANID: Int] = [:]
        var byName: [String: Int] = [:]
        for (index, message) in messages.enumerated() {
            // Like cantools, the last definition of a frame ID or name wins.
            byFrameID[message.frameID] = index
            byID[message.canID] = index
            byName[message.name] = index
        }
        indexByFrameID = byFrameID
        indexByID = byID
        indexByName = byName
    }

    /// The unreadable message with this name, if the file has one.
    public func unreadableMessage(named name: String) -> DBCUnreadableMessage? {
        unreadableMessages.first { $0.name == name }
    }

    /// Every problem of the file, in file order: unreadable messages and statements, as
    /// errors (each with file:line:column).
    public var errors: [DBCParseError] {
        (unreadableMessages.flatMap(\.errors) + unreadableStatements).sorted { ($0.file, $0.line, $0.column) < ($1.file, $1.line, $1.column) }
    }

    /// The message with this frame ID (11- or 29-bit value, without DBC's bit 31),
    /// standard or extended -- as cantools' `get_message_by_frame_id` looks it up.
    public func message(frameID: UInt32) -> DBCMessage? {
        indexByFrameID[frameID].map { messages[$0] }
    }

    /// The message for a frame on the bus: the ID's value and its kind (standard or
    /// extended) must both match, so standard 0x400 is not extended 0x400.
    public func message(id: CANID) -> DBCMessage? {
        indexByID[id].map { messages[$0] }
    }

    public func message(named name: String) -> DBCMessage? {
        indexByName[name].map { messages[$0] }
    }
}

public struct DBCNode: Sendable, Hashable {
    public var name: String
    public var comment: String?
    public var attributes: [String: DBCAttributeValue]
}

/// One entry of a value table: a raw value and its name.
public struct DBCChoice: Sendable, Hashable {
    public var value: Int128
    public var name: String
    public init(value: Int128, name: String) {
        self.value = value
        self.name = name
    }
}

public enum DBCByteOrder: String, Sendable, Hashable {
    /// Intel, `@1`: the start bit is the least significant bit.
    case littleEndian = "little_endian"
    /// Motorola, `@0`: the start bit is the most significant bit, in DBC's sawtooth numbering.
    case bigEndian = "big_endian"
}

/// How the raw bits of a signal are interpreted (`SIG_VALTYPE_`).
public enum DBCValueType: Sendable, Hashable {
    case integer(signed: Bool)
    case float32
    case float64

    public var isFloat: Bool {
        if case .integer = self { return false }
        return true
    }
}

/// A number as written in a DBC file. cantools keeps "1" an int and "1.0" a float,
/// and that decides whether decoded values are ints or floats.
public enum DBCNumber: Sendable, Hashable, CustomStringConvertible {
    case integer(Int128)
    case real(Double)

    public var doubleValue: Double {
        switch self {
        case let .integer(value): Double(int128: value)
        case let .real(value): value
        }
    }

    /// Python's `float.is_integer()` / `isinstance(x, int)`.
    public var integralValue: Int128? {
        switch self {
        case let .integer(value): return value
        case let .real(value):
            guard value.isFinite, value.rounded(.towardZero) == value, abs(value) < 1.0e38 else { return nil }
            return Int128(value)
        }
    }

    public var description: String {
        switch self {
        case let .integer(value): String(value)
        case let .real(value): PythonFloat.repr(value)
        }
    }
}

public struct DBCSignal: Sendable {
    public var name: String
    /// The start bit as written in the DBC file.
    public var startBit: Int
    public var length: Int
    public var byteOrder: DBCByteOrder
    public var valueType: DBCValueType
    public var scale: DBCNumber
    public var offset: DBCNumber
    /// `nil` when the DBC says `[0|0]` (no range), as cantools reads it.
    public var minimum: DBCNumber?
    public var maximum: DBCNumber?
    public var unit: String?
    public var receivers: [String]
    /// `VAL_` choices, in file order.
    public var choices: [DBCChoice]
    public var comment: String?
    /// `GenSigStartValue`, raw.
    public var initialRawValue: DBCNumber?
    /// True for `M` and `mNM` signals.
    public var isMultiplexer: Bool
    /// The multiplexer values for which this signal is present; `nil` when always present.
    public var multiplexerIDs: [Int]?
    /// The multiplexer signal that selects this one.
    public var multiplexerSignal: String?
    public var attributes: [String: DBCAttributeValue]
    /// The line of the `SG_` statement.
    public var line: Int

    public var isSigned: Bool {
        if case .integer(signed: true) = valueType { return true }
        return false
    }

    /// The position of the first bit in network (MSB0) order for Motorola signals,
    /// the start bit for Intel ones: what cantools sorts signals by.
    public var sortKey: Int {
        switch byteOrder {
        case .littleEndian: startBit
        case .bigEndian: 8 * (startBit / 8) + (7 - startBit % 8)
        }
    }

    /// The choice name for a raw value (the last one wins for duplicates, as in cantools).
    public func choiceName(for raw: Int128) -> String? {
        var found: String?
        for choice in choices where choice.value == raw { found = choice.name }
        return found
    }

    /// The raw value for a choice name (the last one wins for duplicate names, as in cantools).
    public func choiceValue(named name: String) -> Int128? {
        var found: Int128?
        for choice in choices where choice.name == name { found = choice.value }
        return found
    }
}

public struct DBCSignalGroup: Sendable, Hashable {
    public var name: String
    public var repetitions: Int
    public var signalNames: [String]
}

public struct DBCMessage: Sendable {
    /// 11- or 29-bit ID, without the DBC's extended flag (bit 31).
    public var frameID: UInt32
    public var isExtended: Bool
    public var name: String
    /// Payload length in bytes (the DBC's DLC field).
    public var length: Int
    public var isFD: Bool
    public var senders: [String]
    /// `GenMsgCycleTime` in milliseconds; `nil` when absent or 0.
    public var cycleTime: Int?
    public var sendType: String?
    public var comment: String?
    /// Signals sorted by start bit, as cantools sorts them.
    public var signals: [DBCSignal]
    public var signalGroups: [DBCSignalGroup]
    public var attributes: [String: DBCAttributeValue]
    /// The line of the `BO_` statement.
    public var line: Int
    /// The compiled codec (bit positions, multiplexing tree, conversions).
    public internal(set) var codec: MessageCodec

    public var canID: CANID { CANID(frameID, extended: isExtended)! }
    public var isMultiplexed: Bool { codec.root.hasMultiplexers }

    public func signal(named name: String) -> DBCSignal? {
        codec.signalIndex[name].map { signals[$0] }
    }
}

public enum DBCAttributeValue: Sendable, Hashable, CustomStringConvertible {
    case integer(Int128)
    case real(Double)
    case string(String)

    public var description: String {
        switch self {
        case let .integer(value): String(value)
        case let .real(value): PythonFloat.repr(value)
        case let .string(value): value
        }
    }

    public var intValue: Int128? {
        switch self {
        case let .integer(value): value
        case let .real(value): value.isFinite ? Int128(value) : nil
        case .string: nil
        }
    }
}

public struct DBCAttributeDefinition: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case database
        case node = "BU_"
        case message = "BO_"
        case signal = "SG_"
        case environmentVariable = "EV_"
    }
    public enum ValueType: String, Sendable {
        case int = "INT"
        case hex = "HEX"
        case float = "FLOAT"
        case string = "STRING"
        case enumeration = "ENUM"
    }
    public var name: String
    public var kind: Kind
    public var type: ValueType
    public var enumValues: [String]
    public var minimum: Double?
    public var maximum: Double?
    public var defaultValue: DBCAttributeValue?
}

/// A warning about a DBC file: where, and what was skipped or ignored.
/// A message of the file that could not be read (its header, or one of its signals):
/// set aside, so that the rest of the file loads. Whoever needs it refuses the file.
public struct DBCUnreadableMessage: Sendable, Hashable, CustomStringConvertible {
    /// The frame ID as the file writes it (bit 31: extended), when it could be read.
    public var frameIDDBC: UInt64?
    public var name: String?
    /// The line of its `BO_`.
    public var line: Int
    /// Every problem found in it.
    public var errors: [DBCParseError]

    public init(frameIDDBC: UInt64?, name: String?, line: Int, errors: [DBCParseError]) {
        self.frameIDDBC = frameIDDBC
        self.name = name
        self.line = line
        self.errors = errors
    }

    /// The frame ID without bit 31, as messages are looked up.
    public var frameID: UInt32? { frameIDDBC.map { UInt32(truncatingIfNeeded: $0 & 0x7FFF_FFFF) } }

    public var description: String {
        let what = name.map { "message \($0)" } ?? "a message"
        let id = frameIDDBC.map { " (\($0))" } ?? ""
        return "\(what)\(id) set aside: " + errors.map(\.description).joined(separator: "; ")
    }
}

public struct DBCDiagnostic: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String
    /// A message with overlapping signals (decoded by position): common and harmless in
    /// some DBCs (GMLAN's group signals), so a tool may summarize these.
    public var isOverlap: Bool

    public init(file: String, line: Int, column: Int, message: String, isOverlap: Bool = false) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.isOverlap = isOverlap
    }

    public var description: String { "\(file):\(line):\(column): warning: \(message)" }
}

extension DBCDatabase {
    /// Gives a signal the value table the file lacks (a vehicle profile's `choices`),
    /// in memory only; the message's codec is compiled again. False when there is no
    /// such message or signal.
    public mutating func addChoices(_ choices: [DBCChoice], message messageName: String, signal signalName: String) -> Bool {
        guard let messageIndex = messages.firstIndex(where: { $0.name == messageName }) else { return false }
        var message = messages[messageIndex]
        let matching = message.signals.indices.filter { message.signals[$0].name == signalName }
        guard !matching.isEmpty else { return false }
        for index in matching { message.signals[index].choices = choices }
        message.codec = MessageCodec(messageName: message.name, length: message.length, signals: message.signals)
        messages[messageIndex] = message
        return true
    }
}
