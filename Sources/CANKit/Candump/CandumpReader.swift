/// Reads candump log lines. The format is detected per line:
///
/// - `candump -L` / `candump -l` log format: `(1700000000.123456) vcan0 123#DEADBEEF`
/// - the cansend form, without timestamp and interface: `123#DEADBEEF`
///   (also with only one of the two: `vcan0 123#11`, `(1.000000) 123#11`)
/// - candump's default human format, optionally with `-t a|d|z` timestamps and
///   `-x` extra info: `  vcan0  123   [4]  DE AD BE EF`,
///   ` (1700000000.123456)  vcan0  RX B -  123  [12]  00 11 ...`
///
/// Compact frame syntax (can-utils `parse_canframe`):
/// - ID: 3 hex digits (standard) or 8 (extended; with bit 0x20000000 set, an error frame);
/// - `#` then 0...8 data bytes as hex pairs, optionally separated by `.`
///   (`123#DE.AD.BE.EF`), optionally followed by `_<dlc>` (`_9`...`_F`, the raw
///   DLC of an 8-byte frame; accepted and dropped because `CANFrame` has no raw DLC);
/// - `#R` or `#R<len>` (`r` too): a remote frame, optionally with `_<dlc>`;
/// - `##<flags>` then 0...64 data bytes: CAN FD; flags is one hex digit,
///   bit 0 BRS, bit 1 ESI, bit 2 FDF (set by newer kernels, ignored); bit 3 is rejected.
///
/// Human format (can-utils `sprint_long_canframe`): `[n]` is a classic length
/// (one digit), `[nn]` a CAN FD length (two digits), `{X}` a classic frame with
/// raw DLC X; then the bytes as spaced hex pairs or `remote request`. Trailing
/// `ERRORFRAME` and `-a` ASCII (`'...'`) are ignored. Without `-x` the FD flags
/// are not printed, so they read as false.
///
/// Not supported (reported as errors): `-t A` date timestamps, `-b` binary and
/// `-S` swapped views, CAN XL.
///
/// All entry points are pure functions over bytes; nothing is retained.
public enum CandumpReader {
    /// Parses one line (without or with its trailing `\n` / `\r\n`).
    public static func parseLine(_ line: UnsafeBufferPointer<UInt8>) throws(CandumpParseError) -> CandumpLine {
        var parser = LineParser(bytes: line)
        return try parser.parse()
    }

    /// Like `parseLine(_:)`, but the frame's payload is built in `storage`, whose
    /// capacity is reused: when the caller has dropped the previous line's frame,
    /// reading a `-L` line allocates nothing (the decoder tool's hot loop).
    public static func parseLine(_ line: UnsafeBufferPointer<UInt8>, reusing storage: inout [UInt8]) throws(CandumpParseError) -> CandumpLine {
        var parser = LineParser(bytes: line)
        swap(&parser.storage, &storage)
        defer { swap(&parser.storage, &storage) }
        return try parser.parse()
    }

    public static func parseLine(_ line: [UInt8]) throws(CandumpParseError) -> CandumpLine {
        let result = line.withUnsafeBufferPointer { buffer in
            Result { () throws(CandumpParseError) in try parseLine(buffer) }
        }
        return try result.get()
    }

    public static func parseLine(_ line: String) throws(CandumpParseError) -> CandumpLine {
        var line = line
        let result = line.withUTF8 { buffer in
            Result { () throws(CandumpParseError) in try parseLine(buffer) }
        }
        return try result.get()
    }

    /// The record on `line`, or `nil` for a blank, comment or `-e` detail line.
    public static func record(_ line: String) throws(CandumpParseError) -> CandumpRecord? {
        try parseLine(line).record
    }

