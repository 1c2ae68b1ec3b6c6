/// A service's methods, each bound once to the parameters its declaration takes, so every
/// call is checked against its interface before its handler runs (as sd-varlink checks a
/// call against its typed interface). A service answers the refusal with its interface's
/// own error; a method of an interface not given (served on another service's behalf) is
/// bound without a check: that service checks it.
public struct VarlinkMethodTable<Handler: Sendable>: Sendable {
    struct Bound: Sendable {
        let handler: Handler
        /// The declaring interface (its types) and the method's parameters; nil: unchecked.
        let declaration: (interface: VarlinkInterfaceDefinition, input: [VarlinkField])?
    }

    /// Why a call found no handler to run.
    public enum Refusal: Error, Sendable, Equatable {
        /// No method of that qualified name is served.
        case methodNotFound(String)
        /// The parameters do not fit the declaration: a missing, unknown or mistyped one.
        case invalidParameter(VarlinkTypeMismatch)

        /// The error to send: `org.varlink.service.MethodNotFound`, or the interface's own
        /// `InvalidParameter (parameter: string, reason: string)` (carplayd's interfaces
        /// declare it so; org.varlink.service's has no reason).
        public func error(in interfaceName: String) -> VarlinkError {
            switch self {
            case let .methodNotFound(method): .methodNotFound(method)
            case let .invalidParameter(mismatch):
                VarlinkError("\(interfaceName).InvalidParameter", ["parameter": .string(mismatch.path), "reason": .string(mismatch.reason)])
            }
        }
    }

    private let methods: [String: Bound]

    /// `handlers` by qualified method name (`io.carplayd.Simulator.SetFaults`). A handler
    /// for one of `interfaces` must be a method it declares: a table that serves what its
    /// interface does not say is a programming error, caught when the table is built.
    public init(_ handlers: [String: Handler], declaredBy interfaces: [VarlinkInterfaceDefinition]) {
        var methods: [String: Bound] = [:]
        for (name, handler) in handlers {
            let (interfaceName, member) = Self.split(name)
            guard let interface = interfaces.first(where: { $0.name == interfaceName }) else {
                methods[name] = Bound(handler: handler, declaration: nil)
                continue
            }
            guard let declared = interface.methods[member] else {
                preconditionFailure("\(name) is served but \(interfaceName) does not declare \(member)")
            }
            methods[name] = Bound(handler: handler, declaration: (interface, declared.input))
        }
        self.methods = methods
    }

    /// The handler for `call`, once its parameters fit the method's declaration.
    public func handler(for call: VarlinkCall) -> Result<Handler, Refusal> {
        guard let bound = methods[call.method] else { return .failure(.methodNotFound(call.method)) }
        if let (interface, input) = bound.declaration, let mismatch = interface.mismatch(of: call.parameters, against: input) {
            return .failure(.invalidParameter(mismatch))
        }
        return .success(bound.handler)
    }

    /// The qualified names served, sorted (for tests and introspection).
    public var methodNames: [String] { methods.keys.sorted() }

    static func split(_ qualified: String) -> (interface: String, member: String) {
        guard let dot = qualified.lastIndex(of: ".") else { return ("", qualified) }
        return (String(qualified[..<dot]), String(qualified[qualified.index(after: dot)...]))
    }
}
