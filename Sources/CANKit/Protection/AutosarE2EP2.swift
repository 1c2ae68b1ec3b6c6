/// AUTOSAR E2E profile 2, as the autosar-e2e package (`e2e.p02`) computes it: CRC-8H2F
/// (initial 0xFF, final XOR 0xFF) over every payload byte but the CRC byte in offset order,
/// then one byte of the 16-entry data-ID list, the one the 4-bit counter (0...15) selects.
///
/// AUTOSAR fixes the CRC in byte 0 and the counter in the low nibble of byte 1; then "every
/// byte but the CRC byte" is bytes 1..., exactly the package's input. A profile may put the
/// fields elsewhere; the CRC still skips only its own byte.
enum AutosarE2EP2 {
    static func crc(_ payload: [UInt8], checksumByte: Int, dataIDs: DataIDs, counter: UInt8) -> UInt8 {
        var crc = CRC8H2F()
        crc.update(payload[..<checksumByte])
        crc.update(payload[(checksumByte + 1)...])
        crc.update(byte: dataIDs[Int(counter & 0x0F)])
        return crc.finalize()
    }
}
