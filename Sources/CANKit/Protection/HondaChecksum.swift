/// Honda's 4-bit checksum, as commaai/opendbc's `honda_checksum` (opendbc/car/honda/
/// hondacan.py) computes it: the sum of every nibble of the frame ID and of every payload
/// nibble except the checksum's own, subtracted from 8; frame IDs above 0x7FF (extended)
/// add 3; the low 4 bits are the checksum. Honda puts it in the low nibble of the last
/// byte, next to a 2-bit counter that the sum covers.
enum HondaChecksum {
    static func checksum(_ payload: [UInt8], frameID: UInt32, checksumField: PayloadField) -> UInt8 {
        var sum = 0
        var address = frameID
        while address != 0 {
            sum += Int(address & 0x0F)
            address >>= 4
        }
        for byte in payload {
            sum += Int(byte & 0x0F) + Int(byte >> 4)
        }
        // The checksum's nibble is not part of its own sum.
        sum -= Int(checksumField.read(payload))
        var result = 8 - sum
        if frameID > 0x7FF { result += 3 }
        return UInt8(result & 0x0F)
    }
}
