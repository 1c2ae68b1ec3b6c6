import CarplayJSON
import VehicleKit

/// SiriKit's resolution result kinds (ResolutionKind in the Varlink interface).
public enum ResolutionKind: String, Sendable, Hashable, CaseIterable {
    case success, disambiguation, confirmationRequired, needsValue, notRequired, unsupported
}

/// SiriKit's resolution result for one parameter.
/// JSON: `{"kind":"success","value":…}`, `{"kind":"disambiguation","options":[…]}`,
/// `{"kind":"confirmationRequired","value":…,"reason":"…"}`, `{"kind":"needsValue","reason":"…"}`,
/// `{"kind":"notRequired"}`, `{"kind":"unsupported","reason":"…"}`.
public enum ResolutionResult: Sendable, Hashable {
    case success(JSONValue)
    case disambiguation([JSONValue])
    /// The value the car would use instead of the one asked for (clamped), and why.
    case confirmationRequired(JSONValue, reason: String)
    case needsValue(reason: String)
    case notRequired
    case unsupported(reason: String)

    public var kind: ResolutionKind {
        switch self {
        case .success: .success
        case .disambiguation: .disambiguation
        case .confirmationRequired: .confirmationRequired
        case .needsValue: .needsValue
        case .notRequired: .notRequired
        case .unsupported: .unsupported
        }
    }

    /// `success` or `notRequired`: nothing more to ask.
    public var isResolved: Bool {
        switch self {
        case .success, .notRequired: true
        default: false
        }
    }

    /// `{"kind":…}` with the kind's members: value, options, reason (the wire form,
    /// written and read by CarplayProtocol).
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["kind": .string(kind.rawValue)]
        switch self {
        case let .success(value): object["value"] = value
        case let .disambiguation(options): object["options"] = .array(options)
        case let .confirmationRequired(value, reason):
            object["reason"] = .string(reason)
            object["value"] = value
        case let .needsValue(reason), let .unsupported(reason): object["reason"] = .string(reason)
        case .notRequired: break
        }
        return .object(object)
    }
}

/// What the handle phase must do for a fully resolved intent.
public enum IntentAction: Sendable, Hashable {
    /// Command these properties to these target values (temperatures in °C).
    case set([PropertyKey: PropertyValue])
    case activateSignals([CarSignal])
    /// Store the current settings in this slot under this name (nil: no name).
    case saveCarProfile(slot: Int, name: String?)
    /// Apply the settings saved in this slot.
    case restoreCarProfile(slot: Int)
    case readLockStatus
    case readPowerLevel
    /// `ListCars`: the car this daemon drives, from its profile.
    case listCars

    /// `{"set":{"climate.fan":true}}`, `{"activateSignals":["audible"]}`,
    /// `{"saveProfile":{"slot":2,"name":"Anna"}}`, `{"restoreProfile":{"slot":2}}`,
    /// `{"readLockStatus":{}}`, `{"readPowerLevel":{}}`.
    public var jsonValue: JSONValue {
        switch self {
        case let .set(values):
            var object: [String: JSONValue] = [:]
            for (key, value) in values { object[key.rawValue] = value.jsonValue }
            return ["set": .object(object)]
        case let .activateSignals(signals): return ["activateSignals": .array(signals.map { .string($0.rawValue) })]
        case let .saveCarProfile(slot, name): return ["saveProfile": .object(["slot": .integer(slot), "name": name.map(JSONValue.string) ?? .null])]
        case let .restoreCarProfile(slot): return ["restoreProfile": ["slot": .integer(slot)]]
        case .readLockStatus: return ["readLockStatus": [:]]
        case .listCars: return ["listCars": [:]]
        case .readPowerLevel: return ["readPowerLevel": [:]]
        }
    }
}

/// The resolve phase's answer: a result for every parameter of the intent and, when all
/// of them are `success` or `notRequired`, the action that carries the intent out.
public struct IntentResolution: Sendable {
    public var intent: Intent
    /// Every parameter of the intent, in SiriKit order.
    public var parameters: [(name: String, result: ResolutionResult)]
    /// nil unless every parameter is `success` or `notRequired`.
    public var action: IntentAction?

    public init(intent: Intent, parameters: [(name: String, result: ResolutionResult)], action: IntentAction?) {
        self.intent = intent
        self.parameters = parameters
        self.action = action
    }

    public subscript(parameter: String) -> ResolutionResult? {
        parameters.first { $0.name == parameter }?.result
    }

    public var isResolved: Bool { parameters.allSatisfy { $0.result.isResolved } }

    /// `{"intent":"…","parameters":[{"name":"…","result":{…}}, …],"action":{…} or null}`.
    public var jsonValue: JSONValue {
        .object([
            "intent": .string(intent.name.rawValue),
            "parameters": .array(parameters.map { .object(["name": .string($0.name), "result": $0.result.jsonValue]) }),
            "action": action?.jsonValue ?? .null,
        ])
    }
}

/// A car profile the user saved (`SaveProfileInCar`): the slot, its name and the settings.
/// JSON: `{"slot":1,"name":"Anna","settings":{"climate.temperature.left":21.5,"seat.frontLeft.heating":2}}`;
/// values are decoded by the key's kind (`PropertyKey.kind`), so `21` for a temperature
/// reads back as a number.
public struct SavedCarProfile: Sendable, Hashable {
    public var slot: Int
    public var name: String?
    public var settings: [PropertyKey: PropertyValue]

    public init(slot: Int, name: String?, settings: [PropertyKey: PropertyValue]) {
        self.slot = slot
        self.name = name
        self.settings = settings
    }

    /// A saved profile in its JSON form.
    public init(json node: JSONNode) throws(JSONContentError) {
        let object = try node.object(known: ["slot", "name", "settings"])
        slot = try object.required("slot").integer()
        name = try object.optional("name")?.string()
        settings = try VehicleState(json: object.required("settings")).values
    }

    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["slot": .integer(slot), "settings": VehicleState(settings).jsonValue]
        if let name { object["name"] = .string(name) }
        return .object(object)
    }

    /// A JSON array of saved profiles (the daemon's file, `--car-profiles`).
    public static func list(parsing bytes: [UInt8], file: String) throws(JSONContentError) -> [SavedCarProfile] {
        var profiles: [SavedCarProfile] = []
        for item in try JSONNode(parsing: bytes, file: file).array() { profiles.append(try SavedCarProfile(json: item)) }
        return profiles
    }
}
