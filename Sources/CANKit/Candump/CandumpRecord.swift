/// A candump timestamp: seconds and microseconds, as candump prints them
/// (`(1700000000.123456)`). Relative timestamps (`-t d`, `-t z`) use the same form.
public struct CandumpTimestamp: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var seconds: Int64
    /// 0...999_999.
    public var microseconds: UInt32

    public init(seconds: Int64, microseconds: UInt32) {
        precondition(microseconds < 1_000_000, "microseconds must be below 1_000_000")
        self.seconds = seconds
        self.microseconds = microseconds
    }

    /// `1700000000.000100`: seconds as they are, exactly 6 fractional digits.
    /// (The `-L` writer pads the seconds to 10 digits like candump.)
    public var description: String {
        let fraction = String(microseconds)
        return "\(seconds)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.seconds, lhs.microseconds) < (rhs.seconds, rhs.microseconds)
    }
}

/// One frame from a candump log line.
///
/// Remote frames carry their requested length as `frame.data.count` zero bytes
/// (`123#R5` -> five zeros, `isRemote == true`). Error frames (`CAN_ERR_FLAG`) have
/// `frame.isError == true`, `frame.id.isExtended == true` and the error class
/// without the flag in `frame.id.rawValue` (`20000004#...` -> rawValue 0x4).
public struct CandumpRecord: Hashable, Sendable {
    /// `nil` when the line had none (cansend form, or candump without `-t`).
    public var timestamp: CandumpTimestamp?
    /// `nil` for the cansend form `123#DEADBEEF`.
    public var interface: String?
    public var frame: CANFrame

    public init(timestamp: CandumpTimestamp? = nil, interface: String? = nil, frame: CANFrame) {
        self.timestamp = timestamp
        self.interface = interface
        self.frame = frame
    }
}

/// What one line of a candump file holds.
public enum CandumpLine: Hashable, Sendable {
    case record(CandumpRecord)
    /// Empty, or only whitespace.
    case blank
    /// A comment: first non-blank character `#` or `;` (a frame never starts with either).
    case comment
    /// A continuation line of `candump -e`: a tab followed by the decoded error
    /// classes of the error frame on the line before (`\tcontroller-problem{rx-error-warning}`).
    case errorDetails

    /// The record, or `nil` for the other kinds.
    public var record: CandumpRecord? {
        if case let .record(record) = self { record } else { nil }
    }
}

/// A line that is not a candump frame.
///
/// `column` is 1-based and counts bytes (UTF-8 code units) from the start of
/// the line. It names the character where the problem was found: the offending
/// character, or the column just past the end of the line when something is
/// missing there. `line` is 1-based and set by the multi-line readers.
public struct CandumpParseError: Error, Hashable, Sendable, CustomStringConvertible {
    public var line: Int?
    public var column: Int
    public var message: String

    public init(line: Int? = nil, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String {
        if let line { "line \(line), column \(column): \(message)" } else { "column \(column): \(message)" }
    }
}
