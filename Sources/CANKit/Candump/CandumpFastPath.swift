/// A data frame read from the common `candump -L` line, without building a
/// `CandumpRecord`: the ID, how many payload bytes were written, and the frame kind.
public struct CandumpCompactFrame: Sendable, Hashable {
    public var id: CANID
    public var count: Int
    public var kind: CANFrame.Kind = .classic
}

extension CandumpReader {
    /// Reads the commonest lines, `(1700000000.123456) vcan0 123#DEADBEEF` and the CAN FD
    /// `... 123##1DEADBEEF` (also without timestamp and interface), writing the payload
    /// into `payload` (at least 8 bytes; CAN FD lines need 64, else they are left to
    /// `parseLine`). Returns nil for anything else -- remote and error frames, `.`
    /// separators, the human format, comments, malformed lines -- and the caller then
    /// uses `parseLine`, which handles and reports all of those. For every line it
    /// accepts, the result equals `parseLine`'s (tested).
    @inline(__always)
    public static func scanCompactFrame(_ line: UnsafeBufferPointer<UInt8>, payload: UnsafeMutableBufferPointer<UInt8>) -> CandumpCompactFrame? {
        // Unchecked pointer reads: every index below is checked against `end` (<= line.count) first.
        guard let base = line.baseAddress, payload.count >= 8, let out = payload.baseAddress else { return nil }
        var end = line.count
        while end > 0, base[end - 1] == 0x0A || base[end - 1] == 0x0D || base[end - 1] == 0x20 || base[end - 1] == 0x09 { end -= 1 }
        var index = 0
        while index < end, base[index] == 0x20 { index += 1 }
        guard index < end, base[index] != 0x3B else { return nil }  // ";": a comment
        if base[index] == 0x28 {  // "(seconds.micro) "
            index += 1
            // parseLine's limits: 1...18 digits of seconds, 1...9 fractional digits.
            let digitsStart = index
            while index < end, base[index] &- 0x30 < 10 { index += 1 }
            guard index > digitsStart, index - digitsStart <= 18, index < end, base[index] == 0x2E else { return nil }
            index += 1
            let fractionStart = index
            while index < end, base[index] &- 0x30 < 10 { index += 1 }
            guard index > fractionStart, index - fractionStart <= 9, index < end, base[index] == 0x29 else { return nil }
            index += 1
            guard index < end, base[index] == 0x20 else { return nil }
            while index < end, base[index] == 0x20 { index += 1 }
        }
        // Either the interface then the frame, or the frame alone. A tab (parseLine's
        // other separator, and the mark of a `-e` detail line at the start) is left to parseLine.
        var tokenEnd = index
        var hash = -1
        while tokenEnd < end, base[tokenEnd] != 0x20 {
            if base[tokenEnd] == 0x09 { return nil }
            if hash < 0, base[tokenEnd] == 0x23 { hash = tokenEnd }
            tokenEnd += 1
        }
        if hash < 0 {
            guard tokenEnd > index, tokenEnd < end else { return nil }
            index = tokenEnd
            while index < end, base[index] == 0x20 { index += 1 }
            tokenEnd = index
            while tokenEnd < end, base[tokenEnd] != 0x20 {
                if base[tokenEnd] == 0x09 { return nil }
                if hash < 0, base[tokenEnd] == 0x23 { hash = tokenEnd }
                tokenEnd += 1
            }
            guard hash >= 0 else { return nil }
        }
        guard tokenEnd == end else { return nil }  // anything after the frame: let parseLine judge
        let digits = hash - index
        guard digits == 3 || digits == 8 else { return nil }
        let table = hexTable
        // Nibbles OR-ed together: any non-hex digit sets bit 4 (the table gives 0xFF for it).
        var value: UInt32 = 0
        var invalid: UInt8 = 0
        for position in index..<hash {
            let nibble = table[Int(base[position])]
            invalid |= nibble
            value = value << 4 | UInt32(nibble & 0x0F)
        }
        guard invalid < 16, let id = CANID(value, extended: digits == 8) else { return nil }  // incl. error-flag IDs
        var position = hash + 1
        var kind = CANFrame.Kind.classic
        var maxLength = 16
        if position < end, base[position] == 0x23 {  // "##F": CAN FD and its flags digit
            guard position + 1 < end, payload.count >= 64 else { return nil }
            let flags = table[Int(base[position + 1])]
            guard flags < 8 else { return nil }  // not hex, or a flag that does not exist
            kind = .fd(bitRateSwitch: flags & 0x1 != 0, errorStateIndicator: flags & 0x2 != 0)
            maxLength = 128
            position += 2
        }
        let dataLength = end - position
        guard dataLength & 1 == 0, dataLength <= maxLength else { return nil }
        if maxLength == 128, !CANFrame.fdLengths.contains(dataLength >> 1) { return nil }
        var count = 0
        while position < end {
            let high = table[Int(base[position])]
            let low = table[Int(base[position + 1])]
            invalid |= high | low
            out[count] = high << 4 | (low & 0x0F)
            count += 1
            position += 2
        }
        guard invalid < 16 else { return nil }
        return CandumpCompactFrame(id: id, count: count, kind: kind)
    }

    /// Hex digit values by byte; 0xFF for anything that is not a hex digit.
    private static let hexTable: HexTable = HexTable()

    @inline(__always)
    static func hexNibble(_ byte: UInt8) -> UInt8 {
        if byte &- 0x30 < 10 { return byte &- 0x30 }
        let lower = byte | 0x20
        if lower &- 0x61 < 6 { return lower &- 0x61 &+ 10 }
        return 0xFF
    }
}

/// A 256-entry lookup of hex digit values, in memory this value owns for the process's
/// lifetime (a static); `@unchecked Sendable`: written only in `init`, read-only after.
struct HexTable: @unchecked Sendable {
    private let table: UnsafeMutablePointer<UInt8>

    init() {
        table = .allocate(capacity: 256)
        table.initialize(repeating: 0xFF, count: 256)
        for byte in 0..<256 {
            let nibble = CandumpReader.hexNibble(UInt8(byte))
            if nibble < 16 { table[byte] = nibble }
        }
    }

    @inline(__always)
    subscript(_ byte: Int) -> UInt8 { table[byte] }
}
