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

extension JSONValue {
    /// Compact JSON text. Object keys are sorted (by Unicode scalars) when `sortedKeys`,
    /// so the output is deterministic; doubles are written as Python's `repr` writes them
    /// (`21.5`, `1e+20`: the shortest text that reads back the same), integers plain;
    /// non-finite doubles, which JSON cannot express, as `null`.
    public func serialized(sortedKeys: Bool = true) -> String {
        String(decoding: serializedBytes(sortedKeys: sortedKeys), as: UTF8.self)
    }

    /// `serialized(sortedKeys:)` as UTF-8 bytes.
    public func serializedBytes(sortedKeys: Bool = true) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output, sortedKeys: sortedKeys)
        return output
    }

    /// Appends the compact JSON text of this value to `output`.
    public func write(to output: inout [UInt8], sortedKeys: Bool = true) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case let .bool(value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case let .integer(value): output.append(contentsOf: String(value).utf8)
        case let .number(value):
            if value.isFinite { JSONBytes.appendDouble(value, to: &output) } else { output.append(contentsOf: "null".utf8) }
        case let .string(value): JSONBytes.appendString(value, to: &output)
        case let .array(values):
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                value.write(to: &output, sortedKeys: sortedKeys)
            }
            output.append(UInt8(ascii: "]"))
        case let .object(values):
            output.append(UInt8(ascii: "{"))
            // The members themselves are sorted, not their keys: no lookup per key.
            let members = sortedKeys && values.count > 1 ? values.sorted { JSONBytes.precedes($0.key, $1.key) } : Array(values)
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONBytes.appendString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output, sortedKeys: sortedKeys)
            }
            output.append(UInt8(ascii: "}"))
        }
    }
}

extension JSONBytes {
    /// A JSON object from `members` and `raw` (members already serialized: a cached
    /// state, frames written straight as bytes), keys in the order `JSONValue` writes
    /// them, so the bytes equal those of the object with the raw text parsed. A name in
    /// both takes the raw value.
    public static func appendObject(_ members: [String: JSONValue], raw: [String: [UInt8]] = [:], to bytes: inout [UInt8]) {
        var all: [(key: String, value: JSONValue?, raw: [UInt8]?)] = members.compactMap { raw[$0.key] == nil ? ($0.key, $0.value, nil) : nil }
        for (key, text) in raw { all.append((key, nil, text)) }
        all.sort { precedes($0.key, $1.key) }
        bytes.append(UInt8(ascii: "{"))
        for (index, member) in all.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(member.key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            if let text = member.raw { bytes.append(contentsOf: text) } else { member.value!.write(to: &bytes, sortedKeys: true) }
        }
        bytes.append(UInt8(ascii: "}"))
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

    /// "a string", "an object", …: what a reader found where it expected something else.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

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
