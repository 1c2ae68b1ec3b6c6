import CarIntents
import CarplayJSON
import CarplayText
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
        guard let kind = Intent.kind(ofParameter: "radioType"), case let .string(name) = try parse(kind, text: text, what: what) else { return text }
        return name
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

    /// The answer to "PARAMETER: REASON" for any intent parameter, read as its declared
    /// kind (`Intent.kind(ofParameter:)`); a name no intent declares as JSON, else text.
    static func parse(parameter: String, text: String) throws -> JSONValue {
        guard let kind = Intent.kind(ofParameter: parameter) else { return (try? JSONValue(parsing: text)) ?? .string(text) }
        return try parse(kind, text: text, what: parameter)
    }

    /// What a person types for a parameter of `kind`.
    static func parse(_ kind: ParameterKind, text: String, what: String) throws -> JSONValue {
        switch kind {
        case .bool: return .bool(try onOff(text, what: what))
        case .integer: return .integer(try integer(text, what: what))
        case let .number(range): return .number(try number(text, what: what, in: range))
        case .temperature: return try temperature(text, what: what)
        case .signals: return try signals(text, what: what)
        case .string, .channel:
            let trimmed = text.trimming(" ")
            guard !trimmed.isEmpty else { throw UsageError("\(what): empty") }
            return .string(trimmed)
        case let .enumeration(typeName, names, aliases):
            let wanted = text.trimming(" ").lowercased()
            if let name = spoken[typeName]?[wanted] { return .string(name) }
            if let name = names.first(where: { $0.lowercased() == wanted }) ?? aliases.first(where: { $0.key.lowercased() == wanted })?.value {
                return .string(name)
            }
            throw UsageError("\(what): '\(text)' is not one of \(names.joined(separator: ", "))")
        }
    }

    /// What a person may type for a parameter of `kind`, for the verbs' help.
    static func describe(_ kind: ParameterKind) -> String {
        switch kind {
        case .bool: "on|off"
        case .integer: "a whole number"
        case let .number(range?): "a number, \(readableNumber(range.lowerBound))…\(readableNumber(range.upperBound))"
        case .number(nil): "a number"
        case .temperature: "21.5, 21.5C or 72F"
        case .signals: "lights, horn or both (lights,horn)"
        case .string: "text"
        case .channel: "a channel (text or number)"
        case let .enumeration(_, names, _): names.joined(separator: "|")
        }
    }

    /// Words a person says for a case, beyond SiriKit's names and aliases, by type.
    static let spoken: [String: [String: String]] = [
        "CarAirCirculationMode": [
            "recirculate": "recirculateAir", "recirculated": "recirculateAir", "on": "recirculateAir", "fresh": "freshAir", "off": "freshAir",
        ],
        "RadioType": ["sat": RadioType.satellite.rawValue, "sxm": RadioType.satellite.rawValue, "siriusxm": RadioType.satellite.rawValue],
    ]
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
