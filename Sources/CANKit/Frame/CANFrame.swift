/// A CAN identifier: 11-bit standard or 29-bit extended.
public struct CANID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt32
    public let isExtended: Bool

    public static let maxStandard: UInt32 = 0x7FF
    public static let maxExtended: UInt32 = 0x1FFF_FFFF

    /// Fails when the value does not fit the chosen width.
    public init?(_ value: UInt32, extended: Bool) {
        guard value <= (extended ? Self.maxExtended : Self.maxStandard) else { return nil }
        self.rawValue = value
        self.isExtended = extended
    }

    public init(standard value: UInt16) {
        precondition(UInt32(value) <= Self.maxStandard, "standard CAN ID out of range")
        self.rawValue = UInt32(value)
        self.isExtended = false
    }

    public init(extended value: UInt32) {
        precondition(value <= Self.maxExtended, "extended CAN ID out of range")
        self.rawValue = value
        self.isExtended = true
    }

    /// candump spelling: 3 hex digits standard, 8 extended.
    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        let width = isExtended ? 8 : 3
        return String(repeating: "0", count: max(0, width - hex.count)) + hex
    }

    /// `description` read back: 1-3 hex digits a standard ID, 8 an extended one.
    public init?(candump text: String) {
        let digits = text.utf8.count
        guard (1...3).contains(digits) || digits == 8, text.utf8.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") }),
            let value = UInt32(text, radix: 16)
        else { return nil }
        self.init(value, extended: text.utf8.count == 8)
    }

    public static func < (lhs: CANID, rhs: CANID) -> Bool {
        (lhs.rawValue, lhs.isExtended ? 1 : 0) < (rhs.rawValue, rhs.isExtended ? 1 : 0)
    }
}

/// One CAN frame: classic (0...8 bytes) or CAN FD (up to 64 bytes).
///
/// A value type with no I/O; the SocketCAN layer maps it to `struct can_frame` /
/// `struct canfd_frame`.
public struct CANFrame: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case classic
        /// CAN FD with its two flags: bit-rate switch and error-state indicator.
        case fd(bitRateSwitch: Bool, errorStateIndicator: Bool)
    }

    public var id: CANID
    public var kind: Kind
    /// Remote transmission request (classic frames only).
    public var isRemote: Bool
    /// An error frame as SocketCAN reports it (CAN_ERR_FLAG); `id` holds the error class.
    public var isError: Bool
    public var data: [UInt8]

    public var isFD: Bool { if case .fd = kind { return true } else { return false } }

    /// Valid CAN FD payload lengths.
    public static let fdLengths: [Int] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64]

    public init(id: CANID, data: [UInt8], kind: Kind = .classic, isRemote: Bool = false, isError: Bool = false) throws(CANFrameError) {
        switch kind {
        case .classic:
            guard data.count <= 8 else { throw .payloadTooLong(count: data.count, limit: 8) }
        case .fd:
            guard data.count <= 64 else { throw .payloadTooLong(count: data.count, limit: 64) }
            guard Self.fdLengths.contains(data.count) else { throw .invalidFDLength(data.count) }
            guard !isRemote else { throw .remoteFDFrame }
        }
        self.id = id
        self.kind = kind
        self.isRemote = isRemote
        self.isError = isError
        self.data = data
    }

    /// The smallest valid CAN FD length that holds `count` bytes.
    public static func fdLength(atLeast count: Int) -> Int? {
        fdLengths.first { $0 >= count }
    }
}

public enum CANFrameError: Error, Equatable, Sendable, CustomStringConvertible {
    case payloadTooLong(count: Int, limit: Int)
    case invalidFDLength(Int)
    case remoteFDFrame

    public var description: String {
        switch self {
        case let .payloadTooLong(count, limit): "payload of \(count) bytes exceeds the \(limit)-byte limit"
        case let .invalidFDLength(count): "\(count) is not a valid CAN FD length (0-8, 12, 16, 20, 24, 32, 48, 64)"
        case .remoteFDFrame: "CAN FD has no remote frames"
        }
    }
}
