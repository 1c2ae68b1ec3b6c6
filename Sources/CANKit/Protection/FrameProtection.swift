/// Errors of a protection's configuration or of a call to `protect`.
///
/// `invalidConfiguration`'s text names the profile's keys (`checksum`, `counter`,
/// `dataID`, `dataIDs`) and the scheme; the profile loader puts the JSON path before it.
public enum FrameProtectionError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidConfiguration(String)
    /// The payload does not reach the checksum or the counter.
    case payloadTooShort(required: Int, actual: Int)
    /// The counter is not one of the scheme's `0..<modulus` values.
    case invalidCounter(UInt8, modulus: Int)

    public var description: String {
        switch self {
        case let .invalidConfiguration(reason): reason
        case let .payloadTooShort(required, actual): "a payload of \(actual) bytes is shorter than the \(required) bytes its checksum and counter need"
        case let .invalidCounter(counter, modulus): "counter \(counter) is outside 0...\(modulus - 1)"
        }
    }
}

/// How one message's frames are protected: which scheme, and where its checksum and
/// counter live (DBC signals of the message, as `PayloadField`s). The sender side
/// (`protect`) and what the receiver side (`FrameChecker`) compares against.
///
/// Adding a car's checksum: one file with its computation (like `HondaChecksum`), a
/// `Scheme` case, its rules in `validate` and its arm in `checksum(of:frameID:)`.
public struct FrameProtection: Hashable, Sendable {
    public enum Scheme: Hashable, Sendable {
        /// A rolling counter of 1...8 bits (0...2^n-1), no checksum.
        case counter
        /// carplayd's own E2E (`CarplaydE2E`, the example cars'): CRC-8 SAE J1850 over the
        /// data ID and the payload, 4-bit counter 0...14.
        case carplaydE2E(dataID: UInt16)
        /// AUTOSAR E2E profile 1 (`AutosarE2EP1`), 4-bit counter 0...14.
        case autosarP1(dataID: UInt16, mode: AutosarP1DataIDMode)
        /// AUTOSAR E2E profile 2 (`AutosarE2EP2`): 16 data-ID bytes, 4-bit counter 0...15.
        case autosarP2(dataIDs: DataIDs)
        /// AUTOSAR E2E profile 5 (`AutosarE2EP5`): 16-bit CRC, 8-bit counter.
        case autosarP5(dataID: UInt16)
        /// Volkswagen MQB (`VolkswagenMQBChecksum`): 16 data-ID bytes, 4-bit counter 0...15.
        case vwMQB(dataIDs: DataIDs)
        /// Honda's nibble sum (`HondaChecksum`), optional counter.
        case honda
        /// Toyota's byte sum (`ToyotaChecksum`), optional counter.
        case toyota
        /// Hyundai/Kia CAN FD's CRC-16 (`HKGCANFDChecksum`), optional counter.
        case hkgCANFD
        /// VW MLB: PQ's XOR from a start value, or MQB's CRC (`VolkswagenMLBChecksum`).
        case vwMLB(VolkswagenMLBVariant)
        /// VW PQ's XOR of the payload (`XORChecksum`), optional counter.
        case xor
        /// Subaru Global's byte sum (`SubaruChecksum`), optional counter.
        case subaru
        /// Chrysler's CRC-8 SAE J1850 (`ChryslerChecksum`), optional counter.
        case chrysler
        /// FCA Giorgio's CRC-8 with a final XOR per frame ID (`FCAGiorgioChecksum`).
        case fcaGiorgio
        /// The comma body's CRC-8 0xD5 over the payload backwards (`BodyChecksum`).
        case body
        /// Tesla's byte sum with the frame ID (`TeslaChecksum`), optional counter.
        case tesla
        /// PSA's nibble sum from a start value per frame ID (`PSAChecksum`).
        case psa
        /// A checksum the profile declares (`DeclaredChecksum`), optional counter.
        case declared(DeclaredChecksum)

