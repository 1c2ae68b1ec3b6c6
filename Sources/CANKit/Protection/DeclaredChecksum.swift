/// A checksum that no built-in scheme covers, declared in the profile (scheme `declared`):
/// an algorithm, the bytes it covers in their order, and whether the frame ID and the
/// payload length go in. The result, masked to the checksum signal's width, goes into that
/// signal.
///
/// The input, in this order: the length byte (`length == .before`), the frame ID bytes
/// (`frameIDPosition == .before`), the covered payload bytes, then the frame ID and the
/// length when they come `.after`. Then:
/// - `sum`: `init` plus every input byte, XOR `xorOut`;
/// - `xor`: `init` XOR every input byte, XOR `xorOut`;
/// - `crc8`, `crc16`: the usual parametrised CRC (the "Rocksoft" model of CRC catalogues:
///   `polynomial` without its top bit, `init` in the register, `reflectIn`, `reflectOut`,
///   `xorOut`).
///
/// Every field is a plain value (no array): a scheme's payload stays inline, as `DataIDs`
/// explains.
public struct DeclaredChecksum: Hashable, Sendable {
    public enum Algorithm: String, Hashable, Sendable, CaseIterable {
        case sum, xor, crc8, crc16

        /// The register's width in bits; the widest checksum signal it can fill.
        public var width: Int {
            switch self {
            case .xor, .crc8: 8
            case .sum, .crc16: 16
            }
        }

        public var isCRC: Bool { self == .crc8 || self == .crc16 }
    }

    /// Where the frame ID or the length goes relative to the payload bytes.
    public enum Position: String, Hashable, Sendable, CaseIterable {
        case before, after
    }

    /// The order the covered payload bytes go in: forward (first byte first) or reverse
    /// (last byte first, the comma body's order).
    public enum ByteOrder: String, Hashable, Sendable, CaseIterable {
        case forward, reverse
    }

    /// The order of the frame ID's bytes: little (low byte first) or big.
    public enum FrameIDOrder: String, Hashable, Sendable, CaseIterable {
        case little, big
    }

    /// What becomes of the checksum signal's own bits inside the covered bytes.
    public enum ChecksumBits: String, Hashable, Sendable, CaseIterable {
        /// The bytes the checksum touches are left out (what most cars do).
        case skip
        /// The checksum's bits read as 0 and the rest of its bytes count (a 4-bit checksum
        /// beside a counter in one byte, as PSA's).
        case zero
    }

    public var algorithm: Algorithm
    public var polynomial: UInt16 = 0
    public var initial: UInt16 = 0
    public var xorOut: UInt16 = 0
    public var reflectIn = false
    public var reflectOut = false
    /// The first and last covered payload byte; negative numbers count from the end (-1 is
    /// the last byte), so one declaration fits every length of a message.
    public var firstByte = 0
    public var lastByte = -1
    public var byteOrder = ByteOrder.forward
    public var checksumBits = ChecksumBits.skip
    /// How many bytes of the frame ID go in (0...4), in `frameIDOrder`.
    public var frameIDBytes = 0
    public var frameIDOrder = FrameIDOrder.little
    public var frameIDPosition = Position.before
    /// The payload length as one byte, or nil for none.
    public var length: Position?

    public init(algorithm: Algorithm) {
        self.algorithm = algorithm
    }

    /// The checksum of `payload` for `field` (its value masked to the field's width).
    func checksum(_ payload: [UInt8], frameID: UInt32, field: PayloadField) -> UInt64 {
        var data = payload
        if checksumBits == .zero { field.write(0, into: &data) }
        let count = data.count
        let first = max(firstByte < 0 ? count + firstByte : firstByte, 0)
        let last = min(lastByte < 0 ? count + lastByte : lastByte, count - 1)
        var covered: [UInt8] = []
        if first <= last {
            for index in first...last where checksumBits == .zero || !field.bytes.contains(index) {
                covered.append(data[index])
            }
        }
        if byteOrder == .reverse { covered.reverse() }
        var id = (0..<frameIDBytes).map { UInt8(truncatingIfNeeded: frameID >> UInt32(8 * $0)) }
        if frameIDOrder == .big { id.reverse() }
        var input: [UInt8] = []
        if length == .before { input.append(UInt8(truncatingIfNeeded: count)) }
        if frameIDPosition == .before { input += id }
        input += covered
        if frameIDPosition == .after { input += id }
        if length == .after { input.append(UInt8(truncatingIfNeeded: count)) }

        let value: UInt64
        switch algorithm {
        case .sum: value = input.reduce(UInt64(initial)) { $0 + UInt64($1) } ^ UInt64(xorOut)
        case .xor: value = input.reduce(UInt64(initial)) { $0 ^ UInt64($1) } ^ UInt64(xorOut)
        case .crc8, .crc16: value = crc(input)
        }
        return value & field.mask
    }

    /// Bit by bit: the polynomial is the profile's, and a table per declared message would
    /// copy the built-in ones; frames are at most 64 bytes.
    func crc(_ bytes: [UInt8]) -> UInt64 {
        let width = UInt64(algorithm.width)
        let top: UInt64 = 1 << (width - 1)
        let mask: UInt64 = (1 << width) - 1
        var register = UInt64(initial) & mask
        for byte in bytes {
            register ^= UInt64(reflectIn ? Self.reflect(UInt64(byte), bits: 8) : UInt64(byte)) << (width - 8)
            for _ in 0..<8 {
                register = register & top != 0 ? ((register << 1) ^ UInt64(polynomial)) & mask : (register << 1) & mask
            }
        }
        if reflectOut { register = Self.reflect(register, bits: Int(width)) }
        return (register ^ UInt64(xorOut)) & mask
    }

    static func reflect(_ value: UInt64, bits: Int) -> UInt64 {
        var result: UInt64 = 0
        for bit in 0..<bits where value & (1 << UInt64(bit)) != 0 {
            result |= 1 << UInt64(bits - 1 - bit)
        }
        return result
    }
}
