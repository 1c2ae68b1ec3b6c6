import CarplayJSON
import VehicleKit

/// SiriKit's response codes (`INSetClimateSettingsInCarIntentResponseCode` and friends).
public enum IntentResponseCode: String, Sendable, Hashable, CaseIterable {
    case unspecified, ready, inProgress, success, failure, failureRequiringAppLaunch, failureNotSubscribed
}

/// An intent's response: its code, a machine-readable reason for failures, and the
/// intent-specific fields. JSON form: `{"code":"success", …fields, "reason":"…"}`
/// (`reason` only when there is one).
public struct IntentResponse: Sendable, Hashable {
    public var code: IntentResponseCode
    public var reason: String?
    public var fields: [String: JSONValue]

    public init(code: IntentResponseCode, reason: String? = nil, fields: [String: JSONValue] = [:]) {
        self.code = code
        self.reason = reason
        self.fields = fields
    }

    public static func failure(_ reason: String) -> IntentResponse { IntentResponse(code: .failure, reason: reason) }

    /// This response with a code `intent`'s SiriKit response has: another code becomes
    /// `failure`, the reason kept (or, without one, the code's name).
    public func within(_ intent: IntentName) -> IntentResponse {
        guard !intent.responseCodes.contains(code) else { return self }
        var response = self
        response.code = .failure
        if response.reason == nil { response.reason = code.rawValue }
        return response
    }

    public var jsonValue: JSONValue {
        var object = fields
        object["code"] = .string(code.rawValue)
        if let reason { object["reason"] = .string(reason) }
        return .object(object)
    }

    // Reasons the confirm phase gives.
    /// SiriKit's: the caller's device is locked.
    public static let restrictedWhileLocked = "restrictedWhileLocked"
    /// carplayd's car-state policy: the car is locked.
    public static let carLocked = "carLocked"
    public static let vehicleUnreachable = "vehicleUnreachable"
    /// The CAN controller is bus-off (confirm, or a send that met it): nothing is sent.
    public static let busOff = "busOff"
    public static let notResolved = "notResolved"

    /// `GetCarLockStatus`: `{"locked": true}`.
    public static func lockStatusFields(locked: Bool) -> [String: JSONValue] { ["locked": .bool(locked)] }

    /// `GetCarLockStatus` from the state: `locked` when `lock.locked` is known.
    public static func lockStatusFields(from state: VehicleState) -> [String: JSONValue] {
        guard case let .bool(locked)? = state[.locked] else { return [:] }
        return lockStatusFields(locked: locked)
    }

    // `GetCarPowerLevelStatus`: PowerLevelResponse.swift.

    /// `ActivateCarSignal`: `{"signals": ["audible", "visible"]}` — the signals activated.
    public static func signalFields(_ signals: [CarSignal]) -> [String: JSONValue] {
        ["signals": .array(signals.map { .string($0.rawValue) })]
    }
}

/// The caller's device, as SiriKit's restriction asks (Info.plist's
/// `IntentsRestrictedWhileLocked`: intents the app does not handle while the user's
/// device is locked).
public enum CallerDevice: Sendable, Hashable {
    case unlocked
    /// Locked, or its lock state cannot be known; `reason` says which and what unlocks it.
    case locked(reason: String)
}

/// SiriKit's confirm phase: may a resolved intent be handled now?
///
/// In this order:
/// 1. Not resolved (no action) -> `failure`, reason "notResolved".
/// 2. The intent is restricted while locked (the daemon's configuration) and the
///    caller's device is locked -> `failure`, reason "restrictedWhileLocked", with a
///    `detail` naming what unlocks it. Asked only for restricted intents (`device` may
///    cost a D-Bus round trip).
/// 3. The CAN controller is bus-off (`busOffInterface`) -> `failure`, reason "busOff", with
///    `interface`: nothing can be sent or heard until it restarts, so the intent ends at once
///    instead of waiting for a vehicle it cannot reach.
///    Vehicle unreachable -> `failure`, reason "vehicleUnreachable" (the read-only
///    `GetCarLockStatus` / `GetCarPowerLevelStatus` too: the state would be stale).
///    Checked before the car-lock policy because the lock state is stale then as well.
/// 4. carplayd's car-state policy: `lock.locked == true` in the state and the intent
///    named in `profile.policies.refusedWhileCarLocked` -> `failure`, reason "carLocked".
/// 5. Tuning satellite radio without `satelliteSubscribed` -> `failureNotSubscribed`
///    (SetRadioStation's code; `within` makes it `failure` for any other intent).
/// Otherwise nil: ready to handle.
public enum IntentConfirmer {
    public static func confirm(
        _ resolution: IntentResolution, profile: VehicleProfile, state: VehicleState, vehicleReachable: Bool, busOffInterface: String? = nil,
        restrictedWhileLocked: Set<IntentName> = [], device: () -> CallerDevice = { .unlocked }
    ) -> IntentResponse? {
        guard let action = resolution.action else { return .failure(IntentResponse.notResolved) }
        if restrictedWhileLocked.contains(resolution.intent.name), case let .locked(reason) = device() {
            return IntentResponse(code: .failure, reason: IntentResponse.restrictedWhileLocked, fields: ["detail": .string(reason)])
        }
        // ListCars answers from the profile: the car is listed whether it talks or not.
        if let busOffInterface, action != .listCars {
            return IntentResponse(code: .failure, reason: IntentResponse.busOff, fields: ["interface": .string(busOffInterface)])
        }
        if !vehicleReachable, action != .listCars { return .failure(IntentResponse.vehicleUnreachable) }
        if state[.locked] == .bool(true), profile.policies.refusedWhileCarLocked.contains(resolution.intent.name.rawValue) {
            return .failure(IntentResponse.carLocked)
        }
        if case let .set(targets) = action, targets[.radioBand] == .enumeration(RadioType.satellite.rawValue),
            profile.radio?.satelliteSubscribed == false
        {
            return IntentResponse(code: .failureNotSubscribed, reason: "satellite radio is not subscribed").within(resolution.intent.name)
        }
        return nil
    }
}
