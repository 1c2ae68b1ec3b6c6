/// How AUTOSAR E2E profile 1 folds its 16-bit data ID into the CRC (`E2E_P01DataIDMode`).
/// The raw values are the profile schema's `dataIDMode` names.
public enum AutosarP1DataIDMode: String, Hashable, Sendable, CaseIterable {
    /// Low byte, then high byte (`E2E_P01_DATAID_BOTH`).
    case both
    /// The low byte when the counter is even, the high byte when it is odd (`..._ALT`).
    case alt
    /// The low byte only (`..._LOW`).
    case low
    /// The low byte, then a zero byte; the high byte's low nibble is sent in the frame, in
    /// the other nibble of the counter's byte (`..._NIBBLE`). The data ID has 12 bits.
    case nibble
}

/// AUTOSAR E2E profile 1, as the autosar-e2e package (`e2e.p01`) computes it:
/// CRC-8 SAE J1850 started at 0x00 with no final XOR (AUTOSAR chains
/// `Crc_CalculateCRC8(..., 0xFF, FALSE)` calls and XORs the result with 0xFF once more),
/// over the data-ID bytes of the mode, then every payload byte but the CRC byte in offset
/// order. The 4-bit counter runs 0...14; the CRC covers it.
enum AutosarE2EP1 {
    static let counterModulus = 15

    static func crc(_ payload: [UInt8], checksumByte: Int, dataID: UInt16, mode: AutosarP1DataIDMode, counter: UInt8) -> UInt8 {
        let low = UInt8(truncatingIfNeeded: dataID)
        let high = UInt8(truncatingIfNeeded: dataID >> 8)
        var crc = CRC8SAEJ1850(startValue: 0x00)
        switch mode {
        case .both:
            crc.update(byte: low)
            crc.update(byte: high)
        case .alt:
            crc.update(byte: counter % 2 == 0 ? low : high)
        case .low:
            crc.update(byte: low)
        case .nibble:
            crc.update(byte: low)
            crc.update(byte: 0x00)
        }
        crc.update(payload[..<checksumByte])
        crc.update(payload[(checksumByte + 1)...])
        return crc.register
    }

    /// What the nibble mode sends: the low nibble of the data ID's high byte.
    static func dataIDNibble(_ dataID: UInt16) -> UInt8 {
        UInt8(truncatingIfNeeded: dataID >> 8) & 0x0F
    }
}
