/// CRC-8H2F as AUTOSAR's `Crc_CalculateCRC8H2F` computes it (AUTOSAR E2E profile 2,
/// VW MQB).
///
/// Polynomial 0x2F (x^8 + x^5 + x^3 + x^2 + x + 1), initial value 0xFF, no reflection,
/// final XOR 0xFF. Check value over ASCII `"123456789"`: 0xDF. Used like `CRC8SAEJ1850`:
/// `update` as often as needed, then `finalize`.
public struct CRC8H2F: Hashable, Sendable {
    public static let polynomial: UInt8 = 0x2F
    public static let initialValue: UInt8 = 0xFF
    public static let finalXOR: UInt8 = 0xFF

    /// `table[i]`: the register after shifting the byte `i` through the polynomial.
    public static let table: [UInt8] = (0..<256).map { index in
        var value = UInt8(index)
        for _ in 0..<8 {
            value = value & 0x80 != 0 ? (value << 1) ^ polynomial : value << 1
        }
        return value
    }

    /// The running register (before the final XOR).
    public private(set) var register: UInt8

    public init(startValue: UInt8 = CRC8H2F.initialValue) {
        register = startValue
    }

    public mutating func update(byte: UInt8) {
        register = Self.table[Int(register ^ byte)]
    }

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = register
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int(crc ^ byte)]
            }
        }
        register = crc
    }

    /// The CRC so far (register XOR 0xFF); the state is unchanged.
    public func finalize() -> UInt8 {
        register ^ Self.finalXOR
    }

    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt8 {
        var crc = CRC8H2F()
        crc.update(bytes)
        return crc.finalize()
    }
}
