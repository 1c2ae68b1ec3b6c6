import TestSupport
import Testing

@testable import CANKit

/// Bit-by-bit CRC-8 (poly 0x1D, init 0xFF, xorout 0xFF), written independently
/// of the table-driven implementation.
private func referenceCRC8(_ bytes: [UInt8]) -> UInt8 {
    var crc: UInt8 = 0xFF
    for byte in bytes {
        for bit in (0..<8).reversed() {
            let inBit = (byte >> UInt8(bit)) & 1
            let topBit = crc >> 7
            crc <<= 1
            if inBit ^ topBit == 1 { crc ^= 0x1D }
        }
    }
    return crc ^ 0xFF
}

@Suite struct CRC8Tests {
    @Test func checkValue() {
        let ascii = Array("123456789".utf8)
        #expect(CRC8SAEJ1850.checksum(ascii) == 0x4B)
        #expect(referenceCRC8(ascii) == 0x4B)
    }

    /// The sample results from the AUTOSAR CRC specification (SWS_Crc, 8-bit SAE J1850).
    @Test(
        arguments: [
            ([0x00, 0x00, 0x00, 0x00], 0x59),
            ([0xF2, 0x01, 0x83], 0x37),
            ([0x0F, 0xAA, 0x00, 0x55], 0x79),
            ([0x00, 0xFF, 0x55, 0x11], 0xB8),
            ([0x33, 0x22, 0x55, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF], 0xCB),
            ([0x92, 0x6B, 0x55], 0x8C),
            ([0xFF, 0xFF, 0xFF, 0xFF], 0x74),
        ] as [([UInt8], UInt8)])
    func autosarVectors(input: [UInt8], expected: UInt8) {
        #expect(referenceCRC8(input) == expected)
        #expect(CRC8SAEJ1850.checksum(input) == expected)
    }

    @Test func tableMatchesBitwiseReferenceOnManyInputs() {
        var generator = SplitMix64(seed: 0xC0FFEE)
        for length in 0..<40 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            #expect(CRC8SAEJ1850.checksum(bytes) == referenceCRC8(bytes), "length \(length)")
        }
        #expect(CRC8SAEJ1850.checksum([]) == 0x00)
        #expect(CRC8SAEJ1850.table.count == 256)
        #expect(CRC8SAEJ1850.table[1] == 0x1D)
    }

    @Test func incrementalEqualsOneShot() {
        let bytes = Array("123456789".utf8)
        var crc = CRC8SAEJ1850()
        crc.update(bytes[..<4])
        crc.update(byte: bytes[4])
        crc.update(bytes[5...])
        #expect(crc.finalize() == 0x4B)
        #expect(crc.finalize() == 0x4B, "finalize does not change the state")
    }
}
