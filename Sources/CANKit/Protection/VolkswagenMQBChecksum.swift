/// Volkswagen MQB/MEB, as commaai/opendbc's `volkswagen_mqb_meb_checksum` (opendbc/car/
/// volkswagen/mqbcan.py) computes it: CRC-8H2F (initial 0xFF, final XOR 0xFF) over the
/// payload after the checksum byte 0, then the data-ID byte of the counter (the low nibble
/// of byte 1) from a 16-entry list per message (opendbc's `VOLKSWAGEN_MQB_MEB_CONSTANTS`;
/// some messages use one byte for all 16 counters).
///
/// That is AUTOSAR E2E profile 2 in its standard layout (opendbc's tests say so too), so
/// the computation is `AutosarE2EP2`'s; the scheme keeps its own name because profiles for
/// VW name it that way and VW's data-ID lists come from a different place.
enum VolkswagenMQBChecksum {
    static func crc(_ payload: [UInt8], checksumByte: Int, dataIDs: DataIDs, counter: UInt8) -> UInt8 {
        AutosarE2EP2.crc(payload, checksumByte: checksumByte, dataIDs: dataIDs, counter: counter)
    }
}
