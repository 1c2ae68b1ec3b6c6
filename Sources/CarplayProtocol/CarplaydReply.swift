import CarplayJSON

/// The reply of one method of carplayd's interfaces, decoded once from its parameters:
/// a member that is missing or of another type is a `JSONContentError` naming the method
/// and the member's JSON path (`io.carplayd.Vehicle.GetState: bus.restarts: ...`).
/// Members the interface does not declare are ignored: a newer daemon may add some.
public protocol CarplaydReply: Sendable {
    /// The qualified method that answers it (the "file" of its decoding errors).
    static var method: String { get }
    /// The reply's parameters as received, to print them verbatim (`--json`).
    var json: [String: JSONValue] { get }
    /// Decodes the reply's parameters.
    init(members: JSONObject) throws(JSONContentError)
}

extension CarplaydReply {
    public init(_ parameters: [String: JSONValue]) throws(JSONContentError) {
        try self.init(members: JSONNode(value: .object(parameters), file: Self.method).object())
    }
}

// What every decoder reads more than once.
extension JSONNode {
    /// An array, each element read by `element`.
    package func array<Element>(_ element: (JSONNode) throws(JSONContentError) -> Element) throws(JSONContentError) -> [Element] {
        var elements: [Element] = []
        for node in try array() { elements.append(try element(node)) }
        return elements
    }

    package func strings() throws(JSONContentError) -> [String] {
        try array { node throws(JSONContentError) in try node.string() }
    }

    /// An object of the interface's free-form `object` type (the state, a fault plan).
    package func members() throws(JSONContentError) -> [String: JSONValue] {
        try object().fields
    }
}

extension JSONObject {
    /// An optional array member, each element read by `element`; absent is empty.
    package func list<Element>(_ key: String, _ element: (JSONNode) throws(JSONContentError) -> Element) throws(JSONContentError) -> [Element] {
        try optional(key)?.array(element) ?? []
    }
}