        /// The profile schema's name of the scheme.
        public var name: String {
            switch self {
            case .counter: "counter"
            case .carplaydE2E: "carplayd-e2e"
            case .autosarP1: "autosar-p1"
            case .autosarP2: "autosar-p2"
            case .autosarP5: "autosar-p5"
            case .vwMQB: "vw-mqb"
            case .honda: "honda"
            case .toyota: "toyota"
            case .hkgCANFD: "hkg-can-fd"
            case .vwMLB: "vw-mlb"
            case .xor: "xor"
            case .subaru: "subaru"
            case .chrysler: "chrysler"
            case .fcaGiorgio: "fca-giorgio"
            case .body: "body"
            case .tesla: "tesla"
            case .psa: "psa"
            case .declared: "declared"
            }
        }
    }

    public let scheme: Scheme
    public let checksum: PayloadField?
    public let counter: PayloadField?

    /// Checks that the scheme gets the fields it needs, of the widths and places its
    /// computation assumes; throws `.invalidConfiguration` saying what is wrong.
    public init(scheme: Scheme, checksum: PayloadField?, counter: PayloadField?) throws(FrameProtectionError) {
        try Self.validate(scheme: scheme, checksum: checksum, counter: counter)
        self.scheme = scheme
        self.checksum = checksum
        self.counter = counter
    }

    // MARK: - Counter

    /// How many counter values are valid: 15 for carplayd-e2e and AUTOSAR P1 (0...14;
    /// 15 is never sent), 2^width otherwise, 1 without a counter (the sender's counter
    /// then stays 0 and `protect` ignores it).
    public var counterModulus: Int {
        guard let counter else { return 1 }
        switch scheme {
        case .carplaydE2E: return CarplaydE2E.counterModulus
        case .autosarP1: return AutosarE2EP1.counterModulus
        default: return 1 << counter.length
        }
    }

    /// The counter that follows `counter`, wrapping to 0 at the modulus. An invalid
    /// input (at or past the modulus) restarts at 0.
    public func nextCounter(after counter: UInt8) -> UInt8 {
        Int(counter) + 1 >= counterModulus ? 0 : counter + 1
    }

    /// The counter in `payload`; nil without a counter or for a payload shorter than
    /// `minimumLength`. May be an invalid value (15 for the 0...14 schemes).
    public func counter(in payload: [UInt8]) -> UInt8? {
        guard let counter, payload.count >= minimumLength else { return nil }
        return UInt8(truncatingIfNeeded: counter.read(payload))
    }

    // MARK: - Checksum

    /// The shortest payload that holds the checksum and the counter.
    public var minimumLength: Int {
        max(checksum.map { $0.lastByte + 1 } ?? 0, counter.map { $0.lastByte + 1 } ?? 0)
    }

    /// Writes `counter` (ignored without a counter field; for AUTOSAR P1's nibble mode
    /// also the data-ID nibble), then the checksum over what the scheme covers. Other
    /// bits are left as they are.
    public func protect(_ payload: inout [UInt8], frameID: UInt32, counter value: UInt8) throws(FrameProtectionError) {
        guard payload.count >= minimumLength else {
            throw .payloadTooShort(required: minimumLength, actual: payload.count)
        }
        if let counter {
            guard Int(value) < counterModulus else { throw .invalidCounter(value, modulus: counterModulus) }
            counter.write(UInt64(value), into: &payload)
            if case let .autosarP1(dataID, .nibble) = scheme, let nibble = dataIDNibbleField {
                nibble.write(UInt64(AutosarE2EP1.dataIDNibble(dataID)), into: &payload)
            }
        }
        if let checksum, let expected = self.checksum(of: payload, frameID: frameID) {
            checksum.write(expected, into: &payload)
        }
    }

