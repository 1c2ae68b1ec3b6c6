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
///
/// Each connection belongs to one of the worker loops (round-robin): the loop reads it,
/// and its calls run as a task that prefers that loop as executor, so a call that does
/// not wait for another thread is read, handled and answered on one thread.
public final class VarlinkServer: Sendable {
    private let listener: FileDescriptor
    private let loop: EventLoop
    private let workers: [(loop: EventLoop, scratch: VarlinkReadScratch)]
    private let nextWorker = Atomic<Int>(0)
    private let info: VarlinkServerInfo
    private let interfaces: [VarlinkInterfaceDescription]
    private let service: any VarlinkService
    private let connections = Mutex<[Int32: VarlinkConnection]>([:])
    private let accepting = Atomic<Bool>(false)
    /// True while accepting is paused because the process is out of file descriptors.
    private let acceptPaused = Atomic<Bool>(false)
    private let acceptPauseCount = Atomic<Int>(0)
    private let budget = VarlinkBufferBudget()
    /// How often a connection stopped being read because its calls backed up.
    let readPauses = Atomic<Int>(0)
    /// Replies queued but unread beyond this close the connection (a stuck client).
    public static let outboundLimit = 8 << 20
    /// Calls read but not yet dispatched: beyond either bound the connection is not read
    /// until its calls catch up (the client's writes then block in the kernel).
    public static let pendingCallLimit = 64
    public static let pendingByteLimit = 1 << 20
    /// All connections together: bytes buffered (partial messages, pending calls, unsent
    /// replies) beyond this close the connection that grows further, when it alone holds
    /// more than `fairShare`. A connection at or below its fair share is never closed.
    public static let totalBufferLimit = 128 << 20
    public static let fairShare = 64 << 10
    /// At most this many connections, whatever the fd limit.
    public static let connectionCap = 4096
    /// File descriptors kept free for everything else (state files, CAN sockets, and
    /// libdispatch, which aborts the process when it cannot open /proc files).
    public static func descriptorReserve(softLimit: Int) -> Int { max(32, min(128, softLimit / 4)) }

    /// Connections beyond this wait in the listen backlog until one closes.
    public let maxConnections: Int

    /// `loop` watches the listener; `workers` serve the connections (none: `loop` does).
    /// `maxConnections`: nil for the fd limit less `descriptorReserve`, at most `connectionCap`.
    public init(
        listener: FileDescriptor, loop: EventLoop, workers: [EventLoop] = [], info: VarlinkServerInfo, interfaces: [VarlinkInterfaceDescription],
        service: any VarlinkService, maxConnections: Int? = nil
    ) {
        // One read buffer per loop thread: only that thread reads into it.
        self.workers = (workers.isEmpty ? [loop] : workers).map { ($0, VarlinkReadScratch()) }
        let soft = ResourceLimits.openFiles().soft
        self.maxConnections = maxConnections ?? max(1, min(Self.connectionCap, soft - Self.descriptorReserve(softLimit: soft)))
        self.listener = listener
        self.loop = loop
        self.info = info
        self.interfaces = interfaces
        self.service = service
    }

    public var connectionCount: Int { connections.withLock { $0.count } }

    /// Bytes buffered for all connections (partial messages, pending calls, unsent replies).
    public var bufferedBytes: Int { budget.total }

