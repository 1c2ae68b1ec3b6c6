import CarplayJSON
import VehicleKit

/// One CarPlay-domain request with its SiriKit parameters. JSON form:
/// `{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":21.5,"unit":"celsius"},"climateZone":"driver"}}`.
public enum Intent: Sendable, Hashable {
    case setClimateSettingsInCar(SetClimateSettingsInCarParameters)
    case setDefrosterSettingsInCar(SetDefrosterSettingsInCarParameters)
    case setSeatSettingsInCar(SetSeatSettingsInCarParameters)
    case setAudioSourceInCar(SetAudioSourceInCarParameters)
    case setRadioStation(SetRadioStationParameters)
    case saveProfileInCar(SaveProfileInCarParameters)
    case setProfileInCar(SetProfileInCarParameters)
    case setCarLockStatus(SetCarLockStatusParameters)
    case getCarLockStatus(CarNameParameters)
    case activateCarSignal(ActivateCarSignalParameters)
    case getCarPowerLevelStatus(CarNameParameters)
    /// `INListCarsIntent`: no parameters.
    case listCars

    public var name: IntentName {
        switch self {
        case .setClimateSettingsInCar: .setClimateSettingsInCar
        case .setDefrosterSettingsInCar: .setDefrosterSettingsInCar
        case .setSeatSettingsInCar: .setSeatSettingsInCar
        case .setAudioSourceInCar: .setAudioSourceInCar
        case .setRadioStation: .setRadioStation
        case .saveProfileInCar: .saveProfileInCar
        case .setProfileInCar: .setProfileInCar
        case .setCarLockStatus: .setCarLockStatus
        case .getCarLockStatus: .getCarLockStatus
        case .activateCarSignal: .activateCarSignal
        case .getCarPowerLevelStatus: .getCarPowerLevelStatus
        case .listCars: .listCars
        }
    }

    /// Every parameter of the intent as declared (`DeclaredParameters`), in SiriKit's order.
    public static func signature(of name: IntentName) -> [ParameterSignature] {
        switch name {
        case .setClimateSettingsInCar: SetClimateSettingsInCarParameters.signature
        case .setDefrosterSettingsInCar: SetDefrosterSettingsInCarParameters.signature
        case .setSeatSettingsInCar: SetSeatSettingsInCarParameters.signature
        case .setAudioSourceInCar: SetAudioSourceInCarParameters.signature
        case .setRadioStation: SetRadioStationParameters.signature
        case .saveProfileInCar: SaveProfileInCarParameters.signature
        case .setProfileInCar: SetProfileInCarParameters.signature
        case .setCarLockStatus: SetCarLockStatusParameters.signature
        case .getCarLockStatus, .getCarPowerLevelStatus: CarNameParameters.signature
        case .activateCarSignal: ActivateCarSignalParameters.signature
        case .listCars: []
        }
    }

    /// Every parameter of the intent, in SiriKit's order (the order of the SiriKit
    /// initializer's arguments).
    public static func parameterNames(of name: IntentName) -> [String] { signatures[name.index].map(\.name) }

    /// Parameter names accepted when parsing besides `parameterNames(of:)`, to the canonical name.
    static func aliases(of name: IntentName) -> [String: String] {
        var aliases: [String: String] = [:]
        for parameter in signatures[name.index] { for alias in parameter.aliases { aliases[alias] = parameter.name } }
        return aliases
    }

    /// `signature(of:)` of every intent, by `IntentName.index`: asked per request.
    private static let signatures = IntentName.allCases.map(signature(of:))
}

extension IntentName {
    /// The position in `allCases`.
    var index: Int { Self.allCases.firstIndex(of: self)! }
}

/// Why a JSON request is not an intent. Each case names what is wrong.
public enum IntentParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not JSON (the parser's message, "malformed JSON: ..." with where).
    case malformedJSON(String)
    /// The request is not an object (found: what it is).
    case notAnObject(found: String)
    /// No `"intent"` member.
    case missingIntent
    /// A member of the request other than `intent` and `parameters`.
    case unknownField(String)
    case unknownIntent(String)
    case unknownParameter(intent: String, name: String)
    /// `name` is a parameter (or `intent` / `parameters`), `expected` says what it takes,
    /// `found` is the JSON it got (`"trunk"`, `12`, `an object`).
    case invalidParameter(name: String, expected: String, found: String)

    public var description: String {
        switch self {
        // The parser's message says "malformed JSON: ..." and where.
        case let .malformedJSON(message): message
        case let .notAnObject(found): "expected an object {\"intent\": …, \"parameters\": {…}}, found \(found)"
        case .missingIntent: "missing \"intent\""
        case let .unknownField(name): "unknown field \"\(name)\": a request has \"intent\" and \"parameters\""
        case let .unknownIntent(name):
            "unknown intent \"\(name)\": expected one of \(IntentName.allCases.map(\.rawValue).joined(separator: ", "))"
        case let .unknownParameter(intent, name):
            "\(intent) has no parameter \"\(name)\"; its parameters are "
                + (IntentName(rawValue: intent).map { Intent.parameterNames(of: $0).joined(separator: ", ") } ?? "")
        case let .invalidParameter(name, expected, found): "\(name): expected \(expected), found \(found)"
        }
    }

    /// The parameter an API's InvalidParameter error names ("parameters" for the request
    /// as a whole), and the reason without that name: a client prints
    /// "invalid parameter PARAMETER: REASON".
    public var parameter: (name: String, reason: String) {
        switch self {
        case let .invalidParameter(name, expected, found): (name, "expected \(expected), found \(found)")
        case let .unknownParameter(_, name): (name, description)
        default: ("parameters", description)
        }
    }
}

