// End-to-end protection in the style of AUTOSAR E2E Profile 1, simplified:
//
// - an 8-bit CRC (CRC-8 SAE J1850, see `CRC8SAEJ1850`) in one payload byte;
// - a 4-bit alive counter in one nibble of another payload byte, counting
//   0...14 and wrapping to 0 (15 is invalid and never sent);
// - a 16-bit data ID that is never transmitted but folded into the CRC, so a
//   receiver configured for another message rejects the frame.
//
// CRC input, in this order (AUTOSAR's "DATAID_BOTH" mode):
//   1. the data ID's low byte,
//   2. the data ID's high byte,
//   3. every payload byte in ascending offset order, skipping the CRC byte.
// The CRC is computed after the counter is written, so it covers the counter.

/// Which half of a byte holds the alive counter.
public enum E2ENibble: Hashable, Sendable {
    /// Bits 0...3.
    case low
    /// Bits 4...7.
    case high
}

/// Errors in the configuration of `E2EProtection` or in a call to `protect`.
public enum E2EError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The CRC byte and the counter nibble are in the same byte, or an offset is negative.
    case invalidConfiguration(String)
    /// The payload does not reach the CRC byte or the counter byte.
    case payloadTooShort(required: Int, actual: Int)
    /// Counters are 0...14.
    case invalidCounter(UInt8)

    public var description: String {
        switch self {
        case let .invalidConfiguration(reason): "invalid E2E configuration: \(reason)"
        case let .payloadTooShort(required, actual): "E2E payload of \(actual) bytes is shorter than the \(required) bytes the layout needs"
        case let .invalidCounter(counter): "E2E alive counter \(counter) is outside 0...14"
        }
    }
}

/// The layout of an E2E-protected payload and the sender side: where the CRC
/// and the alive counter live, and the data ID folded into the CRC.
public struct E2EProtection: Hashable, Sendable {
    /// The largest valid alive counter; the counter runs 0...14 and 15 is invalid.
    public static let maxCounter: UInt8 = 14
    /// The counter value that is never sent.
    public static let invalidCounter: UInt8 = 15

    /// Byte offset of the CRC within the payload.
    public let crcOffset: Int
    /// Byte offset of the byte that holds the alive counter.
    public let counterOffset: Int
    /// Which nibble of that byte holds the counter. The other nibble is left
    /// untouched by `protect` (it may carry a signal).
    public let counterNibble: E2ENibble
    /// The data ID folded into the CRC (low byte, then high byte).
    public let dataID: UInt16

    /// The minimum payload length this layout needs.
    public var minimumLength: Int { max(crcOffset, counterOffset) + 1 }

    /// Throws `.invalidConfiguration` when an offset is negative or the CRC
    /// byte is the counter's byte.
    public init(dataID: UInt16, crcOffset: Int = 0, counterOffset: Int = 1, counterNibble: E2ENibble = .low) throws(E2EError) {
        guard crcOffset >= 0, counterOffset >= 0 else {
            throw .invalidConfiguration("offsets must not be negative (crc \(crcOffset), counter \(counterOffset))")
        }
        guard crcOffset != counterOffset else {
            throw .invalidConfiguration("the CRC byte (offset \(crcOffset)) cannot also hold the alive counter")
        }
        self.dataID = dataID
        self.crcOffset = crcOffset
        self.counterOffset = counterOffset
        self.counterNibble = counterNibble
    }

    /// The counter that follows `counter`: 0 -> 1 -> ... -> 14 -> 0.
    /// An invalid input (15) restarts at 0.
    public static func nextCounter(after counter: UInt8) -> UInt8 {
        counter >= maxCounter ? 0 : counter + 1
    }

    /// How far `counter` is ahead of `reference`, modulo 15 (0...14).
    /// Both must be valid counters (0...14).
    public static func counterDelta(from reference: UInt8, to counter: UInt8) -> UInt8 {
        let modulus = maxCounter + 1
        return (counter &+ modulus &- reference) % modulus
    }

    /// Writes `counter` into its nibble, then computes the CRC over the data ID
    /// and every payload byte except the CRC byte, and writes it into the CRC byte.
    public func protect(_ payload: inout [UInt8], counter: UInt8) throws(E2EError) {
        guard counter <= Self.maxCounter else { throw .invalidCounter(counter) }
        guard payload.count >= minimumLength else {
            throw .payloadTooShort(required: minimumLength, actual: payload.count)
        }
        let byte = payload[counterOffset]
        switch counterNibble {
        case .low: payload[counterOffset] = (byte & 0xF0) | counter
        case .high: payload[counterOffset] = (byte & 0x0F) | (counter << 4)
        }
        payload[crcOffset] = crc(of: payload)
    }

