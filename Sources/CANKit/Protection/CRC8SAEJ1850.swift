/// A CRC-8 as AUTOSAR's Crc library computes it: no reflection, initial value 0xFF,
/// final XOR 0xFF, one polynomial per variant (`CRC8Polynomial`). Every variant the
/// protection schemes use shares this one table-driven implementation; schemes with
/// another initial value or final XOR start from `init(startValue:)` and read `register`.
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
public struct CRC8<Variant: CRC8Polynomial>: Hashable, Sendable {
    public static var polynomial: UInt8 { Variant.polynomial }
    public static var initialValue: UInt8 { 0xFF }
    public static var finalXOR: UInt8 { 0xFF }

    /// The 256-entry lookup table, built once per variant: `table[i]` is the register
    /// after shifting the byte `i` through the polynomial.
    public static var table: [UInt8] { Variant.table }

    /// The running register (before the final XOR).
    public private(set) var register: UInt8

    /// Starts a computation; `startValue` is the register's initial content (0xFF; AUTOSAR
    /// E2E profile 1 chains from 0x00).
    public init(startValue: UInt8 = 0xFF) {
        register = startValue
    }

    /// Feeds one byte.
    public mutating func update(byte: UInt8) {
        register = Variant.table[Int(register ^ byte)]
    }

    /// Feeds bytes in order.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = register
        Variant.table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int(crc ^ byte)]
            }
        }
        register = crc
    }

    /// The CRC of everything fed so far (the register XOR 0xFF). Does not change the
    /// state, so more bytes may be fed afterwards.
    public func finalize() -> UInt8 {
        register ^ Self.finalXOR
    }

    /// One-shot CRC of `bytes`.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt8 {
        var crc = CRC8()
        crc.update(bytes)
        return crc.finalize()
    }
}

/// A CRC-8 variant: its polynomial and the lookup table made from it.
public protocol CRC8Polynomial: Sendable {
    static var polynomial: UInt8 { get }
    static var table: [UInt8] { get }
}

extension CRC8Polynomial {
    static func makeTable() -> [UInt8] {
        (0..<256).map { index in
            var value = UInt8(index)
            for _ in 0..<8 {
                value = value & 0x80 != 0 ? (value << 1) ^ polynomial : value << 1
            }
            return value
        }
    }
}

/// SAE J1850: polynomial 0x1D (x^8 + x^4 + x^3 + x^2 + 1); check value over ASCII
/// `"123456789"`: 0x4B. carplayd's E2E and AUTOSAR E2E profile 1.
public enum SAEJ1850: CRC8Polynomial {
    public static let polynomial: UInt8 = 0x1D
    public static let table = makeTable()
}

/// 8H2F: polynomial 0x2F (x^8 + x^5 + x^3 + x^2 + x + 1); check value over ASCII
/// `"123456789"`: 0xDF. AUTOSAR E2E profile 2 and VW MQB.
public enum H2F: CRC8Polynomial {
    public static let polynomial: UInt8 = 0x2F
    public static let table = makeTable()
}

/// Polynomial 0xD5 (x^8 + x^7 + x^6 + x^4 + x^2 + 1): the comma body's checksum
/// (`BodyChecksum`), initial value 0xFF and no final XOR; over ASCII `"123456789"` so: 0x7C.
public enum D5: CRC8Polynomial {
    public static let polynomial: UInt8 = 0xD5
    public static let table = makeTable()
}

public typealias CRC8SAEJ1850 = CRC8<SAEJ1850>
public typealias CRC8H2F = CRC8<H2F>
public typealias CRC8D5 = CRC8<D5>