// MARK: - Parsing

extension Intent {
    /// Parses the JSON form from bytes.
    public init(parsing bytes: [UInt8]) throws(IntentParseError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            throw .malformedJSON(error.message)
        }
        try self.init(json: value)
    }

    public init(parsing text: String) throws(IntentParseError) {
        try self.init(parsing: Array(text.utf8))
    }

    /// Parses the JSON form. A parameter given as `null` counts as absent.
    public init(json: JSONValue) throws(IntentParseError) {
        guard case let .object(request) = json else { throw .notAnObject(found: json.shortDescription) }
        for key in request.keys.sorted() where key != "intent" && key != "parameters" { throw .unknownField(key) }
        guard let intentValue = request["intent"] else { throw .missingIntent }
        guard case let .string(intentName) = intentValue else {
            throw .invalidParameter(name: "intent", expected: "an intent name", found: intentValue.shortDescription)
        }
        try self.init(named: intentName, parameters: request["parameters"] ?? .null)
    }

    /// The intent `name` with `parameters` (an object; null counts as none): what
    /// `init(json:)` reads from `{"intent": name, "parameters": parameters}`.
    public init(named intentName: String, parameters given: JSONValue) throws(IntentParseError) {
        guard let name = IntentName(rawValue: intentName) else { throw .unknownIntent(intentName) }
        var parameters: [String: JSONValue] = [:]
        switch given {
        case .null: break
        case let .object(object): parameters = object
        case let other: throw .invalidParameter(name: "parameters", expected: "an object", found: other.shortDescription)
        }
        // At most a dozen names: a linear search beats hashing them into a Set per call.
        let known = Intent.parameterNames(of: name)
        let aliases = Intent.aliases(of: name)
        var canonical: [(name: String, value: JSONValue)] = []
        canonical.reserveCapacity(parameters.count)
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) {
            guard let target = known.contains(key) ? key : aliases[key] else {
                throw .unknownParameter(intent: name.rawValue, name: key)
            }
            if case .null = value { continue }
            if canonical.contains(where: { $0.name == target }) {
                throw .invalidParameter(name: target, expected: "one value", found: "it also given as \(key)")
            }
            canonical.append((target, value))
        }
        let r = ParameterReader(given: canonical)
        switch name {
        case .setClimateSettingsInCar: self = .setClimateSettingsInCar(try SetClimateSettingsInCarParameters(reading: r))
        case .setDefrosterSettingsInCar: self = .setDefrosterSettingsInCar(try SetDefrosterSettingsInCarParameters(reading: r))
        case .setSeatSettingsInCar: self = .setSeatSettingsInCar(try SetSeatSettingsInCarParameters(reading: r))
        case .setAudioSourceInCar: self = .setAudioSourceInCar(try SetAudioSourceInCarParameters(reading: r))
        case .setRadioStation: self = .setRadioStation(try SetRadioStationParameters(reading: r))
        case .saveProfileInCar: self = .saveProfileInCar(try SaveProfileInCarParameters(reading: r))
        case .setProfileInCar: self = .setProfileInCar(try SetProfileInCarParameters(reading: r))
        case .setCarLockStatus: self = .setCarLockStatus(try SetCarLockStatusParameters(reading: r))
        case .getCarLockStatus: self = .getCarLockStatus(try CarNameParameters(reading: r))
        case .activateCarSignal: self = .activateCarSignal(try ActivateCarSignalParameters(reading: r))
        case .getCarPowerLevelStatus: self = .getCarPowerLevelStatus(try CarNameParameters(reading: r))
        case .listCars: self = .listCars
        }
    }
}

/// Typed access to a request's parameters; every failure names the parameter.
struct ParameterReader {
    /// The parameters given, a few of the intent's dozen: each read is a short scan (no
    /// hashing of the name, where most reads are of parameters not given).
    let given: [(name: String, value: JSONValue)]

    subscript(_ name: String) -> JSONValue? { given.first(where: { $0.name == name })?.value }

    func bool(_ name: String) throws(IntentParseError) -> Bool? {
        guard let value = self[name] else { return nil }
        guard case let .bool(flag) = value else { throw .invalidParameter(name: name, expected: "true or false", found: value.shortDescription) }
        return flag
    }

