/// Tesla Model 3 (the party bus), as commaai/opendbc's `tesla_checksum` (opendbc/car/tesla/
/// teslacan.py) computes it: the frame ID's low and high byte plus every payload byte but
/// the checksum byte, modulo 256. Unlike Toyota's, no length and only two ID bytes (Tesla's
/// IDs are standard); the checksum byte sits at byte 0, 2, 3 or 7.
enum TeslaChecksum {
    static func checksum(_ payload: [UInt8], frameID: UInt32, checksumByte: Int) -> UInt8 {
        var sum = UInt8(truncatingIfNeeded: frameID) &+ UInt8(truncatingIfNeeded: frameID >> 8)
        for (index, byte) in payload.enumerated() where index != checksumByte {
            sum &+= byte
        }
        return sum
    }
}
