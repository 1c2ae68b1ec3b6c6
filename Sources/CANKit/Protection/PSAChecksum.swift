/// PSA (Stellantis AEE2010), as commaai/opendbc's `psa_checksum` (opendbc/car/psa/psacan.py)
/// computes it: every payload nibble but the checksum's own, summed and subtracted from a
/// start value of the frame ID, modulo 16. opendbc knows three start values; every other
/// message starts at 0xB. The checksum nibble shares its byte with the counter in some
/// messages, so only the nibble is left out.
enum PSAChecksum {
    static func checksum(_ payload: [UInt8], frameID: UInt32, checksumField: PayloadField) -> UInt8 {
        var sum = 0
        for byte in payload {
            sum += Int(byte & 0x0F) + Int(byte >> 4)
        }
        sum -= Int(checksumField.read(payload))
        return UInt8((Int(start(frameID: frameID)) - sum) & 0x0F)
    }

    static func start(frameID: UInt32) -> UInt8 {
        switch frameID {
        case 0x452: 0x4
        case 0x38D: 0x7
        case 0x42D: 0xC
        default: 0xB
        }
    }
}
