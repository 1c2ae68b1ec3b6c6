import CarIntents
import CarplayJSON
import VehicleKit

/// What a person types -> an intent parameter's JSON value. Used by the verbs' flags
/// and by the answers to `needsValue` questions. Errors are UsageErrors naming `what`.
enum ParameterInput {
    /// "21.5", "21.5C", "21.5°C", "72F", "72 °F" -> {"value":21.5,"unit":"celsius"}.
    /// Celsius unless the text ends in F.
    static func temperature(_ text: String, what: String = "--temperature") throws -> JSONValue {
        var number = text.trimming(" ")
        var unit = "celsius"
        if let last = number.last, "CcFf".contains(last) {
            if "Ff".contains(last) { unit = "fahrenheit" }
            number.removeLast()
            if number.hasSuffix("°") { number.removeLast() }
            number = number.trimming(" ")
        }
        guard let value = Double(number), value.isFinite else {
            throw UsageError("\(what): '\(text)' is not a temperature (21.5, 21.5C or 72F)")
        }
        return .object(["value": .number(value), "unit": .string(unit)])
    }

    static func onOff(_ text: String, what: String) throws -> Bool {
        switch text.lowercased() {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw UsageError("\(what): expected on or off, found '\(text)'")
        }
    }

    static func integer(_ text: String, what: String) throws -> Int {
        guard let value = Int(text.trimming(" ")) else { throw UsageError("\(what): '\(text)' is not a whole number") }
        return value
    }

    static func number(_ text: String, what: String, in range: ClosedRange<Double>? = nil) throws -> Double {
        guard let value = Double(text.trimming(" ")), value.isFinite else { throw UsageError("\(what): '\(text)' is not a number") }
        if let range, !range.contains(value) {
            throw UsageError("\(what): \(text) is outside \(readableNumber(range.lowerBound))…\(readableNumber(range.upperBound))")
        }
        return value
    }

    /// A SiriKit case name, matched without regard to case ("usb" -> "USB").
    /// A case by its SiriKit name or an alias, in any letter case ("usb" -> "sourceUSB").
    static func enumeration<E: SiriKitEnumeration>(_ text: String, _: E.Type, what: String) throws -> String {
        let wanted = text.trimming(" ").lowercased()
        if let match = E.allCases.first(where: { ([$0.rawValue] + $0.aliases).contains { $0.lowercased() == wanted } }) { return match.rawValue }
        throw UsageError("\(what): '\(text)' is not one of \(E.names.joined(separator: ", "))")
    }

    /// "FM", "am", "sat" -> a RadioType case name.
    static func radioType(_ text: String, what: String) throws -> String {
        switch text.lowercased() {
        case "sat", "sxm", "siriusxm": return RadioType.satellite.rawValue
        default: return try enumeration(text, RadioType.self, what: what)
        }
    }

    /// "lights,horn" / "visible audible" -> ["audible","visible"] (SiriKit's option order).
    static func signals(_ text: String, what: String) throws -> JSONValue {
        var chosen = Set<CarSignal>()
        for word in text.split(whereSeparator: { $0 == "," || $0 == " " }) {
            switch word.lowercased() {
            case "lights", "light", "visible", "flash": chosen.insert(.visible)
            case "horn", "audible", "honk": chosen.insert(.audible)
            default: throw UsageError("\(what): '\(word)' is not lights or horn")
            }
        }
        guard !chosen.isEmpty else { throw UsageError("\(what): give lights, horn or both") }
        return .array(CarSignal.allCases.filter(chosen.contains).map { .string($0.rawValue) })
    }

    /// The answer to "PARAMETER: REASON" for any intent parameter.
    static func parse(parameter: String, text: String) throws -> JSONValue {
        let what = parameter
        switch parameter {
        case "enableFan", "enableAirConditioner", "enableClimateControl", "enableAutoMode", "enable",
            "enableHeating", "enableCooling", "enableMassage", "isDefaultProfile", "locked":
            return .bool(try onOff(text, what: what))
        case "temperature": return try temperature(text, what: what)
        case "fanSpeedIndex", "level", "presetNumber", "profileNumber": return .integer(try integer(text, what: what))
        case "fanSpeedPercentage": return .number(try number(text, what: what, in: 0...100))
        case "frequency": return .number(try number(text, what: what))
        case "airCirculationMode":
            switch text.lowercased() {
            case "recirculate", "recirculated", "on": return "recirculateAir"
            case "fresh", "off": return "freshAir"
            default: return .string(try enumeration(text, AirCirculationMode.self, what: what))
            }
        case "relativeFanSpeedSetting", "relativeTemperatureSetting", "relativeLevelSetting":
            return .string(try enumeration(text, RelativeSetting.self, what: what))
        case "climateZone", "seat": return .string(try enumeration(text, CarSeat.self, what: what))
        case "defroster": return .string(try enumeration(text, CarDefroster.self, what: what))
        case "audioSource": return .string(try enumeration(text, CarAudioSource.self, what: what))
        case "relativeAudioSourceReference": return .string(try enumeration(text, RelativeReference.self, what: what))
        case "radioType": return .string(try radioType(text, what: what))
        case "signals": return try signals(text, what: what)
        case "carName", "stationName", "profileName", "channel":
            let trimmed = text.trimming(" ")
            guard !trimmed.isEmpty else { throw UsageError("\(what): empty") }
            return .string(trimmed)
        default:
            return (try? JSONValue(parsing: text)) ?? .string(text)
        }
    }
}

extension String {
    /// Without leading and trailing `character`s.
    func trimming(_ character: Character) -> String {
        var text = Substring(self)
        while text.first == character { text.removeFirst() }
        while text.last == character { text.removeLast() }
        return String(text)
    }
}
