/// Why bytes are not a JSON value: what is wrong and where (1-based line and column,
/// the column counted in bytes; nil when the text simply ends too soon to say more).
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String
    public var line: Int?
    public var column: Int?

    public init(_ reason: String, line: Int? = nil, column: Int? = nil) {
        self.reason = reason
        self.line = line
        self.column = column
    }

    /// `malformed JSON: expected ':' at line 3, column 14`.
    public var message: String {
        guard let line, let column else { return "malformed JSON: \(reason)" }
        return "malformed JSON: \(reason) at line \(line), column \(column)"
    }

    public var description: String { message }
}

extension JSONValue {
    /// Parses JSON text (RFC 8259; any value at the top level, objects included),
    /// keeping booleans, integers and floating-point numbers apart: `21` is
    /// `.integer(21)`, `21.0` and `1e2` are `.number`; integers beyond `Int` become
    /// `.number`. Invalid UTF-8, lone surrogates, control characters in strings, and
    /// nesting deeper than 512 levels are errors. Duplicate object keys: the last wins.
    public init(parsing bytes: [UInt8]) throws(JSONError) {
        self = try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
            var parser = JSONParser(buffer)
            return try parser.parseDocument()
        }
    }

    /// Parses JSON text.
    public init(parsing text: String) throws(JSONError) {
        try self.init(parsing: Array(text.utf8))
    }
}

/// A recursive-descent JSON parser over UTF-8 bytes.
private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    /// The members of the objects being parsed, innermost last (`parseObject`).
    var pendingMembers: [(key: String, value: JSONValue)] = []
    static let maximumDepth = 512

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        // A Varlink call's members at once: the stack grew (copying itself) at the 1st,
        // 2nd, 4th and 8th.
        pendingMembers.reserveCapacity(16)
    }

    /// The error at the current position; line and column are counted only now, so
    /// parsing pays nothing for them.
    func error(_ what: String) -> JSONError {
        var line = 1
        var lineStart = 0
        for position in 0..<min(index, bytes.count) where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        return JSONError(what, line: line, column: index - lineStart + 1)
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw JSONError("no value") }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw error("garbage after the value") }
        return value
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw error("invalid literal") }
        index += count
    }

    mutating func enter() throws(JSONError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nested deeper than \(Self.maximumDepth) levels") }
    }

    mutating func parseObject() throws(JSONError) -> JSONValue {
        try enter()
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object([:])
        }
        // The members wait on a stack shared by the nested objects, so that the
        // dictionary is made once at its size: filled as parsed, it grew (and hashed every
        // key again) at the 2nd, 4th, 7th... member.
        let start = pendingMembers.count
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            pendingMembers.append((key, value))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            throw error("expected ',' or '}'")
        }
        var object = [String: JSONValue](minimumCapacity: pendingMembers.count - start)
        for member in pendingMembers[start...] { object[member.key] = member.value }  // the last of a duplicate key wins
        pendingMembers.removeSubrange(start...)
        depth -= 1
        return .object(object)
    }

    mutating func parseArray() throws(JSONError) -> JSONValue {
        try enter()
        index += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(array)
        }
        while true {
            skipWhitespace()
            array.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; break }
            throw error("expected ',' or ']'")
        }
        depth -= 1
        return .array(array)
    }

    mutating func parseString() throws(JSONError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try validated(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in a string") }
            index += 1
        }
        var scratch = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try scratch.withUnsafeBufferPointer { buffer throws(JSONError) in try validated(buffer) }
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unexpected end") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scratch.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): scratch.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): scratch.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("lone surrogate in a \\u escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("lone surrogate in a \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw error("lone surrogate in a \\u escape")
                    }
                    scratch.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
                default: throw error("invalid escape")
                }
            default:
                if byte < 0x20 { throw error("control character in a string") }
                scratch.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    mutating func hex4() throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unexpected end") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 55)
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    func validated(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONError) -> String {
        // ASCII needs no validation; `String(validating:as:)` is generic and costs more
        // than the rest of a Varlink call's parse.
        if buffer.allSatisfy({ $0 < 0x80 }) { return String(decoding: buffer, as: UTF8.self) }
        guard let text = String(validating: buffer, as: UTF8.self) else { throw error("invalid UTF-8 in a string") }
        return text
    }

    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        var integral = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if integral, let value = integer(start..<index) { return .integer(value) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number out of range") }
        return .number(value)
    }

    /// The integer of the digits at `range` (an optional "-" first), nil beyond `Int`:
    /// without the String that `Int(_:)` would need.
    func integer(_ range: Range<Int>) -> Int? {
        let negative = bytes[range.lowerBound] == UInt8(ascii: "-")
        var value = 0
        for position in (negative ? range.lowerBound + 1 : range.lowerBound)..<range.upperBound {
            let digit = Int(bytes[position] &- 48)
            // Counted towards the negative side, which reaches one further (Int.min).
            let (times10, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowMinus) = times10.subtractingReportingOverflow(digit)
            if overflowTimes || overflowMinus { return nil }
            value = next
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}
