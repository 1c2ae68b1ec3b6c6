/// Volkswagen PQ (scheme `xor`), as commaai/opendbc's `xor_checksum` (opendbc/car/
/// volkswagen/mqbcan.py) computes it: every payload byte but the checksum byte XORed
/// together, from a start value (0 for PQ; VW MLB's XOR messages have one per frame ID,
/// `VolkswagenMLBChecksum`). The checksum byte's place varies by message (0, 3 or 7).
enum XORChecksum {
    static func checksum(_ payload: [UInt8], checksumByte: Int, start: UInt8 = 0) -> UInt8 {
        var result = start
        for (index, byte) in payload.enumerated() where index != checksumByte {
            result ^= byte
        }
        return result
    }
}
