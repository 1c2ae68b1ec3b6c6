@testable import CANKit

// Shared by the protection tests: payload fields written as a DBC writes them, and the
// text of a configuration a scheme refuses.

func intel(_ startBit: Int, _ length: Int) -> PayloadField {
    PayloadField(startBit: startBit, length: length, byteOrder: .littleEndian)
}

func motorola(_ startBit: Int, _ length: Int) -> PayloadField {
    PayloadField(startBit: startBit, length: length, byteOrder: .bigEndian)
}

/// The text of `.invalidConfiguration`, nil when the configuration is accepted.
func configurationError(_ scheme: FrameProtection.Scheme, checksum: PayloadField?, counter: PayloadField?) -> String? {
    do {
        _ = try FrameProtection(scheme: scheme, checksum: checksum, counter: counter)
        return nil
    } catch {
        guard case let .invalidConfiguration(text) = error else { return "unexpected error \(error)" }
        return text
    }
}
