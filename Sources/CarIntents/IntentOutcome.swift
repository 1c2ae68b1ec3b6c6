import CANBus
import CANKit
import CarplayJSON
import VehicleKit

/// SiriKit's phases, as a client asks for them: each later one runs the earlier ones
/// first, on one reading of the vehicle's state.
public enum IntentPhase: String, Sendable, Hashable, CaseIterable {
    /// How each parameter resolves; nothing is sent.
    case resolve
    /// Resolve, then whether the intent may be handled now.
    case confirm
    /// Resolve, confirm, then send and wait for the vehicle to confirm; the reply
    /// leaves out the resolutions.
    case handle
    /// Handle with the resolutions in the reply.
    case perform
}

/// Why an intent was not handled.
public enum IntentRefusal: Sendable, Hashable {
    /// A parameter did not resolve to a value: the first such parameter and why.
    case notResolved(parameter: String, reason: String)
    /// The intent is restricted while the caller's device is locked, and it is.
    case restrictedWhileLocked(reason: String)
    /// carplayd's car-state policy refuses the intent while the car is locked.
    case carLocked
    /// No trusted status frame from the vehicle for several cycle times.
    case vehicleUnreachable
    /// The CAN controller of `interface` is bus-off.
    case busOff(interface: String)
    /// Satellite radio asked of a car without a subscription.
    case notSubscribed
}

/// What one phase produced: the resolutions, the response (after Resolve: ready or
/// notResolved), why the intent was not handled if it was not, every frame sent and
/// received while it was handled, and the vehicle state afterwards.
public struct IntentOutcome: Sendable {
    public var phase: IntentPhase
    public var resolution: IntentResolution
    public var response: IntentResponse
    public var refusal: IntentRefusal?
    public var frames: [ReceivedFrame]
    public var state: VehicleState
    /// `VehicleController.versionedState()`'s version of `state`.
    public var stateVersion: Int

    public init(
        phase: IntentPhase, resolution: IntentResolution, response: IntentResponse, refusal: IntentRefusal?, frames: [ReceivedFrame],
        state: VehicleState, stateVersion: Int
    ) {
        self.phase = phase
        self.resolution = resolution
        self.response = response
        self.refusal = refusal
        self.frames = frames
        self.state = state
        self.stateVersion = stateVersion
    }

    /// Every parameter resolved to a value: the intent can be confirmed and handled.
    public var isReady: Bool { resolution.action != nil }
}

extension IntentRefusal {
    /// The response that tells a client of this refusal, with a code `intent`'s SiriKit
    /// response has.
    public func response(for intent: IntentName) -> IntentResponse {
        switch self {
        case .notResolved: .failure(IntentResponse.notResolved)
        case let .restrictedWhileLocked(reason): .failure(IntentResponse.restrictedWhileLocked, detail: reason)
        case .carLocked: .failure(IntentResponse.carLocked)
        case .vehicleUnreachable: .failure(IntentResponse.vehicleUnreachable)
        case let .busOff(interface):
            .failure(IntentResponse.busOff, detail: "the CAN controller of \(interface) is bus-off: nothing can be sent until it restarts")
        case .notSubscribed: IntentResponse(code: .failureNotSubscribed, reason: "satellite radio is not subscribed").within(intent)
        }
    }

    /// The first parameter of `resolution` that did not resolve, and why.
    static func notResolved(_ resolution: IntentResolution) -> IntentRefusal {
        guard let (name, result) = resolution.parameters.first(where: { !$0.result.isResolved }) else {
            return .notResolved(parameter: "parameters", reason: "not resolved")
        }
        let reason: String
        switch result {
        case let .needsValue(text), let .unsupported(text), let .confirmationRequired(_, text): reason = text
        case .disambiguation: reason = "several values match; choose one (Resolve lists them)"
        default: reason = "not resolved"
        }
        return .notResolved(parameter: name, reason: reason)
    }
}
