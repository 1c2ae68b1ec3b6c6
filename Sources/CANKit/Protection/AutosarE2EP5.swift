/// AUTOSAR E2E profile 5, as the autosar-e2e package (`e2e.p05`) computes it: CRC-16 CCITT
/// (initial 0xFFFF, no final XOR) over every payload byte but the two CRC bytes in offset
/// order, then the data ID's low byte and its high byte. The CRC is stored little-endian
/// (low byte first) and the 8-bit counter runs 0...255; the CRC covers it.
enum AutosarE2EP5 {
    static func crc(_ payload: [UInt8], checksumBytes: ClosedRange<Int>, dataID: UInt16) -> UInt16 {
        var crc = CRC16CCITT()
        crc.update(payload[..<checksumBytes.lowerBound])
        crc.update(payload[(checksumBytes.upperBound + 1)...])
        crc.update(byte: UInt8(truncatingIfNeeded: dataID))
        crc.update(byte: UInt8(truncatingIfNeeded: dataID >> 8))
        return crc.finalize()
    }
}
