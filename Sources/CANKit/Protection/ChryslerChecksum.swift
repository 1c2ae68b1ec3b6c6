/// Chrysler (CUSW and the Pacifica/RAM buses), as commaai/opendbc's `chrysler_checksum`
/// (opendbc/car/chrysler/chryslercan.py) computes it bit by bit: CRC-8 SAE J1850 (initial
/// value and final XOR 0xFF) over every payload byte but the checksum byte, which is the
/// last one.
enum ChryslerChecksum {
    static func checksum(_ payload: [UInt8], checksumByte: Int) -> UInt8 {
        var crc = CRC8SAEJ1850()
        crc.update(payload[..<checksumByte])
        crc.update(payload[(checksumByte + 1)...])
        return crc.finalize()
    }
}
