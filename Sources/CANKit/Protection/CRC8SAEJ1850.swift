/// CRC-8 SAE J1850 as AUTOSAR's `Crc_CalculateCRC8` computes it.
///
/// Polynomial 0x1D (x^8 + x^4 + x^3 + x^2 + 1), initial value 0xFF, no
/// reflection, final XOR 0xFF. Check value over ASCII `"123456789"`: 0x4B.
///
/// Incremental use:
///
/// ```swift
/// var crc = CRC8SAEJ1850()          // register = initialValue
/// crc.update(header)
/// crc.update(payload)
/// let value = crc.finalize()        // register ^ finalXOR
/// ```
///
/// One shot: `CRC8SAEJ1850.checksum(bytes)`.
public struct CRC8SAEJ1850: Hashable, Sendable {
    public static let polynomial: UInt8 = 0x1D
    public static let initialValue: UInt8 = 0xFF
    public static let finalXOR: UInt8 = 0xFF

    /// The 256-entry lookup table, built once: `table[i]` is the CRC register
    /// after shifting the byte `i` through the polynomial.
    public static let table: [UInt8] = (0..<256).map { index in
        var value = UInt8(index)
        for _ in 0..<8 {
            value = value & 0x80 != 0 ? (value << 1) ^ polynomial : value << 1
        }
        return value
    }

    /// The running register (before the final XOR).
    public private(set) var register: UInt8

    /// Starts a computation; `startValue` is the register's initial content
    /// (0xFF for SAE J1850).
    public init(startValue: UInt8 = CRC8SAEJ1850.initialValue) {
        register = startValue
    }

    /// Feeds one byte.
    public mutating func update(byte: UInt8) {
        register = Self.table[Int(register ^ byte)]
    }

    /// Feeds bytes in order.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = register
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int(crc ^ byte)]
            }
        }
        register = crc
    }

    /// The CRC of everything fed so far (the register XOR 0xFF). Does not
    /// change the state, so more bytes may be fed afterwards.
    public func finalize() -> UInt8 {
        register ^ Self.finalXOR
    }

    /// One-shot CRC of `bytes`.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt8 {
        var crc = CRC8SAEJ1850()
        crc.update(bytes)
        return crc.finalize()
    }
}
