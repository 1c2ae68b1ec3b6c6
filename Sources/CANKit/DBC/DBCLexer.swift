/// Tokens of the DBC language, as cantools' tokenizer splits them.
struct DBCToken: Sendable {
    enum Kind: Sendable, Equatable {
        case number
        case word
        case string
        /// One of `( ) [ ] , | @ : ;` and the signs `+ -`.
        case punctuation(UInt8)
        /// A character that starts no token; only an error inside a statement we parse.
        case unexpected(UInt8)
        case end
    }

    var kind: Kind
    /// Byte range in the source.
    var start: Int
    var end: Int
    var line: Int
    var column: Int
}

/// Splits DBC source bytes into tokens. DBC files are cp1252 (as cantools reads them);
/// only strings can hold non-ASCII, and they are decoded when read.
struct DBCLexer {
    let bytes: [UInt8]

    init(bytes: [UInt8]) {
        // Skip a UTF-8 byte order mark; some tools write one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            self.bytes = Array(bytes.dropFirst(3))
            bomSkipped = true
        } else {
            self.bytes = bytes
            bomSkipped = false
        }
    }

    let bomSkipped: Bool

    func tokenize() -> [DBCToken] {
        var tokens: [DBCToken] = []
        tokens.reserveCapacity(bytes.count / 4)
        var index = 0
        var line = 1
        var lineStart = 0
        let count = bytes.count

        @inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        @inline(__always) func isWordByte(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
        }

        while index < count {
            let byte = bytes[index]
            // Whitespace (cantools: [ \r\n\t]; other control bytes are treated the same).
            if byte == 0x0A {
                index += 1
                line += 1
                lineStart = index
                continue
            }
            if byte <= 0x20 {
                index += 1
                continue
            }
            let start = index
            let column = start - lineStart + 1
            // `//` comment to the end of the line.
            if byte == 0x2F, index + 1 < count, bytes[index + 1] == 0x2F {
                while index < count, bytes[index] != 0x0A { index += 1 }
                continue
            }
            // NUMBER: [-+]?\d+\.?\d*([eE][+-]?\d+)?  (tried before WORD, as in cantools),
            // and [-+]?\.\d+ (a factor written `.25`; the parser warns).
            var probe = index
            if byte == 0x2B || byte == 0x2D { probe += 1 }
            let pointFirst = probe + 1 < count && bytes[probe] == 0x2E && isDigit(bytes[probe + 1])
            if probe < count, isDigit(bytes[probe]) || pointFirst {
                while probe < count, isDigit(bytes[probe]) { probe += 1 }
                if probe < count, bytes[probe] == 0x2E {
                    probe += 1
                    while probe < count, isDigit(bytes[probe]) { probe += 1 }
                }
                if probe < count, bytes[probe] == 0x65 || bytes[probe] == 0x45 {
                    var exponent = probe + 1
                    if exponent < count, bytes[exponent] == 0x2B || bytes[exponent] == 0x2D { exponent += 1 }
                    if exponent < count, isDigit(bytes[exponent]) {
                        while exponent < count, isDigit(bytes[exponent]) { exponent += 1 }
                        probe = exponent
                    }
                }
                // Digits run into letters or '_' (`0_COUNTER`, `2017_5`): a name that starts
                // with a digit, not a number and a name. The parser warns where it defines one.
                if isDigit(byte), probe < count, isWordByte(bytes[probe]) {
                    var end = probe
                    while end < count, isWordByte(bytes[end]) { end += 1 }
                    if bytes[start..<probe].allSatisfy(isWordByte) {
                        tokens.append(DBCToken(kind: .word, start: start, end: end, line: line, column: column))
                        index = end
                        continue
                    }
                }
                tokens.append(DBCToken(kind: .number, start: start, end: probe, line: line, column: column))
                index = probe
                continue
            }
            if isWordByte(byte) {
                while index < count, isWordByte(bytes[index]) { index += 1 }
                tokens.append(DBCToken(kind: .word, start: start, end: index, line: line, column: column))
                continue
            }
            if byte == 0x22 {
                // STRING: "(\\"|[^"])*?" -- may span lines.
                let tokenLine = line
                index += 1
                var closed = false
                while index < count {
                    let current = bytes[index]
                    if current == 0x5C, index + 1 < count, bytes[index + 1] == 0x22 {
                        index += 2
                        continue
                    }
                    if current == 0x0A {
                        line += 1
                        lineStart = index + 1
                    }
                    index += 1
                    if current == 0x22 {
                        closed = true
                        break
                    }
                }
                if closed {
                    tokens.append(DBCToken(kind: .string, start: start, end: index, line: tokenLine, column: column))
                } else {
                    tokens.append(DBCToken(kind: .unexpected(byte), start: start, end: start + 1, line: tokenLine, column: column))
                }
                continue
            }
            switch byte {
            case 0x28, 0x29, 0x5B, 0x5D, 0x2C, 0x7C, 0x40, 0x3A, 0x3B, 0x2B, 0x2D:
                tokens.append(DBCToken(kind: .punctuation(byte), start: start, end: start + 1, line: line, column: column))
            default:
                tokens.append(DBCToken(kind: .unexpected(byte), start: start, end: start + 1, line: line, column: column))
            }
            index += 1
        }
        tokens.append(DBCToken(kind: .end, start: count, end: count, line: line, column: count - lineStart + 1))
        return tokens
    }
}

/// cp1252 decoding, as cantools reads DBC files.
enum CP1252 {
    /// The code points of 0x80...0x9F; the rest of the range maps to itself (Latin-1).
    /// cp1252 leaves 0x81, 0x8D, 0x8F, 0x90 and 0x9D undefined, and cantools reads them
    /// (errors="replace") as U+FFFD: so does this table.
    private static let high: [UInt32] = [
        0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
        0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
    ]

    /// UTF-8 where the text is valid UTF-8 (files written by newer tools, opendbc's), else
    /// cp1252, as cantools reads every file.
    static func decode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        if let text = String(validating: Array(bytes), as: UTF8.self) { return text }
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            let value: UInt32 = (byte >= 0x80 && byte <= 0x9F) ? high[Int(byte - 0x80)] : UInt32(byte)
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }
}
