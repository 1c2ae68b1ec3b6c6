/// A Varlink interface definition as data (the interface description language of
/// varlink.org): its types, methods and errors. Parsed from the text the service
/// serves, so the text is the one declaration -- calls are checked against it
/// (`VarlinkType.mismatch(of:)`) and tests check replies against it.
public struct VarlinkInterfaceDefinition: Sendable {
    public struct Method: Sendable {
        public var input: [VarlinkField]
        public var output: [VarlinkField]
    }

    public var name: String
    /// `type Name (...)`: structs and enums, by name.
    public var types: [String: VarlinkType]
    public var methods: [String: Method]
    public var errors: [String: [VarlinkField]]
    /// Member names in the order the text declares them.
    public var order: [String]

    /// A text embedded at build time (and parsed by the tests): a parse error is a build
    /// defect, so it stops the program, naming `source`.
    public init(embedded text: String, source: String) {
        do {
            self = try VarlinkInterfaceDefinition(parsing: text)
        } catch {
            fatalError("\(source): \(error)")
        }
    }

    public init(parsing text: String) throws(VarlinkIDLError) {
        var parser = IDLParser(Array(text.utf8))
        try parser.expectWord("interface")
        name = try parser.interfaceName()
        types = [:]
        methods = [:]
        errors = [:]
        order = []
        while !parser.atEnd {
            let keyword = try parser.word()
            let member = try parser.word()
            if order.contains(member) { throw parser.error("\(member) is declared twice") }
            switch keyword {
            case "type": types[member] = try parser.typeDefinition()
            case "method":
                let input = try parser.structFields()
                try parser.expectArrow()
                methods[member] = Method(input: input, output: try parser.structFields())
            case "error": errors[member] = try parser.structFields()
            default: throw parser.error("expected type, method or error, found \(keyword)")
            }
            order.append(member)
        }
        for (member, type) in types { try check(type, in: member) }
        for (member, method) in methods { for field in method.input + method.output { try check(field.type, in: member) } }
        for (member, fields) in errors { for field in fields { try check(field.type, in: member) } }
    }

    /// Every named type a member uses is declared.
    private func check(_ type: VarlinkType, in member: String) throws(VarlinkIDLError) {
        switch type {
        case let .named(name) where types[name] == nil:
            throw VarlinkIDLError(line: 0, column: 0, message: "\(member) uses the undeclared type \(name)")
        case let .optional(element), let .array(element), let .map(element): try check(element, in: member)
        case let .structure(fields): for field in fields { try check(field.type, in: member) }
        default: break
        }
    }
}

public struct VarlinkField: Sendable, Hashable {
    public var name: String
    public var type: VarlinkType
}

public indirect enum VarlinkType: Sendable, Hashable {
    case bool, int, float, string
    /// A foreign JSON object, unchecked.
    case object
    case named(String)
    case optional(VarlinkType)
    case array(VarlinkType)
    case map(VarlinkType)
    case structure([VarlinkField])
    case enumeration([String])
}

/// Where the text is not a valid interface definition (line and column from 1; 0 for
/// a whole-interface error such as an undeclared type).
public struct VarlinkIDLError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String { line > 0 ? "\(line):\(column): \(message)" : message }
}

/// A small recursive-descent reader of the definition language; `#` starts a comment.
private struct IDLParser {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool {
        mutating get {
            skipBlanks()
            return index == bytes.count
        }
    }

    func error(_ message: String) -> VarlinkIDLError {
        var line = 1
        var column = 1
        for byte in bytes[..<min(index, bytes.count)] {
            if byte == UInt8(ascii: "\n") { (line, column) = (line + 1, 1) } else { column += 1 }
        }
        return VarlinkIDLError(line: line, column: column, message: message)
    }

    mutating func skipBlanks() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            case UInt8(ascii: "#"): while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            default: return
            }
        }
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
    }

    mutating func word() throws(VarlinkIDLError) -> String {
        skipBlanks()
        let start = index
        while index < bytes.count, Self.isWordByte(bytes[index]) { index += 1 }
        guard index > start else { throw error("expected a name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func expectWord(_ expected: String) throws(VarlinkIDLError) {
        let found = try word()
        if found != expected { throw error("expected \(expected), found \(found)") }
    }

    /// `io.carplayd.Vehicle`: words joined by dots (and dashes).
    mutating func interfaceName() throws(VarlinkIDLError) -> String {
        skipBlanks()
        let start = index
        while index < bytes.count, Self.isWordByte(bytes[index]) || bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "-") {
            index += 1
        }
        guard index > start else { throw error("expected the interface's name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func peek() -> UInt8? {
        skipBlanks()
        return index < bytes.count ? bytes[index] : nil
    }

    mutating func expect(_ byte: UInt8) throws(VarlinkIDLError) {
        guard peek() == byte else { throw error("expected \"\(Character(Unicode.Scalar(byte)))\"") }
        index += 1
    }

    mutating func expectArrow() throws(VarlinkIDLError) {
        try expect(UInt8(ascii: "-"))
        guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { throw error("expected \"->\"") }
        index += 1
    }

    /// `type Name` is followed by a struct or an enum.
    mutating func typeDefinition() throws(VarlinkIDLError) -> VarlinkType { try parenthesized() }

    mutating func structFields() throws(VarlinkIDLError) -> [VarlinkField] {
        let at = index
        guard case let .structure(fields) = try parenthesized() else {
            index = at
            throw error("expected a struct (name: type, ...)")
        }
        return fields
    }

    /// `(name: type, ...)` or `(case, ...)`; `()` is the empty struct.
    mutating func parenthesized() throws(VarlinkIDLError) -> VarlinkType {
        try expect(UInt8(ascii: "("))
        if peek() == UInt8(ascii: ")") {
            index += 1
            return .structure([])
        }
        var fields: [VarlinkField] = []
        var cases: [String] = []
        while true {
            let name = try word()
            if peek() == UInt8(ascii: ":") {
                guard cases.isEmpty else { throw error("an enum's cases have no types") }
                index += 1
                if fields.contains(where: { $0.name == name }) { throw error("field \(name) is declared twice") }
                fields.append(VarlinkField(name: name, type: try typeExpression()))
            } else {
                guard fields.isEmpty else { throw error("expected \":\" and the type of \(name)") }
                if cases.contains(name) { throw error("case \(name) is declared twice") }
                cases.append(name)
            }
            if peek() == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: ")"))
            return cases.isEmpty ? .structure(fields) : .enumeration(cases)
        }
    }

    mutating func typeExpression() throws(VarlinkIDLError) -> VarlinkType {
        switch peek() {
        case UInt8(ascii: "?"):
            index += 1
            if peek() == UInt8(ascii: "?") { throw error("a type is optional once") }
            return .optional(try typeExpression())
        case UInt8(ascii: "["):
            index += 1
            if peek() == UInt8(ascii: "]") {
                index += 1
                return .array(try typeExpression())
            }
            try expectWord("string")
            try expect(UInt8(ascii: "]"))
            return .map(try typeExpression())
        case UInt8(ascii: "("):
            return try parenthesized()
        default:
            let name = try word()
            switch name {
            case "bool": return .bool
            case "int": return .int
            case "float": return .float
            case "string": return .string
            case "object": return .object
            default:
                guard let first = name.utf8.first, first >= UInt8(ascii: "A"), first <= UInt8(ascii: "Z") else {
                    throw error("unknown type \(name)")
                }
                return .named(name)
            }
        }
    }
}
