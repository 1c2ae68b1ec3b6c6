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
        // Written on the stack and appended once: an append per byte cost more than the
        // rest of a reply's frames (each checks the array's uniqueness and capacity).
        let capacity = 32 + (record.interface?.utf8.count ?? 0) + 1 + compactLength(record.frame)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            var line = LineWriter(scratch)
            if let timestamp = record.timestamp {
                line.byte(0x28)  // (
                if timestamp.seconds < 0 { line.byte(0x2D) }
                line.decimal(timestamp.seconds.magnitude, minimumDigits: 10)
                line.byte(0x2E)  // .
                line.decimal(UInt64(timestamp.microseconds), minimumDigits: 6)
                line.byte(0x29)  // )
                line.byte(0x20)
            }
            if let interface = record.interface {
                for byte in interface.utf8 { line.byte(byte) }
                line.byte(0x20)
            }
            line.compactFrame(record.frame)
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<line.count]))
        }
    }

    /// Appends `compactFrame(frame)`.
    public static func appendCompactFrame(_ frame: CANFrame, to buffer: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: compactLength(frame)) { scratch in
            var line = LineWriter(scratch)
            line.compactFrame(frame)
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<line.count]))
        }
    }

    /// A payload as candump writes it after the `#`: two uppercase hex digits a byte.
    public static func payload(_ data: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: 2 * data.count) { scratch in
            var line = LineWriter(scratch)
            line.payload(data)
            return line.count
        }
    }

    /// The most bytes `compactFrame` writes: an 8-digit ID, `##` and a flag digit, the data.
    private static func compactLength(_ frame: CANFrame) -> Int { 12 + 2 * frame.data.count }

    /// Writes forward into a buffer sized beforehand.
    private struct LineWriter {
        let bytes: UnsafeMutableBufferPointer<UInt8>
        var count = 0

        init(_ bytes: UnsafeMutableBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func byte(_ value: UInt8) {
            bytes[count] = value
            count += 1
        }

        mutating func hex(_ value: UInt64, digits: Int) {
            var shift = (digits - 1) * 4
            while shift >= 0 {
                byte(CandumpWriter.hexDigit(Int((value >> UInt64(shift)) & 0xF)))
                shift -= 4
            }
        }

        mutating func decimal(_ value: UInt64, minimumDigits: Int) {
            var digits = 1
            var scale: UInt64 = 1
            while value / scale >= 10 {
                scale *= 10
                digits += 1
            }
            for _ in digits..<max(digits, minimumDigits) { byte(0x30) }
            while scale > 0 {
                byte(0x30 + UInt8(value / scale % 10))
                scale /= 10
            }
        }

        mutating func payload(_ data: [UInt8]) {
            for value in data {
                byte(CandumpWriter.hexDigit(Int(value >> 4)))
                byte(CandumpWriter.hexDigit(Int(value & 0x0F)))
            }
        }

        mutating func compactFrame(_ frame: CANFrame) {
            if frame.isError {
                hex(UInt64(frame.id.rawValue | 0x2000_0000), digits: 8)
            } else {
                hex(UInt64(frame.id.rawValue), digits: frame.id.isExtended ? 8 : 3)
            }
            byte(0x23)  // #
            switch frame.kind {
            case .classic:
                if frame.isRemote {
                    byte(0x52)  // R
                    if (1...8).contains(frame.data.count) { byte(0x30 + UInt8(frame.data.count)) }
                    return
                }
            case let .fd(bitRateSwitch, errorStateIndicator):
                byte(0x23)  // #
                byte(CandumpWriter.hexDigit((bitRateSwitch ? 1 : 0) | (errorStateIndicator ? 2 : 0)))
            }
            payload(frame.data)
        }
    }

    private static func hexDigit(_ value: Int) -> UInt8 { value < 10 ? 0x30 + UInt8(value) : 0x37 + UInt8(value) }
}
