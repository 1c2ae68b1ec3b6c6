/// Subaru Global, as commaai/opendbc's `subaru_checksum` (opendbc/car/subaru/subarucan.py)
/// computes it: every byte of the frame ID plus every payload byte from byte 1 on, modulo
/// 256. Byte 0 is never summed, wherever the checksum is: in `Steering` (0x002) the checksum
/// is byte 4 and byte 0 is left out all the same. carplayd leaves the checksum byte out too,
/// which is what opendbc's packer computes (it sums that byte while it is still 0);
/// opendbc's parser sums the received checksum and so rejects those frames.
enum SubaruChecksum {
    static func checksum(_ payload: [UInt8], frameID: UInt32, checksumByte: Int) -> UInt8 {
        var sum: UInt8 = 0
        var address = frameID
        while address != 0 {
            sum &+= UInt8(truncatingIfNeeded: address)
            address >>= 8
        }
        for (index, byte) in payload.enumerated() where index != 0 && index != checksumByte {
            sum &+= byte
        }
        return sum
    }
}
