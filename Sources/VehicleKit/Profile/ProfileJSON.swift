import Foundation

/// The JSON text of a profile as a tree, read with Foundation's `JSONSerialization`.
enum ProfileJSON {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ProfileJSON])
    case object([String: ProfileJSON])

    init(_ any: Any) {
        switch any {
        case let number as NSNumber:
            // JSONSerialization gives booleans as NSNumber with the `c` (char) type.
            if String(cString: number.objCType) == "c" {
                self = .bool(number.boolValue)
            } else {
                self = .number(number.doubleValue)
            }
        case let text as String: self = .string(text)
        case let array as [Any]: self = .array(array.map(ProfileJSON.init))
        case let dictionary as [String: Any]: self = .object(dictionary.mapValues(ProfileJSON.init))
        default: self = .null
        }
    }

    static func parse(_ bytes: [UInt8]) throws -> ProfileJSON {
        ProfileJSON(try JSONSerialization.jsonObject(with: Data(bytes), options: []))
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A value at a path in the profile, with typed accessors that fail with a
/// `ProfileError` naming that path.
struct JSONNode {
    let value: ProfileJSON
    let path: String
    let file: String

    func error(_ reason: String) -> ProfileError { ProfileError(file: file, path: path, reason: reason) }

    /// `a.b` for identifier-like keys, `a["x.y"]` for keys chosen by the profile's author.
    func childPath(_ key: String, quoted: Bool) -> String {
        if quoted { return "\(path)[\"\(key)\"]" }
        return path.isEmpty ? key : "\(path).\(key)"
    }

    /// An object whose keys must all be in `known`.
    func object(known: [String]) throws(ProfileError) -> JSONObject {
        guard case let .object(fields) = value else { throw error("expected an object, found \(value.typeName)") }
        let unknown = fields.keys.filter { !known.contains($0) }.sorted()
        if let first = unknown.first {
            let suggestion = known.first { $0.lowercased() == first.lowercased() || Self.closeEnough($0, first) }
            throw ProfileError(
                file: file, path: childPath(first, quoted: false),
                reason: "unknown key \"\(first)\"" + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? "") + "; known keys: \(known.joined(separator: ", "))")
        }
        return JSONObject(fields: fields, node: self)
    }

    /// An object with keys chosen by the author (bindings, e2e, values), in sorted key order.
    func map() throws(ProfileError) -> [(key: String, node: JSONNode)] {
        guard case let .object(fields) = value else { throw error("expected an object, found \(value.typeName)") }
        return fields.keys.sorted().map { ($0, JSONNode(value: fields[$0]!, path: childPath($0, quoted: true), file: file)) }
    }

    func array() throws(ProfileError) -> [JSONNode] {
        guard case let .array(items) = value else { throw error("expected an array, found \(value.typeName)") }
        return items.enumerated().map { JSONNode(value: $1, path: "\(path)[\($0)]", file: file) }
    }

    func string() throws(ProfileError) -> String {
        guard case let .string(text) = value else { throw error("expected a string, found \(value.typeName)") }
        return text
    }

    func nonEmptyString() throws(ProfileError) -> String {
        let text = try string()
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw error("must not be empty") }
        return text
    }

    func number() throws(ProfileError) -> Double {
        guard case let .number(number) = value else { throw error("expected a number, found \(value.typeName)") }
        return number
    }

    func integer() throws(ProfileError) -> Int {
        let number = try number()
        guard number.rounded() == number, abs(number) < 1e15 else { throw error("expected an integer, found \(number)") }
        return Int(number)
    }

    func bool() throws(ProfileError) -> Bool {
        guard case let .bool(flag) = value else { throw error("expected true or false, found \(value.typeName)") }
        return flag
    }

    /// A string naming one case of `E`.
    func enumeration<E: RawRepresentable & CaseIterable>(_ type: E.Type, what: String) throws(ProfileError) -> E where E.RawValue == String {
        let text = try string()
        guard let value = E(rawValue: text) else {
            throw error("unknown \(what) \"\(text)\"; expected one of \(E.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// One edit apart (a typo): same length with one different character, or one character more or less.
    private static func closeEnough(_ a: String, _ b: String) -> Bool {
        let x = Array(a.lowercased()), y = Array(b.lowercased())
        if x.count == y.count { return zip(x, y).filter { $0 != $1 }.count == 1 }
        let (short, long) = x.count < y.count ? (x, y) : (y, x)
        guard long.count == short.count + 1 else { return false }
        var i = 0
        while i < short.count, short[i] == long[i] { i += 1 }
        return Array(short[i...]) == Array(long[(i + 1)...])
    }
}

struct JSONObject {
    let fields: [String: ProfileJSON]
    let node: JSONNode

    var path: String { node.path }

    func has(_ key: String) -> Bool { fields[key] != nil }

    func optional(_ key: String) -> JSONNode? {
        guard let value = fields[key] else { return nil }
        if case .null = value { return nil }
        return JSONNode(value: value, path: node.childPath(key, quoted: false), file: node.file)
    }

    func required(_ key: String) throws(ProfileError) -> JSONNode {
        guard let child = optional(key) else {
            throw ProfileError(file: node.file, path: node.childPath(key, quoted: false), reason: "missing required key \"\(key)\"")
        }
        return child
    }

    /// The path of a key (present or not), for errors about it.
    func path(_ key: String) -> String { node.childPath(key, quoted: false) }
}
