import VehicleKit

/// SiriKit's response codes (`INSetClimateSettingsInCarIntentResponseCode` and friends).
public enum IntentResponseCode: String, Sendable, Hashable, CaseIterable {
    case unspecified, ready, inProgress, success, failure, failureRequiringAppLaunch, failureNotSubscribed
}

/// An intent's response: the interface's CarIntentResponse and the members the intents'
/// own response types add (SaveProfileInCarResponse, ..., ListCarsResponse), in one type
/// because the generic methods answer any intent. A member the intent's response does
/// not have is nil. The daemon makes it and clients read it back; CarplayProtocol
/// writes and reads its JSON form.
public struct IntentResponse: Sendable, Hashable {
    public var code: IntentResponseCode
    /// A machine-readable cause of a failure (notResolved, restrictedWhileLocked, carLocked,
    /// vehicleUnreachable, busOff, timeout, rejectedByVehicle, ...).
    public var reason: String?
    /// The cause for people.
    public var detail: String?
    /// SaveProfileInCar and SetProfileInCar: the slot and its name.
    public var profileNumber: Int?
    public var profileName: String?
    /// SaveProfileInCar: how many settings were saved.
    public var settings: Int?
    /// SetProfileInCar on a partial failure: the properties confirmed and failed.
    public var confirmed: [PropertyKey]?
    public var failed: [PropertyKey]?
    /// GetCarLockStatus.
    public var locked: Bool?
    /// ActivateCarSignal: the signals activated.
    public var signals: [CarSignal]?
    /// ListCars.
    public var cars: [Car]?
    /// GetCarPowerLevelStatus (empty for the other intents).
    public var powerLevel: PowerLevel {
        get { powerLevelBox?.value ?? PowerLevel() }
        set { powerLevelBox = newValue == PowerLevel() ? nil : PowerLevelBox(newValue) }
    }
    /// Out of line: a response passes through every phase by value, and only one intent
    /// of twelve has a power level, the largest of its members.
    private var powerLevelBox: PowerLevelBox?

    public init(code: IntentResponseCode, reason: String? = nil, detail: String? = nil) {
        self.code = code
        self.reason = reason
        self.detail = detail
    }

    public static func failure(_ reason: String, detail: String? = nil) -> IntentResponse {
        IntentResponse(code: .failure, reason: reason, detail: detail)
    }

    /// This response with a code `intent`'s SiriKit response has: another code becomes
    /// `failure`, the reason kept (or, without one, the code's name).
    public func within(_ intent: IntentName) -> IntentResponse {
        guard !intent.responseCodes.contains(code) else { return self }
        var response = self
        response.code = .failure
        if response.reason == nil { response.reason = code.rawValue }
        return response
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
}

/// A power level, immutable and shared by the responses that copy it.
private final class PowerLevelBox: Sendable, Hashable {
    let value: PowerLevel

    init(_ value: PowerLevel) { self.value = value }

    static func == (a: PowerLevelBox, b: PowerLevelBox) -> Bool { a.value == b.value }

    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
