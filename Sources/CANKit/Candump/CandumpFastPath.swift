/// A classic data frame read from the common `candump -L` line, without building
/// a `CandumpRecord`: the ID and where the payload bytes were written.
public struct CandumpCompactFrame: Sendable, Hashable {
    public var id: CANID
    public var count: Int
}

extension CandumpReader {
    /// Reads the commonest line, `(1700000000.123456) vcan0 123#DEADBEEF` (also without
    /// timestamp and interface), writing the payload into `payload` (at least 8 bytes).
    /// Returns nil for anything else -- CAN FD, remote and error frames, `.`
    /// separators, the human format, comments, malformed lines -- and the caller then
    /// uses `parseLine`, which handles and reports all of those. For every line it
    /// accepts, the result equals `parseLine`'s (tested).
    @inline(__always)
    public static func scanCompactFrame(_ line: UnsafeBufferPointer<UInt8>, payload: UnsafeMutableBufferPointer<UInt8>) -> CandumpCompactFrame? {
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D || line[end - 1] == 0x20 || line[end - 1] == 0x09 { end -= 1 }
        var index = 0
        while index < end, line[index] == 0x20 { index += 1 }
        guard index < end, line[index] != 0x3B else { return nil }  // ";": a comment
        if line[index] == 0x28 {  // "(seconds.micro) "
            index += 1
            // parseLine's limits: 1...18 digits of seconds, 1...9 fractional digits.
            let digitsStart = index
            while index < end, line[index] &- 0x30 < 10 { index += 1 }
            guard index > digitsStart, index - digitsStart <= 18, index < end, line[index] == 0x2E else { return nil }
            index += 1
            let fractionStart = index
            while index < end, line[index] &- 0x30 < 10 { index += 1 }
            guard index > fractionStart, index - fractionStart <= 9, index < end, line[index] == 0x29 else { return nil }
            index += 1
            guard index < end, line[index] == 0x20 else { return nil }
            while index < end, line[index] == 0x20 { index += 1 }
        }
        // Either the interface then the frame, or the frame alone. A tab (parseLine's
        // other separator, and the mark of a `-e` detail line at the start) is left to parseLine.
        var tokenEnd = index
        var hash = -1
        while tokenEnd < end, line[tokenEnd] != 0x20 {
            if line[tokenEnd] == 0x09 { return nil }
            if hash < 0, line[tokenEnd] == 0x23 { hash = tokenEnd }
            tokenEnd += 1
        }
        if hash < 0 {
            guard tokenEnd > index, tokenEnd < end else { return nil }
            index = tokenEnd
            while index < end, line[index] == 0x20 { index += 1 }
            tokenEnd = index
            while tokenEnd < end, line[tokenEnd] != 0x20 {
                if line[tokenEnd] == 0x09 { return nil }
                if hash < 0, line[tokenEnd] == 0x23 { hash = tokenEnd }
                tokenEnd += 1
            }
            guard hash >= 0 else { return nil }
        }
        guard tokenEnd == end else { return nil }  // anything after the frame: let parseLine judge
        let digits = hash - index
        guard digits == 3 || digits == 8 else { return nil }
        var value: UInt32 = 0
        for position in index..<hash {
            let nibble = hexNibble(line[position])
            guard nibble < 16 else { return nil }
            value = value << 4 | UInt32(nibble)
        }
        guard let id = CANID(value, extended: digits == 8) else { return nil }  // incl. error-flag IDs
        var position = hash + 1
        let dataLength = end - position
        guard dataLength % 2 == 0, dataLength <= 16 else { return nil }
        var count = 0
        while position < end {
            let high = hexNibble(line[position])
            let low = hexNibble(line[position + 1])
            guard high < 16, low < 16 else { return nil }
            payload[count] = high << 4 | low
            count += 1
            position += 2
        }
        return CandumpCompactFrame(id: id, count: count)
    }

    @inline(__always)
    static func hexNibble(_ byte: UInt8) -> UInt8 {
        if byte &- 0x30 < 10 { return byte &- 0x30 }
        let lower = byte | 0x20
        if lower &- 0x61 < 6 { return lower &- 0x61 &+ 10 }
        return 0xFF
    }
}
