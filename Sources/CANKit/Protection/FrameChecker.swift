/// The receiver side of one message's `FrameProtection`: checks each payload against the
/// checksum and the last accepted counter, for any scheme's counter
/// modulus; the result is an `E2EStatus`, whose `.wrongCRC` means the wrong checksum of
/// whatever kind the scheme has.
///
/// `check`, in order:
/// 1. payload shorter than `protection.minimumLength` -> `.invalidLength`;
/// 2. wrong checksum (or, AUTOSAR P1 nibble mode, another data-ID nibble) -> `.wrongCRC`;
/// 3. no counter: `.ok` (only the checksum is checked);
/// 4. a counter at or past the modulus (15 for the 0...14 schemes) ->
///    `.wrongSequence(expected: reference + 1 or nil, received:)`;
/// 5. no reference yet (first valid frame) -> `.ok`, the counter becomes the reference;
/// 6. delta = (counter - reference) mod modulus:
///    0 -> `.repeated`; 1...maxDeltaCounter -> `.ok`;
///    otherwise `.wrongSequence(expected: reference + 1, received:)`.
/// Only `.ok` and a counter jump (`.wrongSequence` with a valid counter) move the
/// reference, so the frame after a jump is `.ok` again (resynchronisation); every other
/// status leaves the state as it was. Without a checksum only steps 1 and 3...6 apply.
public struct FrameChecker: Hashable, Sendable {
    public let protection: FrameProtection
    /// The largest accepted counter step (1: no frame may be lost), 1...modulus-1.
    public let maxDeltaCounter: UInt8
    /// The counter of the last accepted frame; nil until the first valid frame.
    public private(set) var referenceCounter: UInt8?

    public init(protection: FrameProtection, maxDeltaCounter: UInt8 = 1) {
        self.protection = protection
        let largest = max(protection.counterModulus - 1, 1)
        self.maxDeltaCounter = UInt8(min(max(Int(maxDeltaCounter), 1), largest))
        self.referenceCounter = nil
    }

    /// True until the first valid frame has set the reference.
    public var isInitial: Bool { referenceCounter == nil }

    /// Forgets the reference: the next valid frame is `.ok` whatever its counter.
    public mutating func reset() {
        referenceCounter = nil
    }

    public mutating func check(_ payload: [UInt8], frameID: UInt32) -> E2EStatus {
        let required = protection.minimumLength
        guard payload.count >= required else {
            return .invalidLength(required: required, received: payload.count)
        }
        guard protection.checksumMatches(payload, frameID: frameID) else {
            return .wrongCRC
        }
        guard let counter = protection.counter(in: payload) else {
            return .ok
        }
        let modulus = protection.counterModulus
        guard Int(counter) < modulus else {
            return .wrongSequence(expected: referenceCounter.map(protection.nextCounter(after:)), received: counter)
        }
        guard let reference = referenceCounter else {
            referenceCounter = counter
            return .ok
        }
        let delta = (Int(counter) + modulus - Int(reference)) % modulus
        if delta == 0 {
            return .repeated
        }
        referenceCounter = counter
        if delta <= Int(maxDeltaCounter) {
            return .ok
        }
        return .wrongSequence(expected: protection.nextCounter(after: reference), received: counter)
    }
}
