import CANBus
import CANKit
import VehicleKit

/// Why a command was not confirmed.
public enum CommandFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// No status frame showed the change in time; `reported` is what the vehicle last said.
    case timeout(waited: Duration, reported: [PropertyKey: PropertyValue])
    /// The vehicle acknowledged the command with a rejection (its DBC choice name).
    case rejected(message: String, result: String)
    /// Status frames arrived but were not trusted (wrong CRC, repeated or skipped counter).
    case e2eError(message: String, status: E2EStatus)
    /// The frame could not be sent.
    case bus(CANBusError)
    /// No trusted status frame for several cycle times.
    case vehicleUnreachable
    /// The targets cannot be put into frames (a profile without that binding).
    case unencodable(String)

    /// A short machine-readable reason, used as the response's `reason`.
    public var reason: String {
        switch self {
        case .timeout: "timeout"
        case .rejected: "rejectedByVehicle"
        case .e2eError: "e2eError"
        case .bus(.busOff): IntentResponse.busOff
        case .bus: "busError"
        case .vehicleUnreachable: "vehicleUnreachable"
        case .unencodable: "unencodable"
        }
    }

    public var description: String {
        switch self {
        case let .timeout(waited, reported):
            let shown = reported.keys.sorted().map { "\($0) = \(reported[$0]!)" }.joined(separator: ", ")
            return "no confirmation within \(waited)" + (shown.isEmpty ? "" : "; the vehicle reports \(shown)")
        case let .rejected(message, result): return "the vehicle rejected \(message): \(result)"
        case let .e2eError(message, status): return "frames of \(message) failed the E2E check (\(status))"
        case let .bus(error): return error.description
        case .vehicleUnreachable: return "the vehicle sends no status frames"
        case let .unencodable(reason): return reason
        }
    }
}

/// The outcome of one command: what was confirmed, what failed, and every frame
/// sent and received while it ran (in bus order).
public struct CommandOutcome: Sendable {
    public var targets: [PropertyKey: PropertyValue]
    public var confirmed: [PropertyKey: PropertyValue]
    public var failure: CommandFailure?
    public var frames: [ReceivedFrame]

    public var succeeded: Bool { failure == nil }
}
