/// Appends JSON text to a byte buffer without building intermediate strings: the
/// decoder tool writes a million objects a second through this.
public enum JSONBytes {
    /// A JSON string literal, escaped.
    public static func appendString(_ text: String, to buffer: inout [UInt8]) {
        buffer.append(0x22)
        for byte in text.utf8 {
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

    public static func appendInteger<T: BinaryInteger>(_ value: T, to buffer: inout [UInt8]) {
        if value == 0 {
            buffer.append(0x30)
            return
        }
        var magnitude = value.magnitude
        if value < 0 { buffer.append(0x2D) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            while magnitude > 0 {
                raw[count] = 0x30 + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { buffer.append(raw[index]) }
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
