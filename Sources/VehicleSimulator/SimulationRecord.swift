import CarplayJSON
import VehicleKit

/// Counters of what the simulated vehicle did.
public struct SimulationStatistics: Sendable, Hashable {
    /// Command frames that passed the E2E check and decoded.
    public var commandsReceived = 0
    /// Command frames applied and acknowledged "Accepted".
    public var commandsApplied = 0
    /// Command frames acknowledged with a rejection (limits or a `reject` fault).
    public var commandsRejected = 0
    /// Command frames a `drop` fault swallowed.
    public var commandsDropped = 0
    /// Command frames a `delay` fault held back (counted when held).
    public var commandsDelayed = 0
    /// Properties a `wrongValue` fault set to something other than commanded.
    public var wrongValuesApplied = 0
    /// Command frames ignored for a wrong CRC, a repeated or skipped alive counter.
    public var untrustedFrames = 0
    /// Command frames of this vehicle that did not decode.
    public var undecodable = 0
    /// Frames handed out to be sent (status and acknowledgements).
    public var framesSent = 0
    /// Frames a `silence` / `busOff` fault kept back.
    public var framesSuppressed = 0
    /// Frames sent with a deliberately corrupted CRC or repeated counter.
    public var framesCorrupted = 0

    public init() {}

    /// `{"commandsReceived": 12, …}`: every counter by its name.
    public var jsonValue: JSONValue {
        .object([
            "commandsReceived": .integer(commandsReceived), "commandsApplied": .integer(commandsApplied),
            "commandsRejected": .integer(commandsRejected), "commandsDropped": .integer(commandsDropped),
            "commandsDelayed": .integer(commandsDelayed), "wrongValuesApplied": .integer(wrongValuesApplied),
            "untrustedFrames": .integer(untrustedFrames), "undecodable": .integer(undecodable), "framesSent": .integer(framesSent),
            "framesSuppressed": .integer(framesSuppressed), "framesCorrupted": .integer(framesCorrupted),
        ])
    }
}

/// One thing the simulated vehicle did with a command (or a fault it injected), for
/// the ECU process to print.
public struct SimulationLogEntry: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case applied, rejected, dropped, delayed, wrongValue, e2eError, undecodable, momentaryEnded, faultInjected
    }

    /// Time since the simulation started.
    public var time: Duration
    public var kind: Kind
    /// The message concerned (a command, or a status message for transmit faults).
    public var message: String
    /// The alive counter of the command frame, if any.
    public var counter: UInt8?
    /// What was applied or why not, e.g. "climate.temperature.left=22.5" or
    /// "RejectedOutOfRange: climate.fanSpeed=9 outside 1...7".
    public var detail: String

    public init(time: Duration, kind: Kind, message: String, counter: UInt8? = nil, detail: String) {
        self.time = time
        self.kind = kind
        self.message = message
        self.counter = counter
        self.detail = detail
    }

    public var description: String {
        let ms = FaultRule.milliseconds(time)
        let stamp = String(Int(ms.rounded(.down)))
        let counterText = counter.map { " #\($0)" } ?? ""
        return "[\(stamp) ms] \(kind.rawValue) \(message)\(counterText): \(detail)"
    }
}

/// Why the vehicle refused a command; each maps to a choice of the acknowledgement's
/// result signal (see `VehicleSimulation.resultChoice(for:)`).
public enum RejectionReason: Sendable, Hashable, CustomStringConvertible {
    /// A value outside the car's limits (temperature range, fan levels, seat levels,
    /// band range, profile slots).
    case outOfRange
    /// Something the car does not have (zone, seat feature, defroster, band, audio
    /// source, lock, signal, a value that maps to no state).
    case notAvailable
    /// Satellite radio without a subscription.
    case notSubscribed
    /// A `reject` fault; the optional choice name overrides the default.
    case injected(String?)

    /// The DBC choice names looked for, best first.
    public var candidateChoices: [String] {
        switch self {
        case .outOfRange: ["RejectedOutOfRange", "OutOfRange", "RejectedInvalidValue", "InvalidValue", "Rejected"]
        case .notAvailable: ["RejectedNotAvailable", "NotAvailable", "RejectedNotSupported", "NotSupported", "Rejected"]
        case .notSubscribed: ["RejectedNotSubscribed", "NotSubscribed", "RejectedNotAvailable", "NotAvailable", "Rejected"]
        case let .injected(choice): (choice.map { [$0] } ?? []) + ["Rejected", "RejectedBusy", "Busy"]
        }
    }

    public var description: String {
        switch self {
        case .outOfRange: "outOfRange"
        case .notAvailable: "notAvailable"
        case .notSubscribed: "notSubscribed"
        case let .injected(choice): "injected(\(choice ?? "default"))"
        }
    }
}
