/// Appends JSON text to a byte buffer without building intermediate strings: the
/// decoder tool writes a million objects a second through this.
public enum JSONBytes {
    /// A JSON string literal, escaped.
    public static func appendString(_ text: String, to buffer: inout [UInt8]) {
        // Fast path: nothing to escape (names and choices nearly always).
        var utf8 = text.utf8
        let plain: Bool? = utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where byte < 0x20 || byte == 0x22 || byte == 0x5C { return false }
            buffer.append(0x22)
            buffer.append(contentsOf: bytes)
            buffer.append(0x22)
            return true
        }
        if plain == true { return }
        if plain == nil {
            var copy = text
            copy.makeContiguousUTF8()
            utf8 = copy.utf8
        }
        buffer.append(0x22)
        for byte in utf8 {
            switch byte {
            case 0x22: buffer.append(contentsOf: [0x5C, 0x22])
            case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: buffer.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: buffer.append(contentsOf: [0x5C, 0x72])
            case 0x09: buffer.append(contentsOf: [0x5C, 0x74])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                buffer.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: buffer.append(byte)
            }
        }
        buffer.append(0x22)
    }

    /// A number as Python's json module writes it (`repr`), with its non-standard
    /// `NaN` / `Infinity` / `-Infinity`, which Python's json.loads reads back.
    public static func appendDouble(_ value: Double, to buffer: inout [UInt8]) {
        if value.isNaN {
            buffer.append(contentsOf: Array("NaN".utf8))
        } else if value.isInfinite {
            buffer.append(contentsOf: Array((value < 0 ? "-Infinity" : "Infinity").utf8))
        } else {
            buffer.append(contentsOf: PythonFloat.repr(value).utf8)
        }
    }

    public static func appendInteger(_ value: Int, to buffer: inout [UInt8]) {
        appendInteger(Int64(value), to: &buffer)
    }

    public static func appendInteger(_ value: UInt32, to buffer: inout [UInt8]) {
        appendInteger(Int64(value), to: &buffer)
    }

    public static func appendInteger(_ value: Int64, to buffer: inout [UInt8]) {
        if value < 0 { buffer.append(0x2D) }
        appendMagnitude(value.magnitude, to: &buffer)
    }

    public static func appendInteger(_ value: Int128, to buffer: inout [UInt8]) {
        if let small = Int64(exactly: value) {
            appendInteger(small, to: &buffer)
        } else {
            // Beyond 64 bits (rare): the standard library's conversion.
            buffer.append(contentsOf: String(value).utf8)
        }
    }

    @inline(__always)
    private static func appendMagnitude(_ value: UInt64, to buffer: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes >= the 20 digits of UInt64.max
        var magnitude = value
        var count = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                raw[count] = 0x30 + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            var index = count - 1
            while index >= 0 {
                buffer.append(raw[index])
                index -= 1
            }
        }
    }

    /// A decoded signal value: a number, or a choice's name as a string.
    public static func appendValue(_ value: SignalValue, to buffer: inout [UInt8]) {
        switch value {
        case let .integer(number): appendInteger(number, to: &buffer)
        case let .float(number): appendDouble(number, to: &buffer)
        case let .choice(name, _): appendString(name, to: &buffer)
        }
    }
}
