import CarplayJSON
import LinuxSupport
import Synchronization

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
    fileprivate let connection: VarlinkConnection?

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

/// A Varlink server on an AF_UNIX listening socket, driven by an `EventLoop`.
public final class VarlinkServer: Sendable {
    private let listener: FileDescriptor
    private let loop: EventLoop
    private let info: VarlinkServerInfo
    private let interfaces: [VarlinkInterfaceDescription]
    private let service: any VarlinkService
    private let connections = Mutex<[Int32: VarlinkConnection]>([:])
    private let accepting = Atomic<Bool>(false)
    /// Replies queued but unread beyond this close the connection (a stuck client).
    public static let outboundLimit = 8 << 20

    public init(listener: FileDescriptor, loop: EventLoop, info: VarlinkServerInfo, interfaces: [VarlinkInterfaceDescription], service: any VarlinkService) {
        self.listener = listener
        self.loop = loop
        self.info = info
        self.interfaces = interfaces
        self.service = service
    }

    public var connectionCount: Int { connections.withLock { $0.count } }

    public func start() throws(Errno) {
        accepting.store(true, ordering: .releasing)
        try loop.register(listener, events: .readable) { [self] _ in acceptPending() }
    }

    /// Stops accepting new connections (existing ones keep being served).
    public func stopAccepting() {
        guard accepting.exchange(false, ordering: .acquiringAndReleasing) else { return }
        loop.deregister(listener)
    }

    /// Closes every connection.
    public func closeAll() {
        let all = connections.withLock { current in
            let values = Array(current.values)
            current.removeAll()
            return values
        }
        for connection in all { connection.close() }
    }

    private func acceptPending() {
        while accepting.load(ordering: .acquiring) {
            guard let socket = try? UnixSocket.accept(listener) else { return }
            guard let peer = try? UnixSocket.peerCredentials(socket) else {
                socket.close()
                continue
            }
            let connection = VarlinkConnection(socket: socket, peer: peer, loop: loop) { [weak self] closed in
                _ = self?.connections.withLock { $0.removeValue(forKey: closed.socket.rawValue) }
            }
            connections.withLock { $0[socket.rawValue] = connection }
            do {
                try connection.start { [self] call, replies in await dispatch(call, peer: peer, replies: replies) }
            } catch {
                connection.close()
            }
        }
    }

    private func dispatch(_ call: VarlinkCall, peer: PeerCredentials, replies: VarlinkReplies) async {
        if call.interface == "org.varlink.service" {
            switch call.member {
            case "GetInfo":
                replies.send(VarlinkReply(parameters: [
                    "vendor": .string(info.vendor), "product": .string(info.product), "version": .string(info.version),
                    "url": .string(info.url), "interfaces": .array((["org.varlink.service"] + interfaces.map(\.name)).map { .string($0) }),
                ]))
            case "GetInterfaceDescription":
                guard case let .string(name)? = call.parameters["interface"] else {
                    replies.send(error: .invalidParameter("interface"))
                    return
                }
                if name == "org.varlink.service" {
                    replies.send(VarlinkReply(parameters: ["description": .string(Self.serviceDescription)]))
                } else if let interface = interfaces.first(where: { $0.name == name }) {
                    replies.send(VarlinkReply(parameters: ["description": .string(interface.text)]))
                } else {
                    replies.send(error: .interfaceNotFound(name))
                }
            default:
                replies.send(error: .methodNotFound(call.method))
            }
            return
        }
        guard interfaces.contains(where: { $0.name == call.interface }) else {
            replies.send(error: .interfaceNotFound(call.interface))
            return
        }
        await service.handle(call, peer: peer, replies: replies)
    }

    static let serviceDescription = """
        # The Varlink Service Interface is provided by every varlink service. It
        # describes the service and the interfaces it implements.
        interface org.varlink.service

        # Get a list of all the interfaces a service provides and information
        # about the implementation.
        method GetInfo() -> (
          vendor: string,
          product: string,
          version: string,
          url: string,
          interfaces: []string
        )

        # Get the description of an interface that is implemented by this service.
        method GetInterfaceDescription(interface: string) -> (description: string)

        # The requested interface was not found.
        error InterfaceNotFound (interface: string)

        # The requested method was not found
        error MethodNotFound (method: string)

        # The interface defines the requested method, but the service does not
        # implement it.
        error MethodNotImplemented (method: string)

        # One of the passed parameters is invalid.
        error InvalidParameter (parameter: string)

        # Client is denied access
        error PermissionDenied ()

        # Method is expected to be called with 'more' set to true, but wasn't
        error ExpectedMore ()

        """
}

/// One client connection: reads NUL-framed calls on the event loop thread, runs them
/// in order on a task, queues replies and writes them as the socket accepts them.
///
/// `@unchecked Sendable`: all mutable state is inside two Mutexes: `inbound` (the
/// reading side, used by the event loop thread) and `state` (replies, flags). The
/// socket is read only while holding `inbound`, written only while holding `state`, and
/// closed only while holding both (taken in that order), so reading and writing do not
/// wait for each other and no call touches a closed (or reused) descriptor.
final class VarlinkConnection: @unchecked Sendable {
    let socket: FileDescriptor
    let peer: PeerCredentials
    private let loop: EventLoop
    private let onClose: @Sendable (VarlinkConnection) -> Void

    private struct Inbound {
        var reader = VarlinkMessageReader()
        /// Reused for every read (allocated on the first).
        var readBuffer: [UInt8] = []
    }

    private struct State {
        var outbound: [UInt8] = []
        var watchingWritable = false
        var closed = false
        /// After a framing error: send what is queued, then close.
        var closeAfterFlush = false
        var task: Task<Void, Never>?
    }