    /// Calls `body` with each line of `text` (split at `\n`, the terminator not
    /// included) and its 1-based line number. A final line without `\n` is
    /// included; an empty text has no lines.
    public static func forEachLine<E: Error>(
        in text: UnsafeBufferPointer<UInt8>,
        _ body: (_ lineNumber: Int, _ line: UnsafeBufferPointer<UInt8>) throws(E) -> Void
    ) throws(E) {
        guard let base = text.baseAddress else { return }
        var start = 0
        var lineNumber = 1
        let count = text.count
        while start < count {
            var end = start
            while end < count, text[end] != 0x0A { end += 1 }
            try body(lineNumber, UnsafeBufferPointer(start: base + start, count: end - start))
            lineNumber += 1
            start = end + 1
        }
    }

    /// Every record in `text`, skipping blank, comment and `-e` detail lines.
    /// The first malformed line throws, with `line` set.
    public static func records(in text: UnsafeBufferPointer<UInt8>) throws(CandumpParseError) -> [CandumpRecord] {
        var records: [CandumpRecord] = []
        try forEachLine(in: text) { (lineNumber, line) throws(CandumpParseError) in
            do throws(CandumpParseError) {
                if case let .record(record) = try parseLine(line) { records.append(record) }
            } catch {
                var located = error
                located.line = lineNumber
                throw located
            }
        }
        return records
    }

    public static func records(in text: [UInt8]) throws(CandumpParseError) -> [CandumpRecord] {
        let result = text.withUnsafeBufferPointer { buffer in
            Result { () throws(CandumpParseError) in try records(in: buffer) }
        }
        return try result.get()
    }

    public static func records(in text: String) throws(CandumpParseError) -> [CandumpRecord] {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(CandumpParseError) in try records(in: buffer) }
        }
        return try result.get()
    }
}

// MARK: - Parser

private enum ASCII {
    static let tab: UInt8 = 0x09
    static let newline: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let hash: UInt8 = 0x23  // #
    static let quote: UInt8 = 0x27  // '
    static let openParen: UInt8 = 0x28  // (
    static let closeParen: UInt8 = 0x29  // )
    static let dot: UInt8 = 0x2E  // .
    static let semicolon: UInt8 = 0x3B  // ;
    static let openBracket: UInt8 = 0x5B  // [
    static let closeBracket: UInt8 = 0x5D  // ]
    static let underscore: UInt8 = 0x5F  // _
    static let backtick: UInt8 = 0x60  // `
    static let openBrace: UInt8 = 0x7B  // {
    static let closeBrace: UInt8 = 0x7D  // }
    static let zero: UInt8 = 0x30
    static let upperR: UInt8 = 0x52
    static let lowerR: UInt8 = 0x72
    static let minus: UInt8 = 0x2D
    static let upperB: UInt8 = 0x42
    static let upperE: UInt8 = 0x45

    @inline(__always) static func isBlank(_ c: UInt8) -> Bool { c == space || c == tab }

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c &- zero < 10 }

    /// 0...15, or 0xFF for a non-hex character.
    @inline(__always) static func hexValue(_ c: UInt8) -> UInt8 {
        if c &- 0x30 < 10 { return c &- 0x30 }  // 0-9
        let folded = c | 0x20  // A-F -> a-f
        if folded &- 0x61 < 6 { return folded &- 0x61 &+ 10 }
        return 0xFF
    }
}

private let canErrorFlag: UInt32 = 0x2000_0000