    func integer(_ name: String) throws(IntentParseError) -> Int? {
        guard let value = self[name] else { return nil }
        guard case let .integer(number) = value else { throw .invalidParameter(name: name, expected: "an integer", found: value.shortDescription) }
        return number
    }

    func number(_ name: String, in range: ClosedRange<Double>? = nil) throws(IntentParseError) -> Double? {
        guard let value = self[name] else { return nil }
        let expected = range.map { "a number \(formatNumber($0.lowerBound))…\(formatNumber($0.upperBound))" } ?? "a number"
        guard let number = value.doubleValue, number.isFinite else { throw .invalidParameter(name: name, expected: expected, found: value.shortDescription) }
        if let range, !range.contains(number) { throw .invalidParameter(name: name, expected: expected, found: value.shortDescription) }
        return number
    }

    func string(_ name: String) throws(IntentParseError) -> String? {
        guard let value = self[name] else { return nil }
        guard case let .string(text) = value else { throw .invalidParameter(name: name, expected: "a string", found: value.shortDescription) }
        return text
    }

    /// SiriKit's case names, and their aliases (`SiriKitEnumeration`).
    func enumeration<E: SiriKitEnumeration>(_ name: String, _: E.Type) throws(IntentParseError) -> E? {
        guard let value = self[name] else { return nil }
        guard case let .string(text) = value, let result = E(name: text) else {
            throw .invalidParameter(name: name, expected: "one of " + E.names.joined(separator: ", "), found: value.shortDescription)
        }
        return result
    }

    func temperature(_ name: String) throws(IntentParseError) -> Temperature? {
        guard let value = self[name] else { return nil }
        let expected = #"{"value": number, "unit": "celsius" or "fahrenheit"}"#
        guard case let .object(object) = value else { throw .invalidParameter(name: name, expected: expected, found: value.shortDescription) }
        for key in object.keys.sorted() where key != "value" && key != "unit" {
            throw .invalidParameter(name: "\(name).\(key)", expected: "no such member (\(name) has value and unit)", found: object[key]!.shortDescription)
        }
        guard let number = object["value"]?.doubleValue, number.isFinite else {
            throw .invalidParameter(name: "\(name).value", expected: "a number", found: object["value"]?.shortDescription ?? "nothing")
        }
        guard let unitText = object["unit"]?.stringValue, let unit = Temperature.Unit(rawValue: unitText) else {
            throw .invalidParameter(name: "\(name).unit", expected: "one of celsius, fahrenheit", found: object["unit"]?.shortDescription ?? "nothing")
        }
        return Temperature(value: number, unit: unit)
    }

    func channel(_ name: String) throws(IntentParseError) -> String? {
        guard let value = self[name] else { return nil }
        switch value {
        case let .string(text): return text
        case let .integer(number): return String(number)
        default: throw .invalidParameter(name: name, expected: "a string or an integer", found: value.shortDescription)
        }
    }

    func signals(_ name: String) throws(IntentParseError) -> [CarSignal]? {
        guard let value = self[name] else { return nil }
        let expected = "an array of " + CarSignal.names.joined(separator: ", ")
        guard case let .array(elements) = value else { throw .invalidParameter(name: name, expected: expected, found: value.shortDescription) }
        var signals: [CarSignal] = []
        for element in elements {
            guard case let .string(text) = element, let signal = CarSignal(name: text) else {
                throw .invalidParameter(name: name, expected: expected, found: element.shortDescription)
            }
            if !signals.contains(signal) { signals.append(signal) }
        }
        return signals
    }
}

// MARK: - Serializing

extension Intent {
    /// The given parameters, in SiriKit order, as JSON values (absent ones left out).
    public var parameterValues: [(name: String, value: JSONValue)] {
        switch self {
        case let .setClimateSettingsInCar(p): p.values
        case let .setDefrosterSettingsInCar(p): p.values
        case let .setSeatSettingsInCar(p): p.values
        case let .setAudioSourceInCar(p): p.values
        case let .setRadioStation(p): p.values
        case let .saveProfileInCar(p): p.values
        case let .setProfileInCar(p): p.values
        case let .setCarLockStatus(p): p.values
        case let .getCarLockStatus(p), let .getCarPowerLevelStatus(p): p.values
        case let .activateCarSignal(p): p.values
        case .listCars: []
        }
    }

    /// The JSON form; `Intent(json:)` reads it back to an equal intent.
    public var jsonValue: JSONValue { .object(jsonMembers) }

    /// The JSON form's members, `intent` and `parameters`: a call's parameters.
    public var jsonMembers: [String: JSONValue] {
        var parameters: [String: JSONValue] = [:]
        for (name, value) in parameterValues { parameters[name] = value }
        return ["intent": .string(name.rawValue), "parameters": .object(parameters)]
    }
}