    private let inbound = Mutex(Inbound())
    private let state = Mutex(State())
    /// Set once the connection is closed or closing after a flush:
    /// the reading side checks it without taking `state`.
    private let stopReading = Atomic<Bool>(false)
    private let calls: AsyncStream<Result<VarlinkCall, VarlinkError>>
    private let callContinuation: AsyncStream<Result<VarlinkCall, VarlinkError>>.Continuation

    init(socket: FileDescriptor, peer: PeerCredentials, loop: EventLoop, onClose: @escaping @Sendable (VarlinkConnection) -> Void) {
        self.socket = socket
        self.peer = peer
        self.loop = loop
        self.onClose = onClose
        (calls, callContinuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    var isOpen: Bool { state.withLock { !$0.closed } }

    func start(dispatch: @escaping @Sendable (VarlinkCall, VarlinkReplies) async -> Void) throws(Errno) {
        let calls = self.calls
        let task = Task { [self] in
            for await item in calls {
                switch item {
                case let .success(call):
                    let replies = VarlinkReplies(connection: call.oneway ? nil : self)
                    await dispatch(call, replies)
                case let .failure(error):
                    _ = enqueue(VarlinkReply.error(error).serialized())
                }
            }
        }
        state.withLock { $0.task = task }
        try loop.register(socket, events: .readable) { [self] events in handle(events) }
    }

    /// Runs on the event loop thread.
    private func handle(_ events: EventLoop.Events) {
        if events.contains(.readable) || events.contains(.hangup) || events.contains(.error) {
            readAvailable()
        }
        if events.contains(.writable) {
            state.withLock { flushLocked(&$0) }
            closeIfDone()
        }
    }

    private func readAvailable() {
        while true {
            var endOfFile = false
            // Framing under the lock; JSON parsing outside it (replies are enqueued
            // from other threads meanwhile).
            let framed = inbound.withLock { inbound -> [Result<[UInt8], VarlinkError>]? in
                guard !stopReading.load(ordering: .acquiring) else { return nil }
                if inbound.readBuffer.isEmpty { inbound.readBuffer = [UInt8](repeating: 0, count: 65536) }
                var buffer: [UInt8] = []
                swap(&buffer, &inbound.readBuffer)
                defer { swap(&buffer, &inbound.readBuffer) }
                let count = buffer.withUnsafeMutableBytes { try? socket.readAvailable(into: $0) }
                guard let count else { return nil }  // would block (or failed: the hang-up follows)
                if count == 0 {
                    endOfFile = true
                    return nil
                }
                do throws(VarlinkError) {
                    let framed = try buffer.withUnsafeBytes { raw in
                        Result { () throws(VarlinkError) in try inbound.reader.append(UnsafeRawBufferPointer(rebasing: raw[0..<count])) }
                    }.get()
                    return framed.map { .success($0) }
                } catch {
                    // Oversized message: answer once, then hang up; nothing else is read.
                    state.withLock { $0.closeAfterFlush = true }
                    stopReading.store(true, ordering: .releasing)
                    return [.failure(error)]
                }
            }
            if endOfFile {
                close()
                return
            }
            guard let framed else { return }
            for message in framed {
                callContinuation.yield(message.flatMap { bytes in Result { () throws(VarlinkError) in try VarlinkCall(parsing: bytes) } })
            }
        }
    }

    /// Queues bytes and writes what the socket takes now.
    func enqueue(_ bytes: [UInt8]) -> Bool {
        let (accepted, done) = state.withLock { state -> (Bool, Bool) in
            guard !state.closed else { return (false, false) }
            if state.outbound.isEmpty {
                // The common case: write straight from the reply, queue only what is left.
                let written = bytes.withUnsafeBytes { try? socket.writeAvailable($0) }
                if let written {
                    if written < bytes.count { state.outbound.append(contentsOf: bytes[written...]) }
                } else {
                    // The peer is gone; the hang-up event closes us.
                    state.closeAfterFlush = true
                    stopReading.store(true, ordering: .releasing)
                }
            } else {
                state.outbound.append(contentsOf: bytes)
            }
            if state.outbound.count > VarlinkServer.outboundLimit {
                state.closeAfterFlush = true
                stopReading.store(true, ordering: .releasing)
                state.outbound.removeAll()
                return (false, true)
            }
            flushLocked(&state)
            return (true, state.closeAfterFlush && state.outbound.isEmpty)
        }
        if done { close() }
        return accepted
    }

    private func flushLocked(_ state: inout State) {
        guard !state.closed else { return }
        while !state.outbound.isEmpty {
            let written = state.outbound.withUnsafeBytes { try? socket.writeAvailable($0) }
            guard let written else {
                // The peer is gone; the hang-up event closes us.
                state.outbound.removeAll()
                state.closeAfterFlush = true
                stopReading.store(true, ordering: .releasing)
                break
            }
            if written == 0 { break }
            state.outbound.removeFirst(written)
        }
        let wantWritable = !state.outbound.isEmpty
        if wantWritable != state.watchingWritable {
            state.watchingWritable = wantWritable
            loop.modify(socket, events: wantWritable ? [.readable, .writable] : [.readable])
        }
    }

    private func closeIfDone() {
        let done = state.withLock { $0.closeAfterFlush && $0.outbound.isEmpty && !$0.closed }
        if done { close() }
    }

    func close() {
        let (wasOpen, task) = inbound.withLock { _ in
            state.withLock { state -> (Bool, Task<Void, Never>?) in
                guard !state.closed else { return (false, nil) }
                state.closed = true
                stopReading.store(true, ordering: .releasing)
                loop.deregister(socket)
                socket.close()
                return (true, state.task)
            }
        }
        guard wasOpen else { return }
        callContinuation.finish()
        task?.cancel()
        onClose(self)
    }
}
