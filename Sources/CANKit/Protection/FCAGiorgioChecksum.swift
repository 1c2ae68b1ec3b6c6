/// FCA Giorgio (Alfa Romeo), as commaai/opendbc's `fca_giorgio_checksum` (opendbc/car/
/// chrysler/chryslercan.py) computes it: SAE J1850's polynomial from 0x00 over every
/// payload byte but the checksum byte (the last one), then a final XOR that depends on the
/// frame ID. opendbc knows three; every other message XORs 0x0A.
enum FCAGiorgioChecksum {
    static func checksum(_ payload: [UInt8], frameID: UInt32, checksumByte: Int) -> UInt8 {
        var crc = CRC8SAEJ1850(startValue: 0)
        crc.update(payload[..<checksumByte])
        crc.update(payload[(checksumByte + 1)...])
        return crc.register ^ finalXOR(frameID: frameID)
    }

    static func finalXOR(frameID: UInt32) -> UInt8 {
        switch frameID {
        case 0x0DE: 0x10  // EPS_1
        case 0x106: 0xF6  // EPS_2
        case 0x122: 0xF1  // EPS_3
        default: 0x0A
        }
    }
}