    /// How often accepting paused because the process ran out of file descriptors.
    public var acceptPauses: Int { acceptPauseCount.load(ordering: .relaxed) }

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
            if connectionCount >= maxConnections {
                // Full: the next client waits in the backlog until a connection closes.
                pauseAccepting()
                return
            }
            let accepted: FileDescriptor?
            do {
                accepted = try UnixSocket.accept(listener)
            } catch {
                // Out of file descriptors (EMFILE, ENFILE; maxConnections should leave
                // room, but other code holds descriptors too) or kernel memory: the
                // listener stays readable, and the level-triggered loop would spin on it.
                // Stop watching it until a connection closes or 100 ms have passed;
                // clients wait in the listen backlog meanwhile.
                pauseAccepting()
                return
            }
            guard let socket = accepted else { return }
            guard let peer = try? UnixSocket.peerCredentials(socket) else {
                socket.close()
                continue
            }
            let worker = workers[nextWorker.add(1, ordering: .relaxed).oldValue % workers.count]
            let connection = VarlinkConnection(socket: socket, peer: peer, loop: worker.loop, budget: budget, readScratch: worker.scratch, server: self) { [weak self] closed in
                _ = self?.connections.withLock { $0.removeValue(forKey: closed.socket.rawValue) }
                self?.resumeAccepting()
            }
            connections.withLock { $0[socket.rawValue] = connection }
            do {
                try connection.start { [self] call, replies in await dispatch(call, peer: peer, replies: replies) }
            } catch {
                connection.close()
            }
        }
    }

    /// Stops watching the listener; a closing connection, or 100 ms, resumes it.
    private func pauseAccepting() {
        guard !acceptPaused.exchange(true, ordering: .acquiringAndReleasing) else { return }
        acceptPauseCount.add(1, ordering: .relaxed)
        loop.modify(listener, events: [])
        Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(100))
            self?.resumeAccepting()
        }
    }

    private func resumeAccepting() {
        guard acceptPaused.exchange(false, ordering: .acquiringAndReleasing) else { return }
        if accepting.load(ordering: .acquiring) { loop.modify(listener, events: .readable) }
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

/// The bytes all connections of a server hold in memory, for `totalBufferLimit`.
final class VarlinkBufferBudget: Sendable {
    private let bytes = Atomic<Int>(0)
    var total: Int { bytes.load(ordering: .relaxed) }
    func add(_ delta: Int) { bytes.add(delta, ordering: .relaxed) }
}

/// The buffer the connections of one loop read into: one per loop thread, not one per
/// connection (thousands of idle connections must not hold 64 KiB each).
///
/// `@unchecked Sendable`: only its loop's thread touches `bytes` (connections read in
/// `handle(_:)`, which their loop calls on its one thread), and the bytes are copied out
/// by the message reader before the next read.
final class VarlinkReadScratch: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer

    init(size: Int = 65536) {
        bytes = .allocate(byteCount: size, alignment: 16)
    }

    deinit { bytes.deallocate() }
}

/// One client connection: reads NUL-framed calls on the event loop thread, runs them
/// in order on a task, queues replies and writes them as the socket accepts them.
///
/// Memory is bounded per connection and in total: a partial message by the reader's
/// 1 MiB limit; calls read but not yet run by `pendingCallLimit`/`pendingByteLimit`
/// (beyond them the socket is not watched until the calls catch up); unsent replies by
/// `outboundLimit` (beyond it the client is disconnected); and all of it, over all
/// connections, by `totalBufferLimit` (beyond it a connection holding more than its
/// `fairShare` is disconnected when it grows).
///
/// `@unchecked Sendable`: all mutable state is inside `state` (a Mutex). The socket is
/// read (by the loop thread) and written (by a replying task) outside the lock, so a
/// reply never waits for a read nor a read for a reply; `reading`/`writing` mark those
/// calls, and a `close()` meanwhile leaves the descriptor to the last of them to close,
/// so it is never closed (and its number reused) under a read or write.
final class VarlinkConnection: @unchecked Sendable {
    typealias Item = (call: Result<VarlinkCall, VarlinkError>, size: Int)

    let socket: FileDescriptor
    let peer: PeerCredentials
    private let loop: EventLoop
    private let budget: VarlinkBufferBudget
    private let readScratch: VarlinkReadScratch
    private weak let server: VarlinkServer?
    private let onClose: @Sendable (VarlinkConnection) -> Void

    private struct State {
        var reader = VarlinkMessageReader()
        var outbound: [UInt8] = []
        var watchingWritable = false
        var closed = false
        /// After a framing error: send what is queued, then close.
        var closeAfterFlush = false
        var task: Task<Void, Never>?
        /// Calls read and not yet taken by the task, and their size in bytes.
        var pendingCalls = 0
        var pendingBytes = 0
        /// Not registered with the loop while too many calls wait (no events at all, so a
        /// hang-up cannot make the level-triggered loop spin either).
        var readPaused = false
        /// Bytes counted in the server's budget for this connection.
        var accounted = 0
        /// A read (loop thread) or a write (a replying task) runs outside the lock.
        var reading = false
        var writing = false
        var descriptorClosed = false

        var mustPauseReading: Bool {
            pendingCalls >= VarlinkServer.pendingCallLimit || pendingBytes >= VarlinkServer.pendingByteLimit
        }

        var held: Int { reader.pendingCount + pendingBytes + outbound.count }
    }

    private let state = Mutex(State())
    private let calls: AsyncStream<Item>
    private let callContinuation: AsyncStream<Item>.Continuation

