/// The comma body, as commaai/opendbc's `body_checksum` (opendbc/car/body/bodycan.py)
/// computes it: CRC-8 with polynomial 0xD5 from 0xFF, no final XOR, over the payload bytes
/// before the checksum byte (the last one) from the last of them back to byte 0.
enum BodyChecksum {
    static func checksum(_ payload: [UInt8], checksumByte: Int) -> UInt8 {
        var crc = CRC8D5()
        crc.update(payload[(checksumByte + 1)...].reversed())
        crc.update(payload[..<checksumByte].reversed())
        return crc.register
    }
}
