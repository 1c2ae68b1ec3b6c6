/// CRC-16 CCITT as AUTOSAR's `Crc_CalculateCRC16` computes it (AUTOSAR E2E profile 5;
/// also known as CRC-16/CCITT-FALSE).
///
/// Polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR. Check value
/// over ASCII `"123456789"`: 0x29B1.
public struct CRC16CCITT: Hashable, Sendable {
    public static let polynomial: UInt16 = 0x1021
    public static let initialValue: UInt16 = 0xFFFF

    /// `table[i]`: the register after shifting `i << 8` through the polynomial.
    public static let table: [UInt16] = (0..<256).map { index in
        var value = UInt16(index) << 8
        for _ in 0..<8 {
            value = value & 0x8000 != 0 ? (value << 1) ^ polynomial : value << 1
        }
        return value
    }

    /// The running register (also the CRC: there is no final XOR).
    public private(set) var register: UInt16

    public init(startValue: UInt16 = CRC16CCITT.initialValue) {
        register = startValue
    }

    public mutating func update(byte: UInt8) {
        register = (register << 8) ^ Self.table[Int(UInt8(truncatingIfNeeded: register >> 8) ^ byte)]
    }

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = register
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
            }
        }
        register = crc
    }

    public func finalize() -> UInt16 {
        register
    }

    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc = CRC16CCITT()
        crc.update(bytes)
        return crc.finalize()
    }
}
