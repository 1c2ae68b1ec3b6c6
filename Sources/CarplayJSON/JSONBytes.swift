/// Appends JSON text to a byte buffer without building intermediate strings: strings,
/// and numbers as Python writes them. `JSONValue` writes through it, and so does the
/// frame decoder, which writes a million objects a second.
public enum JSONBytes {
    /// The order object members are written in: UTF-8 byte order, which is Unicode
    /// scalar order (what Python's `sort_keys` gives), compared on the bytes in place.
    public static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        let inPlace = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                for index in 0..<min(left.count, right.count) where left[index] != right[index] {
                    return left[index] < right[index]
                }
                return left.count < right.count
            }
        }
        return (inPlace ?? nil) ?? lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    /// A JSON string literal, escaped: the only string escaper of the project.
    public static func appendString(_ text: String, to buffer: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendString(utf8: $0, to: &buffer) }
    }

    /// UTF-8 text as a JSON string literal (quotes, escapes), copying the runs that need
    /// no escape in one piece (names and candump lines nearly always are one run).
    public static func appendString(utf8 bytes: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        buffer.append(0x22)
        var runStart = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            guard needsEscape(byte) else { continue }
            if runStart < index { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
            runStart = index + 1
            switch byte {
            case 0x22: buffer.append(contentsOf: [0x5C, 0x22])
            case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: buffer.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: buffer.append(contentsOf: [0x5C, 0x72])
            case 0x09: buffer.append(contentsOf: [0x5C, 0x74])
            default: buffer.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
            }
        }
        if runStart < bytes.count { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
        buffer.append(0x22)
    }

    /// Whether a byte of UTF-8 text is written escaped in a JSON string (a control
    /// character, `"` or `\`); every other byte goes as it is.
    public static func needsEscape(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The most bytes `writeDouble` or `writeInteger` write (an Int128 takes 40).
    public static let maxNumberLength = 48

    /// A number as Python's json module writes it (`repr`), with its non-standard
    /// `NaN` / `Infinity` / `-Infinity`, which Python's json.loads reads back.
    public static func appendDouble(_ value: Double, to buffer: inout [UInt8]) {
        withNumberSpace {
            writeDouble(value, to: $0)
        } append: {
            buffer.append(contentsOf: $0)
        }
    }

    /// `appendDouble` into memory with room for `maxNumberLength` bytes; returns the count.
    @inline(__always)
    public static func writeDouble(_ value: Double, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let short = writeShortFixed(value, to: destination)
        if short > 0 { return short }
        if value.isNaN { return copy("NaN", to: destination) }
        if value.isInfinite { return copy(value < 0 ? "-Infinity" : "Infinity", to: destination) }
        return copy(PythonFloat.repr(value), to: destination)
    }

    /// Python's `repr` of a float written straight into `destination` (32 bytes of room),
    /// for the common case: 1e-4 <= |value| < 1e15 (Python's fixed notation) or zero,
    /// with a shortest round-trip form of at most 15 significant digits. Returns the
    /// count, or 0 (nothing written) for every other value.
    ///
    /// Why it is exact: for d = 0, 1, 2, ... it takes n = round(|value| * 10^d) and keeps
    /// the first d for which n / 10^d (one correctly rounded division of two exactly
    /// representable numbers: the nearest double to the decimal n·10^-d, what Python's
    /// `float()` reads) gives back |value|. The smallest such d is the fewest digits;
    /// with at most 15 significant digits the candidates of one d lie further apart
    /// than the doubles next to |value|, so at most one round-trips (no tie for Python
    /// to break), and the product's rounding error (< 0.25) cannot move n off it.
    /// `PythonFloatTests` compares it with the general path on about 40,000 values.
    @inline(__always)
    public static func writeShortFixed(_ value: Double, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let magnitude = value.magnitude
        var n: Int64 = 0
        var decimals = 0
        if magnitude != 0 {
            guard magnitude >= 1e-4, magnitude < 1e15 else { return 0 }
            var scale = 1.0
            while true {
                let scaled = magnitude * scale
                guard scaled < 1e15 else { return 0 }
                // Signed conversions: the hardware's own, each way on x86-64.
                n = Int64(scaled + 0.5)  // round half up: the tie cannot matter (see above)
                let candidate = Double(n)
                // A candidate that round-trips lies within half an ulp of the product plus
                // half an ulp of |value| times 10^d of `scaled`, together at most
                // 2^-52 * scaled (the subtraction is exact: both are within a factor 2).
                // Twice that rejects nearly every other d without the division, which then
                // decides exactly.
                if (scaled - candidate).magnitude <= scaled * 0x1p-51, candidate / scale == magnitude { break }
                decimals += 1
                scale *= 10  // exact up to 1e22; here at most 1e19
            }
        } else if value.isNaN {
            return 0
        }
        // Sign, up to 15 digits, point, up to 18 decimals: at most 21 bytes; written
        // backwards from byte 32, then moved to the front.
        var position = 32
        var digits = UInt64(n)
        if decimals == 0 {
            position -= 1; destination[position] = 0x30
        } else {
            for _ in 0..<decimals {
                position -= 1
                destination[position] = 0x30 &+ UInt8(truncatingIfNeeded: digits % 10)
                digits /= 10
            }
        }
        position -= 1; destination[position] = 0x2E
        repeat {
            position -= 1
            destination[position] = 0x30 &+ UInt8(truncatingIfNeeded: digits % 10)
            digits /= 10
        } while digits > 0
        if value.sign == .minus {
            position -= 1; destination[position] = 0x2D
        }
        let length = 32 - position
        // A plain loop: at most 21 bytes, where a memmove call would cost more.
        for index in 0..<length { destination[index] = destination[position + index] }
        return length
    }

    public static func appendInteger(_ value: Int, to buffer: inout [UInt8]) {
        appendInteger(Int64(value), to: &buffer)
    }

    public static func appendInteger(_ value: UInt32, to buffer: inout [UInt8]) {
        appendInteger(Int64(value), to: &buffer)
    }

    public static func appendInteger(_ value: Int64, to buffer: inout [UInt8]) {
        withNumberSpace {
            writeInteger(value, to: $0)
        } append: {
            buffer.append(contentsOf: $0)
        }
    }

    public static func appendInteger(_ value: Int128, to buffer: inout [UInt8]) {
        withNumberSpace {
            writeInteger(value, to: $0)
        } append: {
            buffer.append(contentsOf: $0)
        }
    }

    /// A decimal integer into memory with room for 20 bytes; returns the count.
    @inline(__always)
    public static func writeInteger(_ value: Int64, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        var magnitude = value.magnitude
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes >= the 20 digits of UInt64.max
        return withUnsafeMutableBytes(of: &scratch) { raw in
            var count = 0
            repeat {
                raw[count] = 0x30 &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            var written = 0
            if value < 0 {
                destination[0] = 0x2D
                written = 1
            }
            var index = count - 1
            while index >= 0 {
                destination[written] = raw[index]
                written += 1
                index -= 1
            }
            return written
        }
    }

    /// A decimal integer into memory with room for `maxNumberLength` bytes; returns the count.
    @inline(__always)
    public static func writeInteger(_ value: Int128, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        if let small = Int64(exactly: value) { return writeInteger(small, to: destination) }
        // Beyond 64 bits (rare): the standard library's conversion.
        return copy(String(value), to: destination)
    }

    private static func copy(_ text: String, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        var count = 0
        for byte in text.utf8 {
            destination[count] = byte
            count += 1
        }
        return count
    }

    @inline(__always)
    private static func withNumberSpace(_ write: (UnsafeMutablePointer<UInt8>) -> Int, append: (UnsafeBufferPointer<UInt8>) -> Void) {
        var space: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &space) { raw in
            let pointer = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let count = write(pointer)
            append(UnsafeBufferPointer(start: pointer, count: count))
        }
    }
}
