import CarIntents
import CarplayClient
import CarplayJSON

// Values as a person reads them, in carplayctl's sentences and tables and the dash.

/// "21.5", "1010", "true" -> "on"… for sentences and tables.
public func readableNumber(_ value: Double) -> String {
    let rounded = (value * 100).rounded() / 100
    if rounded.rounded() == rounded, abs(rounded) < 1e15 { return String(Int(rounded)) }
    return rounded.description
}

/// A JSON value as a person reads it: strings bare, numbers short, booleans on/off,
/// temperatures with their unit, objects as `key value` pairs.
public func readable(_ value: JSONValue) -> String {
    switch value {
    case .null: return "-"
    case let .bool(flag): return flag ? "on" : "off"
    case let .integer(number): return String(number)
    case let .number(number): return readableNumber(number)
    case let .string(text): return text
    case let .array(values): return values.map(readable).joined(separator: ", ")
    case let .object(object):
        if let number = object["value"]?.doubleValue, let unit = object["unit"]?.stringValue { return readable(number, unit: unit) }
        return object.keys.sorted().map { "\($0) \(readable(object[$0]!))" }.joined(separator: ", ")
    }
}

/// A flag as a sentence says it.
public func readable(_ flag: Bool) -> String { flag ? "on" : "off" }

/// A distance, power or energy of a response, as a temperature is.
public func readable(_ quantity: Quantity) -> String { readable(quantity.value, unit: quantity.unit.rawValue) }

/// "21.5 °C", "420 km", "150 kilowatts".
public func readable(_ number: Double, unit: String) -> String {
    switch unit {
    case "celsius": "\(readableNumber(number)) °C"
    case "fahrenheit": "\(readableNumber(number)) °F"
    case "kilometers": "\(readableNumber(number)) km"
    default: "\(readableNumber(number)) \(unit)"
    }
}

/// "frontLeft" -> "front left", "AUX" stays "AUX".
public func spoken(_ name: String) -> String {
    var words = ""
    var previousLower = false
    for character in name {
        if character.isUppercase, previousLower {
            words += " " + character.lowercased()
        } else {
            words.append(character)
        }
        previousLower = character.isLowercase
    }
    return words
}

/// "front left" -> "Front left".
public func capitalizedFirst(_ text: String) -> String {
    guard let first = text.first else { return text }
    return first.uppercased() + text.dropFirst()
}

/// Left-aligns `text` in a column of `width` characters.
public func padded(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}
