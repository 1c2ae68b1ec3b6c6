/// carplayd's own E2E checksum (scheme `carplayd-e2e`, the example cars'): CRC-8 SAE J1850 --
/// initial value 0xFF, final XOR 0xFF -- over the data ID's low byte, its high byte, then
/// every payload byte but the checksum byte, in offset order. The counter (0...14) is
/// written first, so the CRC covers it.
///
/// It is not AUTOSAR E2E profile 1 in any data-ID mode, although it covers the same bytes
/// as P1's `both` mode: P1 starts the same polynomial at 0x00 and has no final XOR
/// (`AutosarE2EP1`), which gives a different CRC for every input.
enum CarplaydE2E {
    static let counterModulus = 15

    static func crc(_ payload: [UInt8], checksumByte: Int, dataID: UInt16) -> UInt8 {
        var crc = CRC8SAEJ1850()
        crc.update(byte: UInt8(truncatingIfNeeded: dataID))
        crc.update(byte: UInt8(truncatingIfNeeded: dataID >> 8))
        crc.update(payload[..<checksumByte])
        crc.update(payload[(checksumByte + 1)...])
        return crc.finalize()
    }
}
