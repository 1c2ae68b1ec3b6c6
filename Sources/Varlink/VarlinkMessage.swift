import CarplayJSON

/// A method call: `{"method":"io.carplayd.Vehicle.GetState","parameters":{…},"more":true}`.
public struct VarlinkCall: Sendable, Hashable {
    public var method: String
    public var parameters: [String: JSONValue]
    /// The caller wants no reply.
    public var oneway: Bool
    /// The caller accepts several replies (`continues: true` on all but the last).
    public var more: Bool
    public var upgrade: Bool

    public init(method: String, parameters: [String: JSONValue] = [:], oneway: Bool = false, more: Bool = false, upgrade: Bool = false) {
        self.method = method
        self.parameters = parameters
        self.oneway = oneway
        self.more = more
        self.upgrade = upgrade
    }

    /// "io.carplayd.Vehicle" of "io.carplayd.Vehicle.GetState".
    public var interface: String {
        guard let dot = lastDot else { return "" }
        return String(method.utf8[..<dot])!
    }

    /// "GetState" of "io.carplayd.Vehicle.GetState".
    public var member: String {
        guard let dot = lastDot else { return method }
        return String(method.utf8[method.utf8.index(after: dot)...])!
    }

    /// Searched in the UTF-8 view: as Characters, every call paid for grapheme breaking
    /// backwards through the name, twice.
    private var lastDot: String.Index? { method.utf8.lastIndex(of: UInt8(ascii: ".")) }

    /// Parses one message (without its NUL). Errors say what is wrong for the error reply.
    public init(parsing bytes: [UInt8]) throws(VarlinkError) {
        let json: JSONValue
        do { json = try JSONValue(parsing: bytes) } catch { throw .invalidMessage("malformed JSON: \(error)") }
        guard case let .object(object) = json else { throw .invalidMessage("a call is a JSON object") }
        // One walk over the members, not a lookup of each of the five by name.
        var given: (method: JSONValue?, parameters: JSONValue?, oneway: JSONValue?, more: JSONValue?, upgrade: JSONValue?)
        for (key, value) in object {
            switch key {
            case "method": given.method = value
            case "parameters": given.parameters = value
            case "oneway": given.oneway = value
            case "more": given.more = value
            case "upgrade": given.upgrade = value
            default: throw .invalidMessage("unknown field \"\(key)\" in the call")
            }
        }
        guard case let .string(method)? = given.method, !method.isEmpty else { throw .invalidMessage("the call has no \"method\" string") }
        var parameters: [String: JSONValue] = [:]
        switch given.parameters {
        case nil, .null?: break
        case let .object(value)?: parameters = value
        default: throw .invalidParameter("parameters")
        }
        func flag(_ value: JSONValue?, _ name: String) throws(VarlinkError) -> Bool {
            switch value {
            case nil, .null?: return false
            case let .bool(value)?: return value
            default: throw .invalidMessage("\"\(name)\" must be a boolean")
            }
        }
        self.init(
            method: method, parameters: parameters, oneway: try flag(given.oneway, "oneway"), more: try flag(given.more, "more"),
            upgrade: try flag(given.upgrade, "upgrade"))
    }

    public func serialized() -> [UInt8] {
        var object: [String: JSONValue] = ["method": .string(method)]
        if !parameters.isEmpty { object["parameters"] = .object(parameters) }
        if oneway { object["oneway"] = .bool(true) }
        if more { object["more"] = .bool(true) }
        if upgrade { object["upgrade"] = .bool(true) }
        var bytes = JSONValue.object(object).serializedBytes(sortedKeys: true)
        bytes.append(0)
        return bytes
    }
}

/// A reply: `{"parameters":{…}}`, `{"parameters":{…},"continues":true}` or `{"error":"…","parameters":{…}}`.
public struct VarlinkReply: Sendable, Hashable {
    public var parameters: [String: JSONValue]
    public var continues: Bool
    public var error: String?

    public init(parameters: [String: JSONValue] = [:], continues: Bool = false, error: String? = nil) {
        self.parameters = parameters
        self.continues = continues
        self.error = error
    }

    public static func error(_ error: VarlinkError) -> VarlinkReply {
        VarlinkReply(parameters: error.parameters, continues: false, error: error.name)
    }

    public init(parsing bytes: [UInt8]) throws(VarlinkError) {
        let json: JSONValue
        do { json = try JSONValue(parsing: bytes) } catch { throw .invalidMessage("malformed JSON in reply: \(error)") }
        guard case let .object(object) = json else { throw .invalidMessage("a reply is a JSON object") }
        var parameters: [String: JSONValue] = [:]
        if case let .object(value)? = object["parameters"] { parameters = value }
        var continues = false
        if case let .bool(value)? = object["continues"] { continues = value }
        var error: String?
        if case let .string(value)? = object["error"] { error = value }
        self.init(parameters: parameters, continues: continues, error: error)
    }

