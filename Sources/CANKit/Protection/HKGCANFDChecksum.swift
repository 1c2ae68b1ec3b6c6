/// Hyundai/Kia CAN FD, as commaai/opendbc's `hkg_can_fd_checksum` (opendbc/car/hyundai/
/// hyundaicanfd.py) computes it: CRC-16/XMODEM (CRC-16 CCITT's polynomial from 0, no final
/// XOR) over every payload byte but the two checksum bytes, then the frame ID's low and
/// high byte, XORed with a constant of the payload length. Stored low byte first in bytes
/// 0...1, before an 8-bit counter that the CRC covers.
///
/// The layout is AUTOSAR E2E profile 5's with the frame ID as data ID; only the start value
/// and the length constant differ, so the table is `CRC16CCITT`'s.
enum HKGCANFDChecksum {
    static func checksum(_ payload: [UInt8], frameID: UInt32, checksumBytes: ClosedRange<Int>) -> UInt16 {
        var crc = CRC16CCITT(startValue: 0)
        crc.update(payload[..<checksumBytes.lowerBound])
        crc.update(payload[(checksumBytes.upperBound + 1)...])
        crc.update(byte: UInt8(truncatingIfNeeded: frameID))
        crc.update(byte: UInt8(truncatingIfNeeded: frameID >> 8))
        return crc.finalize() ^ lengthXOR(payload.count)
    }

    /// The CAN FD lengths Hyundai uses; other lengths get none (as in opendbc).
    static func lengthXOR(_ length: Int) -> UInt16 {
        switch length {
        case 8: 0x5F29
        case 16: 0x041D
        case 24: 0x819D
        case 32: 0x9F5B
        default: 0
        }
    }
}
