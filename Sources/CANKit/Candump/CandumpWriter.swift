/// Writes candump log lines the way can-utils does (`candump -L` / `-l`,
/// `sprint_canframe` without separators):
///
/// - `(%010ld.%06ld) ` timestamp: seconds zero-padded to 10 digits, exactly 6
///   fractional digits; omitted when the record has no timestamp;
/// - the interface name and a space; omitted when the record has none;
/// - ID: `%03X` standard, `%08X` extended, `%08X` of `CAN_ERR_FLAG | class` for error frames;
/// - classic: `#` + data as uppercase hex pairs;
/// - remote: `#R`, or `#R<len>` when the requested length is 1...8;
/// - CAN FD: `##` + one hex digit of flags (BRS = 1, ESI = 2) + data.
///   (Kernels that set CANFD_FDF make newer candump print `##4`/`##5`; we
///   write the flags without FDF like can-utils 2020.11, and read both.)
///
/// No line terminator is added by `logLine`; `append(_:to:)` adds `\n`.
public enum CandumpWriter {
    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// `(1700000000.000100) vcan0 123#DEADBEEF`
    public static func logLine(_ record: CandumpRecord) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(40 + 2 * record.frame.data.count)
        appendLogLine(record, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The cansend form of a frame: `123#DEADBEEF`, `123##1DEADBEEF`, `123#R`.
    public static func compactFrame(_ frame: CANFrame) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12 + 2 * frame.data.count)
        appendCompactFrame(frame, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `logLine(record)` and `\n` to `buffer` (for bulk output).
    public static func append(_ record: CandumpRecord, to buffer: inout [UInt8]) {
        appendLogLine(record, to: &buffer)
        buffer.append(0x0A)
    }

    /// Appends `logLine(record)` without a terminator.
    public static func appendLogLine(_ record: CandumpRecord, to buffer: inout [UInt8]) {
        if let timestamp = record.timestamp {
            buffer.append(0x28)  // (
            if timestamp.seconds < 0 { buffer.append(0x2D) }
            appendDecimal(timestamp.seconds.magnitude, minimumDigits: 10, to: &buffer)
            buffer.append(0x2E)  // .
            appendDecimal(UInt64(timestamp.microseconds), minimumDigits: 6, to: &buffer)
            buffer.append(0x29)  // )
            buffer.append(0x20)
        }
        if let interface = record.interface {
            buffer.append(contentsOf: interface.utf8)
            buffer.append(0x20)
        }
        appendCompactFrame(record.frame, to: &buffer)
    }

    /// Appends `compactFrame(frame)`.
    public static func appendCompactFrame(_ frame: CANFrame, to buffer: inout [UInt8]) {
        if frame.isError {
            appendHex(UInt64(frame.id.rawValue | 0x2000_0000), digits: 8, to: &buffer)
        } else {
            appendHex(UInt64(frame.id.rawValue), digits: frame.id.isExtended ? 8 : 3, to: &buffer)
        }
        buffer.append(0x23)  // #
        switch frame.kind {
        case .classic:
            if frame.isRemote {
                buffer.append(0x52)  // R
                if (1...8).contains(frame.data.count) {
                    buffer.append(0x30 + UInt8(frame.data.count))
                }
                return
            }
        case let .fd(bitRateSwitch, errorStateIndicator):
            buffer.append(0x23)  // #
            buffer.append(hexDigits[(bitRateSwitch ? 1 : 0) | (errorStateIndicator ? 2 : 0)])
        }
        appendPayload(frame.data, to: &buffer)
    }

    /// A payload as candump writes it after the `#`: two uppercase hex digits a byte.
    public static func payload(_ data: [UInt8]) -> String {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(data.count * 2)
        appendPayload(data, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    private static func appendPayload(_ data: [UInt8], to buffer: inout [UInt8]) {
        for byte in data {
            buffer.append(hexDigits[Int(byte >> 4)])
            buffer.append(hexDigits[Int(byte & 0x0F)])
        }
    }

    private static func appendHex(_ value: UInt64, digits: Int, to buffer: inout [UInt8]) {
        var shift = (digits - 1) * 4
        while shift >= 0 {
            buffer.append(hexDigits[Int((value >> UInt64(shift)) & 0xF)])
            shift -= 4
        }
    }

    private static func appendDecimal(_ value: UInt64, minimumDigits: Int, to buffer: inout [UInt8]) {
        var scratch:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &scratch) { digits in
            repeat {
                digits[count] = 0x30 + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            while count < minimumDigits {
                digits[count] = 0x30
                count += 1
            }
            for position in stride(from: count - 1, through: 0, by: -1) {
                buffer.append(digits[position])
            }
        }
    }
}
