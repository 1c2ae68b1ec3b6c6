/// Where an unsigned value of 1...64 bits sits in a payload, numbered as DBC files and
/// cantools (and so `MessageCodec`) number signals:
///
/// - Intel (`@1`, `.littleEndian`): the start bit is the least significant bit; bit `b`
///   is bit `b % 8` of byte `b / 8`, and the value grows towards higher bit numbers.
/// - Motorola (`@0`, `.bigEndian`): the start bit is the most significant bit in DBC's
///   sawtooth numbering (bit 7 of byte 0 is 7, its bit 0 is 0, bit 7 of byte 1 is 15);
///   the value continues into the lower bits of that byte, then bit 7 of the next byte.
///
/// Protection schemes read and write their checksum and counter through this type, so a
/// profile names them as the DBC signals they are.
public struct PayloadField: Hashable, Sendable {
    public let startBit: Int
    public let length: Int
    public let byteOrder: DBCByteOrder
    /// First and last payload byte the field touches.
    let firstByte: Int
    let lastByte: Int
    /// Right shift of the assembled bytes (little-endian for Intel, big-endian for
    /// Motorola) that brings the field's least significant bit to bit 0: for a field in
    /// one byte, the bit number of its LSB within that byte.
    let shift: Int

    /// `length` must be 1...64 and `startBit` not negative: every DBC signal the parser
    /// accepts is (it refuses longer integer signals and negative start bits).
    public init(startBit: Int, length: Int, byteOrder: DBCByteOrder) {
        precondition((1...64).contains(length), "a payload field has 1...64 bits, not \(length)")
        precondition(startBit >= 0, "a payload field's start bit is not negative (\(startBit))")
        self.startBit = startBit
        self.length = length
        self.byteOrder = byteOrder
        switch byteOrder {
        case .littleEndian:
            firstByte = startBit / 8
            lastByte = (startBit + length - 1) / 8
            shift = startBit % 8
        case .bigEndian:
            // Positions in network order (MSB0: byte * 8 + 7 - bit), where the field is contiguous.
            let first = 8 * (startBit / 8) + (7 - startBit % 8)
            let last = first + length - 1
            firstByte = first / 8
            lastByte = last / 8
            shift = 7 - last % 8
        }
    }

    /// The field of a DBC signal (its raw bits; scale, offset and sign are not applied).
    public init(_ signal: DBCSignal) {
        self.init(startBit: signal.startBit, length: signal.length, byteOrder: signal.byteOrder)
    }

    /// The payload bytes the field touches.
    public var bytes: ClosedRange<Int> { firstByte...lastByte }

    var mask: UInt64 { length == 64 ? .max : (1 << UInt64(length)) - 1 }

    /// True when the field is one whole byte (8 bits, byte-aligned).
    var isWholeByte: Bool { length == 8 && firstByte == lastByte }

    /// True when the field is one whole nibble: bits 0...3 or 4...7 of one byte.
    var isNibble: Bool { length == 4 && firstByte == lastByte && shift % 4 == 0 }

    /// True when the field shares at least one bit with `other`.
    func overlaps(_ other: PayloadField) -> Bool {
        guard bytes.overlaps(other.bytes) else { return false }
        let mine = Set(bitNumbers())
        return other.bitNumbers().contains { mine.contains($0) }
    }

    /// Absolute bit numbers (byte * 8 + bit, bit 0 the LSB of its byte) of the field.
    func bitNumbers() -> [Int] {
        // LSB's absolute number, then upwards in value order.
        (0..<length).map { index in
            switch byteOrder {
            case .littleEndian:
                return startBit + index
            case .bigEndian:
                let msb0 = lastByte * 8 + 7 - shift - index
                return 8 * (msb0 / 8) + 7 - msb0 % 8
            }
        }
    }

    /// The field's value. Bytes past the end of `payload` read as 0 (a short frame must not
    /// trap; callers check the length first where it matters).
    public func read(_ payload: [UInt8]) -> UInt64 {
        // A field inside one byte (every counter and 8-bit checksum of the shipped cars):
        // read on every protected frame, so without the 128-bit assembly.
        if firstByte == lastByte {
            guard firstByte < payload.count else { return 0 }
            return UInt64(payload[firstByte] >> UInt8(shift)) & mask
        }
        return UInt64(truncatingIfNeeded: assembled(payload) >> UInt128(shift)) & mask
    }

    /// Writes the low `length` bits of `value`; every other bit of `payload` is left as it
    /// was. Bytes past the end of `payload` are not written.
    public func write(_ value: UInt64, into payload: inout [UInt8]) {
        if firstByte == lastByte {
            guard firstByte < payload.count else { return }
            let fieldMask = UInt8(truncatingIfNeeded: mask) << UInt8(shift)
            payload[firstByte] = (payload[firstByte] & ~fieldMask) | (UInt8(truncatingIfNeeded: value & mask) << UInt8(shift))
            return
        }
        let fieldMask = UInt128(mask) << UInt128(shift)
        let merged = (assembled(payload) & ~fieldMask) | ((UInt128(value & mask) << UInt128(shift)) & fieldMask)
        let count = lastByte - firstByte + 1
        for offset in 0..<count {
            let index = firstByte + offset
            guard index < payload.count else { continue }
            // Intel: byte firstByte holds the lowest bits; Motorola: the highest.
            let position = byteOrder == .littleEndian ? offset : count - 1 - offset
            payload[index] = UInt8(truncatingIfNeeded: merged >> UInt128(8 * position))
        }
    }

    /// The touched bytes as one number (at most 9 bytes: 64 bits plus a shift of 7).
    private func assembled(_ payload: [UInt8]) -> UInt128 {
        var value: UInt128 = 0
        let count = lastByte - firstByte + 1
        for offset in 0..<count {
            let index = firstByte + offset
            let byte = index < payload.count ? UInt128(payload[index]) : 0
            let position = byteOrder == .littleEndian ? offset : count - 1 - offset
            value |= byte << UInt128(8 * position)
        }
        return value
    }
}
