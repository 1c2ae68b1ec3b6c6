import LinuxSupport

/// An interface the server offers, with its description served verbatim by
/// `org.varlink.service.GetInterfaceDescription`.
public struct VarlinkInterfaceDescription: Sendable {
    public var name: String
    public var text: String

    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }
}

public struct VarlinkServerInfo: Sendable {
    public var vendor: String
    public var product: String
    public var version: String
    public var url: String

    public init(vendor: String, product: String, version: String, url: String) {
        self.vendor = vendor
        self.product = product
        self.version = version
        self.url = url
    }
}

/// Where a handler sends its replies. Sending never blocks: replies queue on the
/// connection, and a client that stops reading is disconnected once its queue is full.
public struct VarlinkReplies: Sendable {
    let connection: VarlinkConnection?

    /// Queues a reply; false when the connection is gone (a `more` stream should stop).
    @discardableResult
    public func send(_ reply: VarlinkReply) -> Bool {
        guard let connection else { return true }  // oneway: replies are discarded
        return connection.enqueue(reply.serialized())
    }

    /// Queues a reply serialized by the caller (`VarlinkReply.serialized(adding:raw:)`,
    /// with its NUL); false when the connection is gone.
    @discardableResult
    public func send(serialized bytes: [UInt8]) -> Bool {
        guard let connection else { return true }
        return connection.enqueue(bytes)
    }

    public func send(error: VarlinkError) {
        send(.error(error))
    }

    /// False once the client has gone away.
    public var isOpen: Bool { connection?.isOpen ?? true }
}

/// What the server asks of the application: handle calls of its interfaces.
public protocol VarlinkService: Sendable {
    /// Handles one call to one of the service's interfaces. Calls on one connection
    /// arrive one at a time, in order; different connections run concurrently.
    func handle(_ call: VarlinkCall, peer: PeerCredentials, replies: VarlinkReplies) async
}
