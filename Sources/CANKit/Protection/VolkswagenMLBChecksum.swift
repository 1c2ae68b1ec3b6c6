/// Volkswagen MLB, as commaai/opendbc's `volkswagen_mlb_checksum` (opendbc/car/volkswagen/
/// mlbcan.py) computes it: some messages carry PQ's XOR checksum from a start value of
/// their own (`XORChecksum`), the others MQB's CRC with their data IDs
/// (`VolkswagenMQBChecksum`). opendbc decides by frame ID; a profile names the variant
/// (or lets the loader take opendbc's tables, `VolkswagenDataIDs`).
public enum VolkswagenMLBVariant: Hashable, Sendable {
    case xor(start: UInt8)
    case crc(dataIDs: DataIDs)
}

enum VolkswagenMLBChecksum {
    static func checksum(_ payload: [UInt8], checksumByte: Int, variant: VolkswagenMLBVariant, counter: UInt8) -> UInt8 {
        switch variant {
        case let .xor(start): XORChecksum.checksum(payload, checksumByte: checksumByte, start: start)
        case let .crc(dataIDs): VolkswagenMQBChecksum.crc(payload, checksumByte: checksumByte, dataIDs: dataIDs, counter: counter)
        }
    }
}