private struct LineParser {
    let bytes: UnsafeBufferPointer<UInt8>
    /// End of the meaningful text (trailing whitespace and line terminators removed).
    var end: Int
    var index = 0
    /// Reusable payload buffer (see `parseLine(_:reusing:)`).
    var storage: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        var end = bytes.count
        while end > 0 {
            let c = bytes[end - 1]
            guard c == ASCII.space || c == ASCII.tab || c == ASCII.newline || c == ASCII.carriageReturn else { break }
            end -= 1
        }
        self.end = end
    }

    // MARK: helpers

    func fail(at position: Int, _ message: String) -> CandumpParseError {
        CandumpParseError(column: position + 1, message: message)
    }

    func describe(_ position: Int) -> String {
        guard position < end else { return "end of line" }
        let c = bytes[position]
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        if c == ASCII.space { return "space" }
        if c == ASCII.tab { return "tab" }
        return "byte 0x" + String(c, radix: 16, uppercase: true)
    }

    mutating func skipBlanks() {
        while index < end, ASCII.isBlank(bytes[index]) { index += 1 }
    }

    /// End of the token starting at `start` (first blank or end of line).
    func tokenEnd(from start: Int) -> Int {
        var position = start
        while position < end, !ASCII.isBlank(bytes[position]) { position += 1 }
        return position
    }

    func contains(_ byte: UInt8, from start: Int, to stop: Int) -> Bool {
        var position = start
        while position < stop {
            if bytes[position] == byte { return true }
            position += 1
        }
        return false
    }

    func tokenEquals(_ start: Int, _ stop: Int, _ text: StaticString) -> Bool {
        guard stop - start == text.utf8CodeUnitCount else { return false }
        let pointer = text.utf8Start
        for offset in 0..<(stop - start) where bytes[start + offset] != pointer[offset] {
            return false
        }
        return true
    }

    /// Number of hex digits starting at `start`, not beyond `stop`.
    func hexRun(from start: Int, to stop: Int) -> Int {
        var position = start
        while position < stop, ASCII.hexValue(bytes[position]) != 0xFF { position += 1 }
        return position - start
    }

    // MARK: line

    mutating func parse() throws(CandumpParseError) -> CandumpLine {
        if end > 0, bytes[0] == ASCII.tab {
            // candump -e prints the decoded error classes on lines of their own, led by a tab.
            return .errorDetails
        }
        skipBlanks()
        guard index < end else { return .blank }
        let first = bytes[index]
        if first == ASCII.hash || first == ASCII.semicolon { return .comment }

        var timestamp: CandumpTimestamp?
        if first == ASCII.openParen {
            timestamp = try parseTimestamp()
            guard index < end else {
                throw fail(at: index, "expected an interface name or a CAN frame after the timestamp")
            }
            guard ASCII.isBlank(bytes[index]) else {
                throw fail(at: index, "expected a space after the timestamp, found \(describe(index))")
            }
            skipBlanks()
        }

        let firstStart = index
        let firstEnd = tokenEnd(from: firstStart)
        if contains(ASCII.hash, from: firstStart, to: firstEnd) {
            // (timestamp) 123#... : no interface.
            let frame = try parseCompactFrame(from: firstStart, to: firstEnd)
            try expectEndOfLine(after: firstEnd)
            return .record(CandumpRecord(timestamp: timestamp, interface: nil, frame: frame))
        }

        let interface = String(decoding: UnsafeBufferPointer(rebasing: bytes[firstStart..<firstEnd]), as: UTF8.self)
        index = firstEnd
        skipBlanks()
        guard index < end else {
            if hexRun(from: firstStart, to: firstEnd) == firstEnd - firstStart {
                throw missingHash(tokenStart: firstStart, tokenEnd: firstEnd)
            }
            throw fail(at: index, "expected a CAN frame after the interface name")
        }
        let secondStart = index
        let secondEnd = tokenEnd(from: secondStart)
        if contains(ASCII.hash, from: secondStart, to: secondEnd) {
            let frame = try parseCompactFrame(from: secondStart, to: secondEnd)
            try expectEndOfLine(after: secondEnd)
            return .record(CandumpRecord(timestamp: timestamp, interface: interface, frame: frame))
        }
        let frame = try parseHumanFrame()
        return .record(CandumpRecord(timestamp: timestamp, interface: interface, frame: frame))
    }

    func expectEndOfLine(after position: Int) throws(CandumpParseError) {
        var position = position
        while position < end, ASCII.isBlank(bytes[position]) { position += 1 }
        guard position == end else {
            throw fail(at: position, "unexpected text after the CAN frame")
        }
    }

    func missingHash(tokenStart: Int, tokenEnd: Int) -> CandumpParseError {
        let length = tokenEnd - tokenStart
        // candump looks for '#' after 3 digits, then after 8.
        let position = tokenStart + (length == 8 ? 8 : min(length, 3))
        return fail(at: position, "missing '#' after the CAN ID (3 or 8 hex digits)")
    }

    // MARK: timestamp

    /// `(seconds.fraction)`: up to 18 digits of seconds and 1...9 fractional
    /// digits (beyond 6 truncated to microseconds).
    mutating func parseTimestamp() throws(CandumpParseError) -> CandumpTimestamp {
        index += 1  // (
        let secondsStart = index
        var seconds: Int64 = 0
        while index < end, ASCII.isDigit(bytes[index]) {
            guard index - secondsStart < 18 else {
                throw fail(at: index, "timestamp seconds too long")
            }
            seconds = seconds * 10 + Int64(bytes[index] - ASCII.zero)
            index += 1
        }
        guard index > secondsStart else {
            throw fail(at: index, "expected timestamp seconds (digits) after '(', found \(describe(index))")
        }
        guard index < end, bytes[index] == ASCII.dot else {
            let hint = index < end && bytes[index] == ASCII.minus ? " (candump -t A dates are not supported)" : ""
            throw fail(at: index, "expected '.' in the timestamp, found \(describe(index))" + hint)
        }
        index += 1
        let fractionStart = index
        var microseconds: UInt32 = 0
        while index < end, ASCII.isDigit(bytes[index]) {
            let digits = index - fractionStart
            guard digits < 9 else { throw fail(at: index, "timestamp has more than 9 fractional digits") }
            if digits < 6 { microseconds = microseconds * 10 + UInt32(bytes[index] - ASCII.zero) }
            index += 1
        }
        let digits = index - fractionStart
        guard digits > 0 else {
            throw fail(at: index, "expected fractional digits in the timestamp, found \(describe(index))")
        }
        for _ in digits..<max(digits, 6) { microseconds *= 10 }
        guard index < end, bytes[index] == ASCII.closeParen else {
            throw fail(at: index, "expected ')' to close the timestamp, found \(describe(index))")
        }
        index += 1
        return CandumpTimestamp(seconds: seconds, microseconds: microseconds)
    }

    // MARK: CAN ID

    struct ParsedID {
        var id: CANID
        var isError: Bool
    }

    /// Validates `digits` (3 or 8) hex digits at `start` and builds the ID.
    func makeID(at start: Int, digits: Int) throws(CandumpParseError) -> ParsedID {
        var value: UInt32 = 0
        for position in start..<(start + digits) {
            value = value << 4 | UInt32(ASCII.hexValue(bytes[position]))
        }
        if digits == 3 {
            guard let id = CANID(value, extended: false) else {
                throw fail(at: start, "standard CAN ID 0x\(String(value, radix: 16, uppercase: true)) exceeds 0x7FF")
            }
            return ParsedID(id: id, isError: false)
        }
        if value & canErrorFlag != 0 {
            // candump prints CAN_ERR_FLAG | error class; the class never exceeds 29 bits.
            guard let id = CANID(value & ~canErrorFlag, extended: true), value & 0xC000_0000 == 0 else {
                throw fail(at: start, "error frame ID 0x\(String(value, radix: 16, uppercase: true)) has flag bits above CAN_ERR_FLAG set")
            }
            return ParsedID(id: id, isError: true)
        }
        guard let id = CANID(value, extended: true) else {
            throw fail(at: start, "extended CAN ID 0x\(String(value, radix: 16, uppercase: true)) exceeds 29 bits (0x1FFFFFFF)")
        }
        return ParsedID(id: id, isError: false)
    }

    // MARK: compact form

    /// `123#DEADBEEF`, `1F334455#R`, `123##1DEADBEEF` in `[start, stop)`, which contains a '#'.
    mutating func parseCompactFrame(from start: Int, to stop: Int) throws(CandumpParseError) -> CANFrame {
        let digits = hexRun(from: start, to: stop)
        let hashPosition = start + digits
        if digits > 8 {
            throw fail(at: start + 8, "CAN ID too long: \(digits) hex digits, at most 8")
        }
        guard bytes[hashPosition] == ASCII.hash else {
            throw fail(at: hashPosition, "expected a hex digit or '#' in the CAN ID, found \(describe(hashPosition))")
        }
        guard digits == 3 || digits == 8 else {
            throw fail(at: hashPosition, "CAN ID must have 3 (standard) or 8 (extended) hex digits, found \(digits)")
        }
        let parsed = try makeID(at: start, digits: digits)
        var position = hashPosition + 1

        // Remote frame: R, R<len>, R<len>_<dlc>.
        if position < stop, bytes[position] == ASCII.upperR || bytes[position] == ASCII.lowerR {
            guard !parsed.isError else {
                throw fail(at: position, "an error frame cannot be a remote request")
            }
            position += 1
            var length = 0
            if position < stop, ASCII.isDigit(bytes[position]) {
                length = Int(bytes[position] - ASCII.zero)
                guard length <= 8 else {
                    throw fail(at: position, "remote request length must be 0...8, found \(length)")
                }
                position += 1
            }
            position = try skipLen8DLC(at: position, stop: stop, length: length)
            guard position == stop else {
                throw fail(at: position, "unexpected \(describe(position)) after the remote request")
            }
            return try makeFrame(parsed, data: Array(repeating: 0, count: length), kind: .classic, isRemote: true, column: hashPosition)
        }

        var kind = CANFrame.Kind.classic
        var maxLength = 8
        if position < stop, bytes[position] == ASCII.hash {
            guard !parsed.isError else {
                throw fail(at: position, "error frames are classic CAN frames, not CAN FD ('##')")
            }
            position += 1
            guard position < stop else {
                throw fail(at: position, "expected the CAN FD flags hex digit after '##'")
            }
            let flags = ASCII.hexValue(bytes[position])
            guard flags != 0xFF else {
                throw fail(at: position, "expected the CAN FD flags hex digit after '##', found \(describe(position))")
            }
            guard flags & 0x8 == 0 else {
                throw fail(at: position, "unknown CAN FD flags 0x\(String(flags, radix: 16, uppercase: true)): only BRS (1), ESI (2) and FDF (4) exist")
            }
            kind = .fd(bitRateSwitch: flags & 0x1 != 0, errorStateIndicator: flags & 0x2 != 0)
            maxLength = 64
            position += 1
        }

        let dataStart = position
        // Take the reusable buffer (uniquely referenced once the last frame is gone).
        var data: [UInt8] = []
        swap(&data, &storage)
        data.removeAll(keepingCapacity: true)
        data.reserveCapacity(min(maxLength, (stop - position) / 2))
        defer { storage = data }
        while true {
            if position < stop, bytes[position] == ASCII.dot { position += 1 }
            guard position < stop, bytes[position] != ASCII.underscore || kind != .classic else { break }
            let high = ASCII.hexValue(bytes[position])
            guard high != 0xFF else {
                throw fail(at: position, "expected a hex digit in the data, found \(describe(position))")
            }
            guard position + 1 < stop else {
                throw fail(at: position, "odd number of hex digits: data bytes need two hex digits each")
            }
            let low = ASCII.hexValue(bytes[position + 1])
            guard low != 0xFF else {
                if bytes[position + 1] == ASCII.dot || bytes[position + 1] == ASCII.underscore {
                    throw fail(at: position, "odd number of hex digits: data bytes need two hex digits each")
                }
                throw fail(at: position + 1, "expected a hex digit in the data, found \(describe(position + 1))")
            }
            guard data.count < maxLength else {
                throw fail(
                    at: position,
                    kind == .classic
                        ? "too many data bytes: classic CAN carries at most 8 (use '##' for CAN FD)"
                        : "too many data bytes: CAN FD carries at most 64")
            }
            data.append(high << 4 | low)
            position += 2
        }
        if kind == .classic {
            position = try skipLen8DLC(at: position, stop: stop, length: data.count)
        } else if !CANFrame.fdLengths.contains(data.count) {
            throw fail(at: dataStart, "\(data.count) bytes is not a valid CAN FD length (0-8, 12, 16, 20, 24, 32, 48, 64)")
        }
        guard position == stop else {
            throw fail(at: position, "unexpected \(describe(position)) in the data")
        }
        return try makeFrame(parsed, data: data, kind: kind, isRemote: false, column: dataStart)
    }

    /// An optional `_<dlc>` suffix (`_9`...`_F`), allowed only after 8 bytes.
    func skipLen8DLC(at position: Int, stop: Int, length: Int) throws(CandumpParseError) -> Int {
        guard position < stop, bytes[position] == ASCII.underscore else { return position }
        guard length == 8 else {
            throw fail(at: position, "a '_<dlc>' suffix needs exactly 8 data bytes, found \(length)")
        }
        let dlcPosition = position + 1
        let dlc = dlcPosition < stop ? ASCII.hexValue(bytes[dlcPosition]) : 0xFF
        guard dlc != 0xFF, dlc >= 9 else {
            throw fail(at: dlcPosition, "expected a raw DLC hex digit 9...F after '_', found \(describe(dlcPosition))")
        }
        return dlcPosition + 1
    }

    func makeFrame(_ parsed: ParsedID, data: [UInt8], kind: CANFrame.Kind, isRemote: Bool, column: Int) throws(CandumpParseError) -> CANFrame {
        do {
            return try CANFrame(id: parsed.id, data: data, kind: kind, isRemote: isRemote, isError: parsed.isError)
        } catch {
            throw fail(at: column, error.description)
        }
    }

    // MARK: human form

    /// `[RX|TX B|- E|-]  123   [4]  DE AD BE EF`, starting at `index` (after the interface).
    mutating func parseHumanFrame() throws(CandumpParseError) -> CANFrame {
        // -x: "RX B -" / "TX - E" (direction, BRS, ESI).
        var extraFlags: (brs: Bool, esi: Bool)?
        let firstEnd = tokenEnd(from: index)
        if tokenEquals(index, firstEnd, "RX") || tokenEquals(index, firstEnd, "TX") {
            index = firstEnd
            skipBlanks()
            let brs = try parseFlagMark(ASCII.upperB, name: "BRS")
            skipBlanks()
            let esi = try parseFlagMark(ASCII.upperE, name: "ESI")
            skipBlanks()
            extraFlags = (brs, esi)
        }

        // ID
        let idStart = index
        let idEnd = tokenEnd(from: idStart)
        let digits = hexRun(from: idStart, to: idEnd)
        if idStart + digits < idEnd {
            throw fail(at: idStart + digits, "expected a hex digit in the CAN ID, found \(describe(idStart + digits))")
        }
        var afterID = idEnd
        while afterID < end, ASCII.isBlank(bytes[afterID]) { afterID += 1 }
        if afterID == end, extraFlags == nil {
            // "vcan0 123DEADBEEF": a log line without its '#'.
            throw missingHash(tokenStart: idStart, tokenEnd: idEnd)
        }
        if digits > 8 {
            throw fail(at: idStart + 8, "CAN ID too long: \(digits) hex digits, at most 8")
        }
        guard digits == 3 || digits == 8 else {
            throw fail(at: idStart, "CAN ID must have 3 (standard) or 8 (extended) hex digits, found \(digits)")
        }
        let parsed = try makeID(at: idStart, digits: digits)
        index = afterID

        // Length: [n] classic, [nn] CAN FD, {X} classic with raw DLC.
        let lengthStart = index
        guard index < end, bytes[index] == ASCII.openBracket || bytes[index] == ASCII.openBrace else {
            throw fail(at: index, "expected '[' and the data length after the CAN ID, found \(describe(index))")
        }
        var isFD = false
        var length: Int
        if bytes[index] == ASCII.openBrace {
            index += 1
            let dlc = index < end ? ASCII.hexValue(bytes[index]) : 0xFF
            guard dlc != 0xFF, index + 1 < end, bytes[index + 1] == ASCII.closeBrace else {
                throw fail(at: index, "expected a raw DLC hex digit and '}', found \(describe(index))")
            }
            length = min(Int(dlc), 8)
            index += 2
        } else {
            index += 1
            let digitsStart = index
            length = 0
            while index < end, ASCII.isDigit(bytes[index]), index - digitsStart < 4 {
                length = length * 10 + Int(bytes[index] - ASCII.zero)
                index += 1
            }
            let lengthDigits = index - digitsStart
            guard lengthDigits > 0, index < end, bytes[index] == ASCII.closeBracket else {
                throw fail(at: index, "expected the data length digits and ']', found \(describe(index))")
            }
            switch lengthDigits {
            case 1:
                guard length <= 8 else {
                    throw fail(at: digitsStart, "classic CAN length must be 0...8, found \(length)")
                }
            case 2:
                guard CANFrame.fdLengths.contains(length) else {
                    throw fail(at: digitsStart, "\(length) is not a valid CAN FD length (0-8, 12, 16, 20, 24, 32, 48, 64)")
                }
                isFD = true
            default:
                throw fail(at: lengthStart, "a \(lengthDigits)-digit length is CAN XL, which is not supported")
            }
            index += 1
        }
        if isFD, parsed.isError {
            throw fail(at: lengthStart, "error frames are classic CAN frames, not CAN FD")
        }
        skipBlanks()

        // Remote request.
        let wordEnd = tokenEnd(from: index)
        if !isFD, tokenEquals(index, wordEnd, "remote") {
            var position = wordEnd
            while position < end, ASCII.isBlank(bytes[position]) { position += 1 }
            let requestEnd = tokenEnd(from: position)
            guard tokenEquals(position, requestEnd, "request") else {
                throw fail(at: position, "expected 'remote request'")
            }
            try expectEndOfLine(after: requestEnd)
            return try makeFrame(parsed, data: Array(repeating: 0, count: length), kind: .classic, isRemote: true, column: lengthStart)
        }

        // Data bytes: " XX" each.
        var data = [UInt8](repeating: 0, count: length)
        for byteIndex in 0..<length {
            guard index < end else {
                throw fail(at: index, "expected \(length) data bytes, found \(byteIndex)")
            }
            if byteIndex > 0 {
                guard ASCII.isBlank(bytes[index]) else {
                    throw fail(at: index, "expected a space between data bytes, found \(describe(index))")
                }
                skipBlanks()
            }
            let high = ASCII.hexValue(bytes[index])
            let low = index + 1 < end ? ASCII.hexValue(bytes[index + 1]) : 0xFF
            guard high != 0xFF else {
                throw fail(at: index, "expected a hex data byte, found \(describe(index))")
            }
            guard low != 0xFF, index + 2 == end || ASCII.isBlank(bytes[index + 2]) else {
                throw fail(at: index, "data bytes must be exactly two hex digits")
            }
            data[byteIndex] = high << 4 | low
            index += 2
        }

        // Trailing ERRORFRAME marker or -a ASCII view; anything else is an error.
        skipBlanks()
        if index < end {
            let trailerEnd = tokenEnd(from: index)
            let c = bytes[index]
            guard c == ASCII.quote || c == ASCII.backtick || tokenEquals(index, trailerEnd, "ERRORFRAME") else {
                throw fail(at: index, "unexpected text after \(length) data bytes")
            }
        }
        let kind: CANFrame.Kind =
            isFD
            ? .fd(bitRateSwitch: extraFlags?.brs ?? false, errorStateIndicator: extraFlags?.esi ?? false)
            : .classic
        return try makeFrame(parsed, data: data, kind: kind, isRemote: false, column: lengthStart)
    }

    /// One `-x` flag column: the letter, or '-'.
    mutating func parseFlagMark(_ letter: UInt8, name: String) throws(CandumpParseError) -> Bool {
        guard index < end, bytes[index] == letter || bytes[index] == ASCII.minus,
            index + 1 == end || ASCII.isBlank(bytes[index + 1])
        else {
            throw fail(at: index, "expected '\(Character(Unicode.Scalar(letter)))' or '-' for \(name), found \(describe(index))")
        }
        let set = bytes[index] == letter
        index += 1
        return set
    }
}
