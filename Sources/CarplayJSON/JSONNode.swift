/// Why a JSON document's content is not what its reader expects: the file (or what
/// else the text came from: `--faults`, a Varlink parameter), a JSON path such as
/// `bindings["seat.frontLeft.heating"].command.signal`, and the reason.
public struct JSONContentError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// A JSON path into the document; empty for the document as a whole.
    public var path: String
    public var reason: String

    public init(file: String, path: String, reason: String) {
        self.file = file
        self.path = path
        self.reason = reason
    }

    /// `<file>: <path>: <reason>` (`<file>: <reason>` when the path is empty).
    public var description: String {
        path.isEmpty ? "\(file): \(reason)" : "\(file): \(path): \(reason)"
    }
}

/// A value at a path in a JSON document, with typed accessors that fail with a
/// `JSONContentError` naming that path: how every JSON the project reads (profiles,
/// fault plans, saved car profiles, vehicle states) is read.
public struct JSONNode: Sendable {
    public let value: JSONValue
    public let path: String
    public let file: String

    public init(value: JSONValue, path: String = "", file: String) {
        self.value = value
        self.path = path
        self.file = file
    }

    /// The root of the JSON text `bytes` from `file`; a syntax error names its line and column.
    public init(parsing bytes: [UInt8], file: String) throws(JSONContentError) {
        do {
            self.init(value: try JSONValue(parsing: bytes), file: file)
        } catch {
            throw JSONContentError(
                file: file, path: "", reason: "not valid JSON: \(error.reason)" + (error.line.map { " at line \($0), column \(error.column ?? 0)" } ?? ""))
        }
    }

    public func error(_ reason: String) -> JSONContentError { JSONContentError(file: file, path: path, reason: reason) }

    /// `a.b` for identifier-like keys, `a["x.y"]` for keys chosen by the profile's author.
    public func childPath(_ key: String, quoted: Bool) -> String {
        if quoted { return "\(path)[\"\(key)\"]" }
        return path.isEmpty ? key : "\(path).\(key)"
    }

    /// An object whose keys are not checked: a Varlink reply, to which a newer peer may
    /// add members.
    public func object() throws(JSONContentError) -> JSONObject {
        guard case let .object(fields) = value else { throw error("expected an object, found \(value.typeName)") }
        return JSONObject(fields: fields, node: self)
    }

    /// An object whose keys must all be in `known`.
    public func object(known: [String]) throws(JSONContentError) -> JSONObject {
        let object = try object()
        let unknown = object.fields.keys.filter { !known.contains($0) }.sorted()
        if let first = unknown.first {
            let suggestion = known.first { $0.lowercased() == first.lowercased() || Self.closeEnough($0, first) }
            throw JSONContentError(
                file: file, path: childPath(first, quoted: false),
                reason: "unknown key \"\(first)\"" + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? "") + "; known keys: \(known.joined(separator: ", "))")
        }
        return object
    }

    /// An object with keys chosen by the author (bindings, e2e, values), in sorted key order.
    public func map() throws(JSONContentError) -> [(key: String, node: JSONNode)] {
        guard case let .object(fields) = value else { throw error("expected an object, found \(value.typeName)") }
        return fields.keys.sorted().map { ($0, JSONNode(value: fields[$0]!, path: childPath($0, quoted: true), file: file)) }
    }

    public func array() throws(JSONContentError) -> [JSONNode] {
        guard case let .array(items) = value else { throw error("expected an array, found \(value.typeName)") }
        return items.enumerated().map { JSONNode(value: $1, path: "\(path)[\($0)]", file: file) }
    }

    public func string() throws(JSONContentError) -> String {
        guard case let .string(text) = value else { throw error("expected a string, found \(value.typeName)") }
        return text
    }

    public func nonEmptyString() throws(JSONContentError) -> String {
        let text = try string()
        guard !text.allSatisfy(\.isWhitespace) else { throw error("must not be empty") }
        return text
    }

    public func number() throws(JSONContentError) -> Double {
        guard let number = value.doubleValue else { throw error("expected a number, found \(value.typeName)") }
        return number
    }

    public func integer() throws(JSONContentError) -> Int {
        let number = try number()
        guard number.rounded() == number, abs(number) < 1e15 else { throw error("expected an integer, found \(number)") }
        return Int(number)
    }

    public func bool() throws(JSONContentError) -> Bool {
        guard case let .bool(flag) = value else { throw error("expected true or false, found \(value.typeName)") }
        return flag
    }

    /// A string naming one case of `E`.
    public func enumeration<E: RawRepresentable & CaseIterable>(_ type: E.Type, what: String) throws(JSONContentError) -> E where E.RawValue == String {
        let text = try string()
        guard let value = E(rawValue: text) else {
            throw error("unknown \(what) \"\(text)\"; expected one of \(E.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// One edit apart (a typo): same length with one different character, or one character more or less.
    private static func closeEnough(_ a: String, _ b: String) -> Bool {
        let x = Array(a.lowercased())
        let y = Array(b.lowercased())
        if x.count == y.count { return zip(x, y).filter { $0 != $1 }.count == 1 }
        let (short, long) = x.count < y.count ? (x, y) : (y, x)
        guard long.count == short.count + 1 else { return false }
        var i = 0
        while i < short.count, short[i] == long[i] { i += 1 }
        return Array(short[i...]) == Array(long[(i + 1)...])
    }
}

public struct JSONObject: Sendable {
    public let fields: [String: JSONValue]
    public let node: JSONNode

    public var path: String { node.path }

    public func has(_ key: String) -> Bool { fields[key] != nil }

    public func optional(_ key: String) -> JSONNode? {
        guard let value = fields[key] else { return nil }
        if case .null = value { return nil }
        return JSONNode(value: value, path: node.childPath(key, quoted: false), file: node.file)
    }

    public func required(_ key: String) throws(JSONContentError) -> JSONNode {
        guard let child = optional(key) else {
            throw JSONContentError(file: node.file, path: node.childPath(key, quoted: false), reason: "missing required key \"\(key)\"")
        }
        return child
    }

    /// The path of a key (present or not), for errors about it.
    public func path(_ key: String) -> String { node.childPath(key, quoted: false) }
}
