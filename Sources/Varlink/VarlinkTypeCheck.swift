import CarplayJSON

/// A value that does not have its declared type: where (`temperature.unit`,
/// `signals[1]`, `seat[frontLeft].heating`) and what was expected and found.
public struct VarlinkTypeMismatch: Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

extension VarlinkInterfaceDefinition {
    /// The first field of `parameters` that does not fit `fields` (a method's input or
    /// output): a missing required field, an unknown one, or a value of another type.
    /// Strict, as a generic client may be: no member the definition does not declare.
    public func mismatch(of parameters: [String: JSONValue], against fields: [VarlinkField], path: String = "") -> VarlinkTypeMismatch? {
        for field in fields {
            let fieldPath = path.isEmpty ? field.name : path + "." + field.name
            if let problem = mismatch(of: parameters[field.name], against: field.type, path: fieldPath) { return problem }
        }
        // Sorted only to name an unknown one (the first in order): every call got here.
        guard parameters.keys.contains(where: { key in !fields.contains { $0.name == key } }) else { return nil }
        for key in parameters.keys.sorted() where !fields.contains(where: { $0.name == key }) {
            let known = fields.map(\.name).joined(separator: ", ")
            return VarlinkTypeMismatch(path: path.isEmpty ? key : path + "." + key, reason: "no such field (expected \(known.isEmpty ? "none" : known))")
        }
        return nil
    }

    /// `value` nil is an absent member; JSON null counts as absent too (as for the
    /// Varlink reference implementations).
    public func mismatch(of value: JSONValue?, against type: VarlinkType, path: String) -> VarlinkTypeMismatch? {
        let present: JSONValue? = if case .null? = value { nil } else { value }
        if case let .optional(element) = type {
            guard let present else { return nil }
            return mismatch(of: present, against: element, path: path)
        }
        guard let value = present else { return VarlinkTypeMismatch(path: path, reason: "missing (\(Self.name(of: type)))") }
        func wrong() -> VarlinkTypeMismatch {
            VarlinkTypeMismatch(path: path, reason: "expected \(Self.name(of: type)), found \(value.shortDescription)")
        }
        switch type {
        case .bool: return value.boolValue == nil ? wrong() : nil
        case .int: return value.intValue == nil ? wrong() : nil
        case .float: return value.doubleValue == nil ? wrong() : nil
        case .string: return value.stringValue == nil ? wrong() : nil
        case .object: return value.objectValue == nil ? wrong() : nil
        case let .named(name):
            guard let declared = types[name] else { return VarlinkTypeMismatch(path: path, reason: "undeclared type \(name)") }
            return mismatch(of: value, against: declared, path: path)
        case .optional: return nil  // handled above
        case let .array(element):
            guard let elements = value.arrayValue else { return wrong() }
            for (index, element_) in elements.enumerated() {
                if let problem = mismatch(of: element_, against: element, path: "\(path)[\(index)]") { return problem }
            }
            return nil
        case let .map(element):
            guard let members = value.objectValue else { return wrong() }
            for key in members.keys.sorted() {
                if let problem = mismatch(of: members[key], against: element, path: "\(path)[\(key)]") { return problem }
            }
            return nil
        case let .structure(fields):
            guard let members = value.objectValue else { return wrong() }
            return mismatch(of: members, against: fields, path: path)
        case let .enumeration(cases):
            guard let text = value.stringValue else { return wrong() }
            return cases.contains(text)
                ? nil : VarlinkTypeMismatch(path: path, reason: "expected one of \(cases.joined(separator: ", ")), found \(value.shortDescription)")
        }
    }

    /// How a type reads in an error: `a float`, `one of driver, passenger, …`, `Temperature`.
    static func name(of type: VarlinkType) -> String {
        switch type {
        case .bool: "a bool"
        case .int: "an int"
        case .float: "a float"
        case .string: "a string"
        case .object: "an object"
        case let .named(name): name
        case let .optional(element): name(of: element)
        case let .array(element): "an array of \(name(of: element))"
        case let .map(element): "a map of \(name(of: element))"
        case .structure: "an object"
        case let .enumeration(cases): "one of \(cases.joined(separator: ", "))"
        }
    }
}
