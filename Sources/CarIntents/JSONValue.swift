import Foundation

/// A JSON value as the intent API reads and writes it. `integer` and `number` are
/// kept apart: `21` parses as `.integer(21)`, `21.5` and `21.0` as `.number`.
/// `true` is `.bool(true)`, never `.integer(1)`.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

/// Why bytes are not a JSON value.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension JSONValue {
    /// Parses JSON text (any value at the top level, objects included) with Foundation's
    /// `JSONSerialization`, keeping booleans, integers and floating-point numbers apart.
    /// Integers beyond `Int` become `.number`.
    public init(parsing bytes: [UInt8]) throws(JSONError) {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw JSONError("malformed JSON" + (detail.map { ": \($0)" } ?? ""))
        }
        self = try Self.convert(object)
    }

    /// Parses JSON text.
    public init(parsing text: String) throws(JSONError) {
        try self.init(parsing: Array(text.utf8))
    }

    /// `NSNumber(value: true)`'s class: on Linux `JSONSerialization` returns booleans as
    /// instances of it, while `1` is a plain `NSNumber` (which still casts to `Bool`,
    /// so `as? Bool` cannot tell them apart).
    private static let booleanClass: AnyClass = type(of: NSNumber(value: true))

    private static func convert(_ object: Any) throws(JSONError) -> JSONValue {
        switch object {
        case is NSNull:
            return .null
        case let string as String:
            return .string(string)
        case let number as NSNumber:
            if type(of: number) == booleanClass { return .bool(number.boolValue) }
            switch String(cString: number.objCType) {
            case "d", "f":
                return .number(number.doubleValue)
            case "Q":
                let value = number.uint64Value
                if let small = Int(exactly: value) { return .integer(small) }
                return .number(Double(value))
            default:
                return .integer(number.intValue)
            }
        case let array as [Any]:
            var values: [JSONValue] = []
            values.reserveCapacity(array.count)
            for element in array { values.append(try convert(element)) }
            return .array(values)
        case let dictionary as [String: Any]:
            var values: [String: JSONValue] = [:]
            for (key, element) in dictionary { values[key] = try convert(element) }
            return .object(values)
        default:
            throw JSONError("unexpected JSON value of type \(type(of: object))")
        }
    }

    /// Compact JSON text. Object keys are sorted (by Unicode scalars) when `sortedKeys`,
    /// so the output is deterministic; doubles use Swift's shortest round-tripping
    /// representation (`21.5`, `1e+20`), integers are plain; non-finite doubles, which
    /// JSON cannot express, are written as `null`.
    public func serialized(sortedKeys: Bool = true) -> String {
        var output = ""
        write(to: &output, sortedKeys: sortedKeys)
        return output
    }

    private func write(to output: inout String, sortedKeys: Bool) {
        switch self {
        case .null: output += "null"
        case let .bool(value): output += value ? "true" : "false"
        case let .integer(value): output += String(value)
        case let .number(value): output += value.isFinite ? value.description : "null"
        case let .string(value): Self.writeString(value, to: &output)
        case let .array(values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output, sortedKeys: sortedKeys)
            }
            output += "]"
        case let .object(values):
            output += "{"
            let keys = sortedKeys ? values.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) } : Array(values.keys)
            for (index, key) in keys.enumerated() {
                if index > 0 { output += "," }
                Self.writeString(key, to: &output)
                output += ":"
                values[key]!.write(to: &output, sortedKeys: sortedKeys)
            }
            output += "}"
        }
    }

    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { serialized() }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    public var stringValue: String? { if case let .string(value) = self { value } else { nil } }
    public var boolValue: Bool? { if case let .bool(value) = self { value } else { nil } }
    /// Integers, and numbers with an integral value.
    public var intValue: Int? {
        switch self {
        case let .integer(value): value
        case let .number(value): Int(exactly: value)
        default: nil
        }
    }
    /// Integers and numbers.
    public var doubleValue: Double? {
        switch self {
        case let .integer(value): Double(value)
        case let .number(value): value
        default: nil
        }
    }
    public var arrayValue: [JSONValue]? { if case let .array(value) = self { value } else { nil } }
    public var objectValue: [String: JSONValue]? { if case let .object(value) = self { value } else { nil } }

    /// A short description of what kind of value this is, for error messages:
    /// the value itself for scalars (`"trunk"`, `12`, `true`), "an array" / "an object".
    public var shortDescription: String {
        switch self {
        case .array: "an array"
        case .object: "an object"
        default: serialized()
        }
    }
}