    /// The checksum `payload` should carry (its own checksum bits are ignored); nil without
    /// a checksum or for a payload shorter than `minimumLength`.
    public func checksum(of payload: [UInt8], frameID: UInt32) -> UInt64? {
        guard let checksum, payload.count >= minimumLength else { return nil }
        let counterValue = counter.map { UInt8(truncatingIfNeeded: $0.read(payload)) } ?? 0
        switch scheme {
        case .counter:
            return nil
        case let .carplaydE2E(dataID):
            return UInt64(CarplaydE2E.crc(payload, checksumByte: checksum.firstByte, dataID: dataID))
        case let .autosarP1(dataID, mode):
            return UInt64(AutosarE2EP1.crc(payload, checksumByte: checksum.firstByte, dataID: dataID, mode: mode, counter: counterValue))
        case let .autosarP2(dataIDs):
            return UInt64(AutosarE2EP2.crc(payload, checksumByte: checksum.firstByte, dataIDs: dataIDs, counter: counterValue))
        case let .autosarP5(dataID):
            return UInt64(AutosarE2EP5.crc(payload, checksumBytes: checksum.bytes, dataID: dataID))
        case let .vwMQB(dataIDs):
            return UInt64(VolkswagenMQBChecksum.crc(payload, checksumByte: checksum.firstByte, dataIDs: dataIDs, counter: counterValue))
        case .honda:
            return UInt64(HondaChecksum.checksum(payload, frameID: frameID, checksumField: checksum))
        case .toyota:
            return UInt64(ToyotaChecksum.checksum(payload, frameID: frameID, checksumByte: checksum.firstByte))
        case .hkgCANFD:
            return UInt64(HKGCANFDChecksum.checksum(payload, frameID: frameID, checksumBytes: checksum.bytes))
        case let .vwMLB(variant):
            return UInt64(VolkswagenMLBChecksum.checksum(payload, checksumByte: checksum.firstByte, variant: variant, counter: counterValue))
        case .xor:
            return UInt64(XORChecksum.checksum(payload, checksumByte: checksum.firstByte))
        case .subaru:
            return UInt64(SubaruChecksum.checksum(payload, frameID: frameID, checksumByte: checksum.firstByte))
        case .chrysler:
            return UInt64(ChryslerChecksum.checksum(payload, checksumByte: checksum.firstByte))
        case .fcaGiorgio:
            return UInt64(FCAGiorgioChecksum.checksum(payload, frameID: frameID, checksumByte: checksum.firstByte))
        case .body:
            return UInt64(BodyChecksum.checksum(payload, checksumByte: checksum.firstByte))
        case .tesla:
            return UInt64(TeslaChecksum.checksum(payload, frameID: frameID, checksumByte: checksum.firstByte))
        case .psa:
            return UInt64(PSAChecksum.checksum(payload, frameID: frameID, checksumField: checksum))
        case let .declared(declared):
            return declared.checksum(payload, frameID: frameID, field: checksum)
        }
    }

    /// True when `payload` carries the checksum it should (always, without a checksum) and,
    /// for AUTOSAR P1's nibble mode, this message's data-ID nibble (the CRC does not cover
    /// the data ID's high byte there, so another message's frame could pass it). False for
    /// a payload shorter than `minimumLength`.
    public func checksumMatches(_ payload: [UInt8], frameID: UInt32) -> Bool {
        guard payload.count >= minimumLength else { return false }
        if case let .autosarP1(dataID, .nibble) = scheme, let nibble = dataIDNibbleField,
            nibble.read(payload) != UInt64(AutosarE2EP1.dataIDNibble(dataID))
        {
            return false
        }
        guard let checksum else { return true }
        return checksum.read(payload) == self.checksum(of: payload, frameID: frameID)
    }

    /// AUTOSAR P1 nibble mode: the counter byte's other nibble (autosar-e2e puts the counter
    /// in bits 0...3 and the nibble in bits 4...7).
    var dataIDNibbleField: PayloadField? {
        guard case .autosarP1(_, .nibble) = scheme, let counter else { return nil }
        return PayloadField(startBit: 8 * counter.firstByte + (counter.shift == 0 ? 4 : 0), length: 4, byteOrder: .littleEndian)
    }
}

// MARK: - Validation

