/// The data-ID bytes of AUTOSAR E2E profile 2 and VW MQB, one per counter value, held
/// inline (two words and a count), not as an array: an array's pointer inside
/// `FrameProtection.Scheme`'s payload carries the enum's tag in its spare bits, where
/// LeakSanitizer (the fuzz targets) no longer recognises it and reports the table leaked.
public struct DataIDs: Hashable, Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
    private let low: UInt64
    private let high: UInt64
    /// How many bytes were given (a valid table has 16; the first 16 are kept).
    public let count: Int

    public init(_ bytes: some Collection<UInt8>) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        for (index, byte) in bytes.prefix(16).enumerated() {
            if index < 8 { low |= UInt64(byte) << UInt64(8 * index) } else { high |= UInt64(byte) << UInt64(8 * (index - 8)) }
        }
        self.low = low
        self.high = high
        self.count = bytes.count
    }

    public init(arrayLiteral elements: UInt8...) { self.init(elements) }

    /// The byte for `counter` (0...15).
    public subscript(counter: Int) -> UInt8 {
        let index = counter & 0x0F
        return UInt8(truncatingIfNeeded: (index < 8 ? low : high) >> UInt64(8 * (index % 8)))
    }

    public var bytes: [UInt8] { (0..<min(count, 16)).map { self[$0] } }

    public var description: String { bytes.description }
}
