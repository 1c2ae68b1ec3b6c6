/// Toyota's 8-bit checksum, as commaai/opendbc's `toyota_checksum` (opendbc/car/toyota/
/// toyotacan.py) computes it: the payload length plus every byte of the frame ID plus
/// every payload byte but the checksum byte, modulo 256. Toyota puts it in the last byte.
enum ToyotaChecksum {
    static func checksum(_ payload: [UInt8], frameID: UInt32, checksumByte: Int) -> UInt8 {
        var sum = UInt8(truncatingIfNeeded: payload.count)
        var address = frameID
        while address != 0 {
            sum &+= UInt8(truncatingIfNeeded: address)
            address >>= 8
        }
        for (index, byte) in payload.enumerated() where index != checksumByte {
            sum &+= byte
        }
        return sum
    }
}