extension FrameProtection {
    private static func validate(scheme: Scheme, checksum: PayloadField?, counter: PayloadField?) throws(FrameProtectionError) {
        let name = scheme.name
        switch scheme {
        case .counter:
            guard checksum == nil else {
                throw .invalidConfiguration("the \(name) scheme has no checksum: remove `checksum` or choose a scheme with one")
            }
            try counterWidth(required(counter, "counter", name), 1...8, name)

        case let .carplaydE2E(dataID), let .autosarP1(dataID, _):
            try crcByteAndNibble(checksum, counter, name)
            if case .autosarP1(_, .nibble) = scheme, dataID > 0x0FFF {
                throw .invalidConfiguration(
                    "\(name) with `dataIDMode` nibble sends only bits 8...11 of the data ID, so `dataID` must be at most 0x0FFF (4095), not \(dataID)")
            }

        case let .autosarP2(dataIDs), let .vwMQB(dataIDs), let .vwMLB(.crc(dataIDs)):
            try crcByteAndNibble(checksum, counter, name)
            guard dataIDs.count == 16 else {
                throw .invalidConfiguration("\(name) needs `dataIDs` with exactly 16 bytes (one per counter value 0...15), not \(dataIDs.count)")
            }

        case .hkgCANFD:
            let checksum = try required(checksum, "checksum", name)
            guard checksum.length == 16, checksum.shift == 0, checksum.byteOrder == .littleEndian else {
                throw .invalidConfiguration(
                    "\(name) stores its 16-bit CRC low byte first: `checksum` must be a 16-bit Intel (@1) signal starting at a byte boundary, not \(describe(checksum))"
                )
            }
            try optionalCounter(counter, apartFrom: checksum, name)

        case .vwMLB(.xor), .xor, .subaru, .chrysler, .fcaGiorgio, .body, .tesla:
            try wholeByte(checksum, name)
            try optionalCounter(counter, apartFrom: required(checksum, "checksum", name), name)

        case .psa:
            try nibble(checksum, name)
            try optionalCounter(counter, apartFrom: required(checksum, "checksum", name), name)

        case let .declared(declared):
            let checksum = try required(checksum, "checksum", name)
            try validate(declared, checksum: checksum)
            try optionalCounter(counter, apartFrom: checksum, name)

        case .autosarP5:
            let checksum = try required(checksum, "checksum", name)
            guard checksum.length == 16, checksum.shift == 0, checksum.byteOrder == .littleEndian else {
                throw .invalidConfiguration(
                    "\(name) stores its 16-bit CRC low byte first: `checksum` must be a 16-bit Intel (@1) signal starting at a byte boundary, not \(describe(checksum))"
                )
            }
            let counter = try required(counter, "counter", name)
            guard counter.length == 8 else {
                throw .invalidConfiguration("\(name) has an 8-bit counter (0...255): `counter` must have 8 bits, not \(describe(counter))")
            }
            try apart(checksum, counter, name)

        case .honda:
            try nibble(checksum, name)
            try optionalCounter(counter, apartFrom: required(checksum, "checksum", name), name)

        case .toyota:
            try wholeByte(checksum, name)
            try optionalCounter(counter, apartFrom: required(checksum, "checksum", name), name)
        }
    }

    /// The 8-bit sums, XORs and CRCs of the vendor schemes.
    private static func wholeByte(_ checksum: PayloadField?, _ name: String) throws(FrameProtectionError) {
        let checksum = try required(checksum, "checksum", name)
        guard checksum.isWholeByte else {
            throw .invalidConfiguration(
                "\(name) has an 8-bit checksum: `checksum` must be one whole byte (8 bits starting at a byte boundary), not \(describe(checksum))")
        }
    }

    /// The 4-bit nibble sums (Honda, PSA).
    private static func nibble(_ checksum: PayloadField?, _ name: String) throws(FrameProtectionError) {
        let checksum = try required(checksum, "checksum", name)
        guard checksum.isNibble else {
            throw .invalidConfiguration(
                "\(name) has a 4-bit checksum: `checksum` must be one nibble (bits 0...3 or 4...7 of one byte), not \(describe(checksum))")
        }
    }

    /// The vendor schemes' counter: optional, 1...8 bits, not in the checksum's bits.
    private static func optionalCounter(_ counter: PayloadField?, apartFrom checksum: PayloadField, _ name: String) throws(FrameProtectionError) {
        guard let counter else { return }
        try counterWidth(counter, 1...8, name)
        try apart(checksum, counter, name)
    }

