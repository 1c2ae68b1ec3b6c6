/// Hex text <-> bytes for test data ("0a1B" <-> [0x0A, 0x1B]).
public func hexBytes(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

/// Two hex digits per byte, `uppercase` or not.
public func hexString(_ bytes: [UInt8], uppercase: Bool = false) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16, uppercase: uppercase)
        return digits.count == 1 ? "0" + digits : digits
    }.joined()
}
