/// The outcome of checking one received payload (`FrameChecker.check`): "CRC" is the
/// scheme's checksum, whatever its width; "counter" its counter.
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