    private static func validate(_ declared: DeclaredChecksum, checksum: PayloadField) throws(FrameProtectionError) {
        let algorithm = declared.algorithm
        let width = algorithm.width
        guard checksum.length <= width else {
            throw .invalidConfiguration(
                "declared \(algorithm.rawValue) gives at most \(width) bits: `checksum` must have 1...\(width) bits, not \(describe(checksum))")
        }
        let largest = UInt16(truncatingIfNeeded: (1 << width) - 1)
        for (key, value) in [("init", declared.initial), ("xorOut", declared.xorOut), ("polynomial", declared.polynomial)] where value > largest {
            throw .invalidConfiguration("declared \(algorithm.rawValue) has \(width)-bit values: `\(key)` must be at most \(largest), not \(value)")
        }
        if algorithm.isCRC {
            guard declared.polynomial != 0 else {
                throw .invalidConfiguration("declared \(algorithm.rawValue) needs `polynomial` (without its top bit, e.g. 0x1D for SAE J1850)")
            }
        } else {
            guard declared.polynomial == 0, !declared.reflectIn, !declared.reflectOut else {
                throw .invalidConfiguration("declared \(algorithm.rawValue) is not a CRC: `polynomial`, `reflectIn` and `reflectOut` are for crc8 and crc16")
            }
        }
        guard (0...4).contains(declared.frameIDBytes) else {
            throw .invalidConfiguration("declared: `frameID` has 0...4 bytes (a CAN ID has 29 bits at most), not \(declared.frameIDBytes)")
        }
        let first = declared.firstByte
        let last = declared.lastByte
        guard (0..<64).contains(first) || (-64..<0).contains(first), (0..<64).contains(last) || (-64..<0).contains(last),
            (first < 0) != (last < 0) || first <= last
        else {
            throw .invalidConfiguration(
                "declared: `bytes` are a first and a last byte of 0...63 (or -64...-1 from the end), the first not after the last, not \(first)...\(last)")
        }
    }

    /// The CRC-8 schemes: a whole checksum byte, a counter nibble in another byte.
    private static func crcByteAndNibble(_ checksum: PayloadField?, _ counter: PayloadField?, _ name: String) throws(FrameProtectionError) {
        let checksum = try required(checksum, "checksum", name)
        guard checksum.isWholeByte else {
            throw .invalidConfiguration(
                "\(name) has an 8-bit CRC: `checksum` must be one whole byte (8 bits starting at a byte boundary), not \(describe(checksum))")
        }
        let counter = try required(counter, "counter", name)
        guard counter.isNibble else {
            throw .invalidConfiguration(
                "\(name) has a 4-bit counter: `counter` must be one nibble (bits 0...3 or 4...7 of one byte), not \(describe(counter))")
        }
        guard counter.firstByte != checksum.firstByte else {
            throw .invalidConfiguration(
                "\(name): `counter` must be in another byte than `checksum` (both are in byte \(checksum.firstByte)): the CRC skips its whole byte")
        }
    }

    private static func required(_ field: PayloadField?, _ key: String, _ name: String) throws(FrameProtectionError) -> PayloadField {
        guard let field else { throw .invalidConfiguration("the \(name) scheme needs `\(key)`: name the signal that carries it") }
        return field
    }

    private static func counterWidth(_ counter: PayloadField, _ widths: ClosedRange<Int>, _ name: String) throws(FrameProtectionError) {
        guard widths.contains(counter.length) else {
            throw .invalidConfiguration("\(name): `counter` must have \(widths.lowerBound)...\(widths.upperBound) bits, not \(describe(counter))")
        }
    }

    private static func apart(_ checksum: PayloadField, _ counter: PayloadField, _ name: String) throws(FrameProtectionError) {
        guard !checksum.overlaps(counter) else {
            throw .invalidConfiguration("\(name): `counter` (\(describe(counter))) shares bits with `checksum` (\(describe(checksum)))")
        }
    }

    static func describe(_ field: PayloadField) -> String {
        let order = field.byteOrder == .littleEndian ? "Intel" : "Motorola"
        return "\(field.length) bit\(field.length == 1 ? "" : "s") from start bit \(field.startBit) (\(order))"
    }
}