    init(
        socket: FileDescriptor, peer: PeerCredentials, loop: EventLoop, budget: VarlinkBufferBudget, readScratch: VarlinkReadScratch,
        server: VarlinkServer?, onClose: @escaping @Sendable (VarlinkConnection) -> Void
    ) {
        self.socket = socket
        self.peer = peer
        self.loop = loop
        self.budget = budget
        self.readScratch = readScratch
        self.server = server
        self.onClose = onClose
        // Bounded by pausing the reads (pendingCallLimit), not by dropping calls.
        (calls, callContinuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    var isOpen: Bool { state.withLock { !$0.closed } }

    func start(dispatch: @escaping @Sendable (VarlinkCall, VarlinkReplies) async -> Void) throws(Errno) {
        let calls = self.calls
        // The calls run on the connection's loop thread (see `VarlinkServer`).
        let task = Task(executorPreference: loop) { [self] in
            for await item in calls {
                taken(item.size)
                switch item.call {
                case let .success(call):
                    let replies = VarlinkReplies(connection: call.oneway ? nil : self)
                    await dispatch(call, replies)
                case let .failure(error):
                    _ = enqueue(VarlinkReply.error(error).serialized())
                }
            }
        }
        state.withLock { $0.task = task }
        try register(events: .readable)
    }

    private func register(events: EventLoop.Events) throws(Errno) {
        try loop.register(socket, events: events) { [self] events in handle(events) }
    }

    /// The task took a call: resume reading once the backlog is below the bounds.
    private func taken(_ size: Int) {
        let failed = state.withLock { state -> Bool in
            state.pendingCalls -= 1
            state.pendingBytes -= size
            account(&state)
            guard state.readPaused, !state.mustPauseReading, !state.closed, !state.closeAfterFlush else { return false }
            state.readPaused = false
            do {
                try register(events: state.watchingWritable ? [.readable, .writable] : .readable)
                return false
            } catch {
                return true
            }
        }
        if failed { close() }
    }

    /// Brings this connection's share of the server's budget up to date.
    private func account(_ state: inout State) {
        let held = state.closed ? 0 : state.held
        budget.add(held - state.accounted)
        state.accounted = held
    }

    /// True when the server as a whole holds too much and this connection more than its share.
    private func overBudget(_ state: State) -> Bool {
        budget.total > VarlinkServer.totalBufferLimit && state.held > VarlinkServer.fairShare
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
            let proceed = state.withLock { state -> Bool in
                guard !state.closed, !state.closeAfterFlush, !state.readPaused else { return false }
                if state.mustPauseReading {
                    // Too many calls waiting: stop watching the socket until the task catches up.
                    state.readPaused = true
                    loop.deregister(socket)
                    server?.readPauses.add(1, ordering: .relaxed)
                    return false
                }
                state.reading = true
                return true
            }
            guard proceed else { return }
            let buffer = readScratch.bytes
            let count = try? socket.readAvailable(into: buffer)
            var endOfFile = false
            var closeDescriptor = false
            // Framing and accounting under the lock; JSON parsing outside it (replies are
            // enqueued from other threads meanwhile).
            let framed = state.withLock { state -> [(bytes: Result<[UInt8], VarlinkError>, size: Int)]? in
                state.reading = false
                if state.closed {
                    closeDescriptor = Self.releaseDescriptor(&state)
                    return nil
                }
                guard let count else { return nil }  // would block (or failed: the hang-up follows)
                if count == 0 {
                    endOfFile = true
                    return nil
                }
                defer { account(&state) }
                do throws(VarlinkError) {
                    let framed = try state.reader.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                    let size = framed.reduce(0) { $0 + $1.count }
                    state.pendingBytes += size
                    if overBudget(state) {
                        // The server holds too much for all its clients, and this one a lot of
                        // it: its calls are dropped, it gets one error, then the connection closes.
                        state.pendingBytes -= size
                        state.pendingCalls += 1
                        state.closeAfterFlush = true
                        return [(.failure(VarlinkError.invalidMessage("the server's buffers are full; this connection holds more than its share")), 0)]
                    }
                    state.pendingCalls += framed.count
                    return framed.map { (.success($0), $0.count) }
                } catch {
                    // Oversized message: answer once, then hang up; nothing else is read.
                    state.pendingCalls += 1
                    state.closeAfterFlush = true
                    return [(.failure(error), 0)]
                }
            }
            if closeDescriptor { socket.close() }
            if endOfFile {
                close()
                return
            }
            guard let framed else { return }
            for message in framed {
                let call = message.bytes.flatMap { bytes in Result { () throws(VarlinkError) in try VarlinkCall(parsing: bytes) } }
                callContinuation.yield((call, message.size))
            }
            // A short read drained the socket: the level-triggered loop calls again when
            // more arrives (no read that would only say EAGAIN).
            if let count, count < buffer.count { return }
        }
    }

    /// Queues bytes and writes what the socket takes now.
    func enqueue(_ bytes: [UInt8]) -> Bool {
        enum Plan { case closed, queued(accepted: Bool, done: Bool), writeNow }
        let plan = state.withLock { state -> Plan in
            guard !state.closed else { return .closed }
            guard !state.writing, state.outbound.isEmpty else {
                // Behind bytes still queued, or another task is writing: it flushes these.
                defer { account(&state) }
                state.outbound.append(contentsOf: bytes)
                if state.outbound.count > VarlinkServer.outboundLimit || overBudget(state) {
                    state.closeAfterFlush = true
                    state.outbound.removeAll()
                    return .queued(accepted: false, done: Self.isDone(state))
                }
                return .queued(accepted: true, done: false)
            }
            state.writing = true
            return .writeNow
        }
        switch plan {
        case .closed:
            return false
        case let .queued(accepted, done):
            if done { close() }
            return accepted
        case .writeNow:
            break
        }
        // The common case: write straight from the reply, outside the lock; queue only
        // what the socket did not take.
        let written = bytes.withUnsafeBytes { try? socket.writeAvailable($0) }
        var closeDescriptor = false
        let (accepted, done) = state.withLock { state -> (Bool, Bool) in
            state.writing = false
            if state.closed {
                closeDescriptor = Self.releaseDescriptor(&state)
                return (false, false)
            }
            defer { account(&state) }
            if let written {
                // Ahead of anything queued meanwhile: it was sent first.
                if written < bytes.count { state.outbound.insert(contentsOf: bytes[written...], at: 0) }
            } else {
                // The peer is gone; the hang-up event closes us.
                state.closeAfterFlush = true
                state.outbound.removeAll()
            }
            if state.outbound.count > VarlinkServer.outboundLimit || overBudget(state) {
                state.closeAfterFlush = true
                state.outbound.removeAll()
                return (false, Self.isDone(state))
            }
            flushLocked(&state)
            return (true, Self.isDone(state))
        }
        if closeDescriptor { socket.close() }
        if done { close() }
        return accepted
    }

    private func flushLocked(_ state: inout State) {
        // A writer outside the lock flushes the queue itself when it is done.
        guard !state.closed, !state.writing else { return }
        while !state.outbound.isEmpty {
            let written = state.outbound.withUnsafeBytes { try? socket.writeAvailable($0) }
            guard let written else {
                // The peer is gone; the hang-up event closes us.
                state.outbound.removeAll()
                state.closeAfterFlush = true
                break
            }
            if written == 0 { break }
            state.outbound.removeFirst(written)
        }
        account(&state)
        let wantWritable = !state.outbound.isEmpty
        if wantWritable != state.watchingWritable {
            state.watchingWritable = wantWritable
            // While reading is paused the socket is not registered; resuming restores this.
            if !state.readPaused { loop.modify(socket, events: wantWritable ? [.readable, .writable] : [.readable]) }
        }
    }

    private static func isDone(_ state: State) -> Bool {
        state.closeAfterFlush && state.outbound.isEmpty && !state.closed
    }

    /// After `close()`: true (once) when no read or write is in progress any more, and
    /// the caller closes the descriptor.
    private static func releaseDescriptor(_ state: inout State) -> Bool {
        guard state.closed, !state.reading, !state.writing, !state.descriptorClosed else { return false }
        state.descriptorClosed = true
        return true
    }

    private func closeIfDone() {
        let done = state.withLock { Self.isDone($0) }
        if done { close() }
    }

    func close() {
        let (wasOpen, task, closeDescriptor) = state.withLock { state -> (Bool, Task<Void, Never>?, Bool) in
            guard !state.closed else { return (false, nil, false) }
            state.closed = true
            account(&state)
            loop.deregister(socket)
            return (true, state.task, Self.releaseDescriptor(&state))
        }
        guard wasOpen else { return }
        if closeDescriptor { socket.close() }
        callContinuation.finish()
        task?.cancel()
        onClose(self)
    }
}
