import CarplayJSON
import VehicleKit

// Each intent's parameters are declared once, as data: name, kind and where the value
// lives in the typed parameters. The parser, the JSON form, the parameter lists, the
// Varlink interface's check and docs/INTENTS.md's table are derived from it.

/// What an intent parameter takes. `typeName` is the name the Varlink interface
/// (docs/io.carplayd.Vehicle.varlink) and docs/INTENTS.md give the type.
public enum ParameterKind: Sendable, Hashable {
    case bool
    case integer
    /// A number, within `range` when there is one.
    case number(range: ClosedRange<Double>?)
    case string
    /// `{"value": number, "unit": "celsius" | "fahrenheit"}`.
    case temperature
    /// A string, or an integer read as one (a channel number).
    case channel
    /// One of SiriKit's case names (`names`), or an alias (`aliases`: alias -> name).
    case enumeration(typeName: String, names: [String], aliases: [String: String])
    /// An array of `CarSignal` names.
    case signals

    /// The Varlink type of the parameter's value.
    public var varlinkType: String {
        switch self {
        case .bool: "bool"
        case .integer: "int"
        case .number: "float"
        case .string, .channel: "string"
        case .temperature: "Temperature"
        case let .enumeration(typeName, _, _): typeName
        case .signals: "[]CarSignal"
        }
    }

    /// The type as docs/INTENTS.md writes it.
    public var documentedType: String {
        switch self {
        case .bool: "bool"
        case .integer: "integer"
        case let .number(range):
            range.map { "number \(formatNumber($0.lowerBound))…\(formatNumber($0.upperBound))" } ?? "number"
        case .string, .channel: "string"
        case .temperature: "Temperature"
        case let .enumeration(typeName, _, _): typeName
        case .signals: "array of CarSignal"
        }
    }
}

/// One parameter of the typed parameters `P`: its name (SiriKit's), its kind, the other
/// names a reader accepts, and how its value is read into `P` and written from it.
public struct ParameterDeclaration<P>: Sendable {
    public let name: String
    public let kind: ParameterKind
    public let aliases: [String]
    let read: @Sendable (ParameterReader, inout P) throws(IntentParseError) -> Void
    let write: @Sendable (P) -> JSONValue?
}

extension ParameterDeclaration {
    /// A parameter whose value `T` is read by `read` (from the reader, by name) and written
    /// by `write`: what every kind below shares.
    static func value<T>(
        _ name: String, _ path: WritableKeyPath<P, T?> & Sendable, kind: ParameterKind, aliases: [String] = [],
        read: @escaping @Sendable (ParameterReader, String) throws(IntentParseError) -> T?, write: @escaping @Sendable (T) -> JSONValue
    ) -> Self {
        Self(name: name, kind: kind, aliases: aliases) { reader, parameters throws(IntentParseError) in
            if let value = try read(reader, name) { parameters[keyPath: path] = value }
        } write: {
            $0[keyPath: path].map(write)
        }
    }

    public static func bool(_ name: String, _ path: WritableKeyPath<P, Bool?> & Sendable) -> Self {
        value(name, path, kind: .bool, read: { r, n throws(IntentParseError) in try r.bool(n) }, write: JSONValue.bool)
    }

    public static func integer(_ name: String, _ path: WritableKeyPath<P, Int?> & Sendable) -> Self {
        value(name, path, kind: .integer, read: { r, n throws(IntentParseError) in try r.integer(n) }, write: JSONValue.integer)
    }

    public static func number(_ name: String, _ path: WritableKeyPath<P, Double?> & Sendable, in range: ClosedRange<Double>? = nil) -> Self {
        value(name, path, kind: .number(range: range), read: { r, n throws(IntentParseError) in try r.number(n, in: range) }, write: JSONValue.number)
    }

    public static func string(_ name: String, _ path: WritableKeyPath<P, String?> & Sendable) -> Self {
        value(name, path, kind: .string, read: { r, n throws(IntentParseError) in try r.string(n) }, write: JSONValue.string)
    }

    public static func temperature(_ name: String, _ path: WritableKeyPath<P, Temperature?> & Sendable) -> Self {
        value(name, path, kind: .temperature, read: { r, n throws(IntentParseError) in try r.temperature(n) }, write: \.jsonValue)
    }

    public static func channel(_ name: String, _ path: WritableKeyPath<P, String?> & Sendable) -> Self {
        value(name, path, kind: .channel, read: { r, n throws(IntentParseError) in try r.channel(n) }, write: JSONValue.string)
    }

    public static func enumeration<E: SiriKitEnumeration>(
        _ name: String, _ path: WritableKeyPath<P, E?> & Sendable, type typeName: String, aliases: [String] = []
    ) -> Self {
        var caseAliases: [String: String] = [:]
        for value in E.allCases { for alias in value.aliases { caseAliases[alias] = value.rawValue } }
        return value(
            name, path, kind: .enumeration(typeName: typeName, names: E.names, aliases: caseAliases), aliases: aliases,
            read: { r, n throws(IntentParseError) in try r.enumeration(n, E.self) }, write: { .string($0.rawValue) })
    }

    public static func signals(_ name: String, _ path: WritableKeyPath<P, [CarSignal]?> & Sendable) -> Self {
        value(
            name, path, kind: .signals, read: { r, n throws(IntentParseError) in try r.signals(n) },
            write: { .array($0.map { .string($0.rawValue) }) })
    }
}

/// Typed parameters declared as data: `parameters` in SiriKit's order (the order of the
/// SiriKit initializer's arguments).
public protocol DeclaredParameters: Sendable, Hashable {
    init()
    static var parameters: [ParameterDeclaration<Self>] { get }
}

extension DeclaredParameters {
    /// The parameters read from `reader` (every one absent from it stays nil).
    init(reading reader: ParameterReader) throws(IntentParseError) {
        self.init()
        // Only the few given are read (in declared order, so the first error is SiriKit's first).
        for parameter in Self.parameters where reader[parameter.name] != nil { try parameter.read(reader, &self) }
    }

    /// The given parameters, in SiriKit order, as JSON values.
    var values: [(name: String, value: JSONValue)] {
        Self.parameters.compactMap { parameter in parameter.write(self).map { (parameter.name, $0) } }
    }

    /// Each parameter's name, kind and aliases, without the typed access.
    static var signature: [ParameterSignature] {
        parameters.map { ParameterSignature(name: $0.name, kind: $0.kind, aliases: $0.aliases) }
    }
}

/// A parameter as the interface and the documents see it.
public struct ParameterSignature: Sendable, Hashable {
    public let name: String
    public let kind: ParameterKind
    public let aliases: [String]
}

extension Intent {
    /// The kind of parameter `name` in any intent (a name has one kind everywhere); nil
    /// for a name no intent declares.
    public static func kind(ofParameter name: String) -> ParameterKind? {
        for intent in IntentName.allCases {
            if let parameter = signature(of: intent).first(where: { $0.name == name }) { return parameter.kind }
        }
        return nil
    }
}
