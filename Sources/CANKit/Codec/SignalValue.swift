import CarplayJSON

/// A decoded (physical) signal value, typed the way cantools types it: an integer
/// when raw value, factor and offset are all integers, a float otherwise, or the
/// name of a value-table choice.
public enum SignalValue: Sendable, Hashable, CustomStringConvertible {
    case integer(Int128)
    case float(Double)
    /// A value-table entry: its name and raw value.
    case choice(String, raw: Int128)

    public var description: String {
        switch self {
        case let .integer(value): String(value)
        case let .float(value): PythonFloat.repr(value)
        case let .choice(name, _): name
        }
    }

    /// The numeric value (a choice gives its raw value).
    public var doubleValue: Double {
        switch self {
        case let .integer(value): Double(int128: value)
        case let .float(value): value
        case let .choice(_, raw): Double(int128: raw)
        }
    }
}

/// A value given for encoding: a number (integer or float, as in Python) or a choice name.
public enum SignalInput: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    case integer(Int128)
    case float(Double)
    case choice(String)

    public init(integerLiteral value: Int) { self = .integer(Int128(value)) }
    public init(floatLiteral value: Double) { self = .float(value) }
    public init(stringLiteral value: String) { self = .choice(value) }

    /// Reads `42` as an integer, `21.5`, `1e3`, `nan` as floats, anything else as a choice name.
    public init(parsing text: String) {
        if let integer = Int128(text) {
            self = .integer(integer)
        } else if let real = Double(text) {
            self = .float(real)
        } else {
            self = .choice(text)
        }
    }

    public var description: String {
        switch self {
        case let .integer(value): String(value)
        case let .float(value): PythonFloat.repr(value)
        case let .choice(name): name
        }
    }

    var doubleValue: Double? {
        switch self {
        case let .integer(value): Double(int128: value)
        case let .float(value): value
        case .choice: nil
        }
    }
}

public enum DBCDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    case wrongLength(message: String, actual: Int, expected: Int)
    case invalidMultiplexerValue(message: String, multiplexer: String, value: Int128, expected: [Int])
    case unusableMessage(message: String, reason: String)

    public var description: String {
        switch self {
        case let .wrongLength(_, actual, expected):
            "Wrong data size: \(actual) instead of \(expected) bytes"
        case let .invalidMultiplexerValue(_, multiplexer, value, expected):
            "expected multiplexer id \(formatOr(expected.map(String.init))), but got \(value) (multiplexer \(multiplexer))"
        case let .unusableMessage(message, reason):
            "message \(message) cannot be decoded: \(reason)"
        }
    }
}

public enum DBCEncodeError: Error, Sendable, Hashable, CustomStringConvertible {
    case missingSignal(message: String, signal: String)
    case unexpectedSignals(message: String, signals: [String])
    case invalidMultiplexerValue(message: String, multiplexer: String, value: String, expected: [Int])
    case unknownChoice(message: String, signal: String, choice: String, known: [String])
    case belowMinimum(message: String, signal: String, value: String, minimum: String)
    case aboveMaximum(message: String, signal: String, value: String, maximum: String)
    /// The raw value does not fit the signal's bits (no silent truncation into neighbours).
    case rawValueOutOfRange(message: String, signal: String, value: String, raw: String, bits: Int, signed: Bool)
    case notANumber(message: String, signal: String, value: String)
    /// Two signals given for one frame share a bit (cantools refuses such a message whole).
    case overlappingSignals(message: String, signal: String, other: String)
    case unusableMessage(message: String, reason: String)
    case unknownMessage(String)

    public var signal: String? {
        switch self {
        case let .missingSignal(_, signal), let .unknownChoice(_, signal, _, _), let .belowMinimum(_, signal, _, _),
            let .aboveMaximum(_, signal, _, _), let .rawValueOutOfRange(_, signal, _, _, _, _), let .notANumber(_, signal, _),
            let .overlappingSignals(_, signal, _):
            signal
        case let .invalidMultiplexerValue(_, multiplexer, _, _): multiplexer
        case let .unexpectedSignals(_, signals): signals.first
        case .unusableMessage, .unknownMessage: nil
        }
    }

    public var description: String {
        switch self {
        case let .missingSignal(message, signal):
            "The signal \"\(signal)\" is required for encoding message \"\(message)\"."
        case let .unexpectedSignals(message, signals):
            "The following signals were specified but are not required to encode message \"\(message)\": \(signals.joined(separator: ", "))"
        case let .invalidMultiplexerValue(message, multiplexer, value, expected):
            "A valid value for the multiplexer selector signal \"\(multiplexer)\" of message \"\(message)\" is required: expected one of {\(formatOr(expected.map(String.init)))}, but got \(value)"
        case let .unknownChoice(message, signal, choice, known):
            "Invalid value specified for signal \"\(signal)\" in message \"\(message)\": \"\(choice)\" is not one of its choices"
                + (known.isEmpty ? " (it has none)" : " (\(known.map { "\"\($0)\"" }.joined(separator: ", ")))")
        case let .belowMinimum(message, signal, value, minimum):
            "Expected signal \"\(signal)\" value greater than or equal to \(minimum) in message \"\(message)\", but got \(value)."
        case let .aboveMaximum(message, signal, value, maximum):
            "Expected signal \"\(signal)\" value smaller than or equal to \(maximum) in message \"\(message)\", but got \(value)."
        case let .rawValueOutOfRange(message, signal, value, raw, bits, signed):
            "Signal \"\(signal)\" in message \"\(message)\": value \(value) gives raw value \(raw), which does not fit in \(bits) bits \(signed ? "signed" : "unsigned")."
        case let .notANumber(message, signal, value):
            "Signal \"\(signal)\" in message \"\(message)\": \(value) cannot be encoded."
        case let .overlappingSignals(message, signal, other):
            "Signals \"\(signal)\" and \"\(other)\" of message \"\(message)\" share bits: a frame carries one of them, not both."
        case let .unusableMessage(message, reason):
            "message \(message) cannot be encoded: \(reason)"
        case let .unknownMessage(name):
            "no message named \"\(name)\" in the database"
        }
    }
}

func formatOr(_ items: [String]) -> String {
    guard items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + " or " + items.last!
}