    public func serialized() -> [UInt8] {
        var object: [String: JSONValue] = ["parameters": .object(parameters)]
        if continues { object["continues"] = .bool(true) }
        if let error { object["error"] = .string(error) }
        var bytes = JSONValue.object(object).serializedBytes(sortedKeys: true)
        bytes.append(0)
        return bytes
    }

    /// `serialized()` of this reply with one more parameter, `name`, whose value is
    /// already serialized JSON text (`raw`): the same bytes as with the parsed value,
    /// without building and serializing it again (a cached state, say).
    public func serialized(adding name: String, raw: [UInt8]) -> [UInt8] {
        serialized(adding: [name: raw])
    }

    /// `serialized()` with more parameters given as serialized JSON text, by name (a
    /// name also in `parameters` takes the raw value).
    public func serialized(adding raw: [String: [UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.values.reduce(256) { $0 + $1.count })
        // Keys in UTF-8 order, as `JSONValue` writes them: continues, error, parameters.
        bytes.append(UInt8(ascii: "{"))
        if continues { bytes.append(contentsOf: #""continues":true,"#.utf8) }
        if let error {
            bytes.append(contentsOf: #""error":"#.utf8)
            JSONBytes.appendString(error, to: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        bytes.append(contentsOf: #""parameters":"#.utf8)
        JSONBytes.appendObject(parameters, raw: raw, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        bytes.append(0)
        return bytes
    }
}

/// A Varlink error: a qualified name and its parameters.
public struct VarlinkError: Error, Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var parameters: [String: JSONValue]

    public init(_ name: String, _ parameters: [String: JSONValue] = [:]) {
        self.name = name
        self.parameters = parameters
    }

    public var description: String {
        parameters.isEmpty ? name : "\(name) \(JSONValue.object(parameters).serialized(sortedKeys: true))"
    }

    // org.varlink.service errors.
    public static func interfaceNotFound(_ interface: String) -> VarlinkError {
        VarlinkError("org.varlink.service.InterfaceNotFound", ["interface": .string(interface)])
    }
    public static func methodNotFound(_ method: String) -> VarlinkError {
        VarlinkError("org.varlink.service.MethodNotFound", ["method": .string(method)])
    }
    public static func methodNotImplemented(_ method: String) -> VarlinkError {
        VarlinkError("org.varlink.service.MethodNotImplemented", ["method": .string(method)])
    }
    public static func invalidParameter(_ parameter: String) -> VarlinkError {
        VarlinkError("org.varlink.service.InvalidParameter", ["parameter": .string(parameter)])
    }
    public static let permissionDenied = VarlinkError("org.varlink.service.PermissionDenied")
    public static let expectedMore = VarlinkError("org.varlink.service.ExpectedMore")
    /// A message that is no valid call (malformed JSON, no NUL within the size limit):
    /// reported as InvalidParameter on "message", with the reason.
    public static func invalidMessage(_ reason: String) -> VarlinkError {
        VarlinkError("org.varlink.service.InvalidParameter", ["parameter": .string("message"), "reason": .string(reason)])
    }
}

/// Splits a byte stream into NUL-terminated messages, at most `limit` bytes each.
public struct VarlinkMessageReader: Sendable {
    public static let defaultLimit = 1 << 20
    public let limit: Int
    private var buffer: [UInt8] = []
    private var scanned = 0

    public init(limit: Int = VarlinkMessageReader.defaultLimit) { self.limit = limit }

    /// Bytes held that do not yet end in a NUL.
    public var pendingCount: Int { buffer.count }

    /// Appends bytes; returns the complete messages. Throws when a message grows past
    /// the limit without its NUL (the connection cannot be resynchronised).
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(VarlinkError) -> [[UInt8]] {
        buffer.append(contentsOf: bytes)
        var messages: [[UInt8]] = []
        var start = 0
        var index = scanned
        while index < buffer.count {
            if buffer[index] == 0 {
                messages.append(Array(buffer[start..<index]))
                start = index + 1
            }
            index += 1
        }
        if start > 0 { buffer.removeFirst(start) }
        scanned = buffer.count
        if buffer.count > limit {
            throw .invalidMessage("message longer than \(limit) bytes without its terminating NUL")
        }
        for message in messages where message.count > limit {
            throw .invalidMessage("message of \(message.count) bytes exceeds the \(limit)-byte limit")
        }
        return messages
    }
}