    /// The CRC this layout expects for `payload` (the CRC byte itself is skipped).
    /// `payload` must be at least `minimumLength` bytes long.
    public func crc(of payload: [UInt8]) -> UInt8 {
        var crc = CRC8SAEJ1850()
        crc.update(byte: UInt8(truncatingIfNeeded: dataID))
        crc.update(byte: UInt8(truncatingIfNeeded: dataID >> 8))
        crc.update(payload[..<crcOffset])
        crc.update(payload[(crcOffset + 1)...])
        return crc.finalize()
    }

    /// The alive counter stored in `payload` (0...15).
    /// `payload` must be at least `minimumLength` bytes long.
    public func counter(in payload: [UInt8]) -> UInt8 {
        let byte = payload[counterOffset]
        return counterNibble == .low ? byte & 0x0F : byte >> 4
    }
}

/// The sender's running state: protects successive payloads with 0, 1, ... 14, 0, ...
public struct E2ESender: Hashable, Sendable {
    public let protection: E2EProtection
    /// The counter the next `protect` call writes.
    public private(set) var nextCounter: UInt8

    public init(protection: E2EProtection, firstCounter: UInt8 = 0) {
        self.protection = protection
        self.nextCounter = firstCounter <= E2EProtection.maxCounter ? firstCounter : 0
    }

    /// Protects `payload` with the current counter and advances it.
    public mutating func protect(_ payload: inout [UInt8]) throws(E2EError) {
        try protection.protect(&payload, counter: nextCounter)
        nextCounter = E2EProtection.nextCounter(after: nextCounter)
    }
}

/// The outcome of checking one received payload.
public enum E2EStatus: Hashable, Sendable {
    /// CRC correct and the counter is new: either the first valid frame (which
    /// sets the reference) or 1...`maxDeltaCounter` ahead of the reference.
    case ok
    /// The CRC does not match (corruption, or another message's data ID).
    /// The reference counter is unchanged.
    case wrongCRC
    /// CRC correct but the counter equals the reference: the sender did not
    /// refresh the data. The reference is unchanged.
    case repeated
    /// CRC correct but the counter jumped by more than `maxDeltaCounter`
    /// (frames were lost), or is the invalid value 15.
    /// `expected` is the counter that would have followed the reference
    /// (`nil` before any valid frame). After a jump the received counter becomes
    /// the new reference (resynchronisation), so the next consecutive frame is
    /// `ok` again; an invalid 15 leaves the reference unchanged.
    case wrongSequence(expected: UInt8?, received: UInt8)
    /// The payload is too short to hold the CRC and the counter. State unchanged.
    case invalidLength(required: Int, received: Int)
}

/// The receiver side: checks each payload of one message against the layout and
/// the last accepted counter.
///
/// Semantics of `check`, in order:
/// 1. payload shorter than the layout -> `.invalidLength`;
/// 2. CRC mismatch -> `.wrongCRC`;
/// 3. counter 15 -> `.wrongSequence(expected:received: 15)`;
/// 4. no reference yet (first valid frame) -> `.ok`, the counter becomes the reference;
/// 5. delta = (counter - reference) mod 15:
///    0 -> `.repeated`; 1...maxDeltaCounter -> `.ok`;
///    otherwise `.wrongSequence(expected: reference + 1, received:)`.
/// Only `.ok` and a counter jump (`.wrongSequence` with a valid counter) move the
/// reference; every other status leaves the state as it was.
public struct E2EChecker: Hashable, Sendable {
    public let protection: E2EProtection
    /// The largest accepted counter step (1 = no frame may be lost). 1...14.
    public let maxDeltaCounter: UInt8
    /// The counter of the last accepted frame; `nil` until the first valid frame.
    public private(set) var referenceCounter: UInt8?

    public init(protection: E2EProtection, maxDeltaCounter: UInt8 = 1) {
        self.protection = protection
        self.maxDeltaCounter = min(max(maxDeltaCounter, 1), E2EProtection.maxCounter)
        self.referenceCounter = nil
    }

    /// True until the first valid frame has set the reference.
    public var isInitial: Bool { referenceCounter == nil }

    /// Forgets the reference: the next valid frame is `ok` whatever its counter.
    public mutating func reset() {
        referenceCounter = nil
    }

    public mutating func check(_ payload: [UInt8]) -> E2EStatus {
        guard payload.count >= protection.minimumLength else {
            return .invalidLength(required: protection.minimumLength, received: payload.count)
        }
        guard payload[protection.crcOffset] == protection.crc(of: payload) else {
            return .wrongCRC
        }
        let counter = protection.counter(in: payload)
        guard counter <= E2EProtection.maxCounter else {
            return .wrongSequence(expected: referenceCounter.map(E2EProtection.nextCounter(after:)), received: counter)
        }
        guard let reference = referenceCounter else {
            referenceCounter = counter
            return .ok
        }
        let delta = E2EProtection.counterDelta(from: reference, to: counter)
        if delta == 0 {
            return .repeated
        }
        referenceCounter = counter
        if delta <= maxDeltaCounter {
            return .ok
        }
        return .wrongSequence(expected: E2EProtection.nextCounter(after: reference), received: counter)
    }
}
