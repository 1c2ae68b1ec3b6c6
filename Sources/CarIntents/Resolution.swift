import CarplayJSON
import VehicleKit

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

    public var kind: String {
        switch self {
        case .success: "success"
        case .disambiguation: "disambiguation"
        case .confirmationRequired: "confirmationRequired"
        case .needsValue: "needsValue"
        case .notRequired: "notRequired"
        case .unsupported: "unsupported"
        }
    }

    /// `success` or `notRequired`: nothing more to ask.
    public var isResolved: Bool {
        switch self {
        case .success, .notRequired: true
        default: false
        }
    }

    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["kind": .string(kind)]
        switch self {
        case let .success(value): object["value"] = value
        case let .disambiguation(options): object["options"] = .array(options)
        case let .confirmationRequired(value, reason):
            object["value"] = value
            object["reason"] = .string(reason)
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
    case saveProfile(slot: Int, name: String?)
    /// Apply the settings saved in this slot.
    case restoreProfile(slot: Int)
    case readLockStatus
    case readPowerLevel

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
        case let .saveProfile(slot, name): return ["saveProfile": .object(["slot": .integer(slot), "name": name.map(JSONValue.string) ?? .null])]
        case let .restoreProfile(slot): return ["restoreProfile": ["slot": .integer(slot)]]
        case .readLockStatus: return ["readLockStatus": [:]]
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
/// JSON/Codable: `{"slot":1,"name":"Anna","settings":{"climate.temperature.left":21.5,"seat.frontLeft.heating":2}}`;
/// values are decoded by the key's kind (`PropertyKey.kind`), so `21` for a temperature
/// reads back as a number.
public struct SavedCarProfile: Sendable, Hashable, Codable {
    public var slot: Int
    public var name: String?
    public var settings: [PropertyKey: PropertyValue]

    public init(slot: Int, name: String?, settings: [PropertyKey: PropertyValue]) {
        self.slot = slot
        self.name = name
        self.settings = settings
    }

    private enum CodingKeys: String, CodingKey { case slot, name, settings }

    private struct StringKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        slot = try container.decode(Int.self, forKey: .slot)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        let values = try container.nestedContainer(keyedBy: StringKey.self, forKey: .settings)
        var settings: [PropertyKey: PropertyValue] = [:]
        for codingKey in values.allKeys {
            let key = PropertyKey(codingKey.stringValue)
            switch key.kind {
            case .bool?: settings[key] = .bool(try values.decode(Bool.self, forKey: codingKey))
            case .integer?: settings[key] = .integer(try values.decode(Int.self, forKey: codingKey))
            case .number?: settings[key] = .number(try values.decode(Double.self, forKey: codingKey))
            case .enumeration?: settings[key] = .enumeration(try values.decode(String.self, forKey: codingKey))
            case nil:
                throw DecodingError.dataCorruptedError(
                    forKey: codingKey, in: values, debugDescription: "\"\(key)\" is not a vehicle property")
            }
        }
        self.settings = settings
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(slot, forKey: .slot)
        try container.encodeIfPresent(name, forKey: .name)
        var values = container.nestedContainer(keyedBy: StringKey.self, forKey: .settings)
        for (key, value) in settings.sorted(by: { $0.key < $1.key }) {
            let codingKey = StringKey(stringValue: key.rawValue)
            switch value {
            case let .bool(flag): try values.encode(flag, forKey: codingKey)
            case let .integer(number): try values.encode(number, forKey: codingKey)
            case let .number(number): try values.encode(number, forKey: codingKey)
            case let .enumeration(text): try values.encode(text, forKey: codingKey)
            }
        }
    }
}

extension PropertyValue {
    /// The JSON form of a state value: booleans, integers, numbers, enumeration case names.
    public var jsonValue: JSONValue {
        switch self {
        case let .bool(flag): .bool(flag)
        case let .integer(number): .integer(number)
        case let .number(number): .number(number)
        case let .enumeration(text): .string(text)
        }
    }
}
