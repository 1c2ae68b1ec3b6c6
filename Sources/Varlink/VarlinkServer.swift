import CarplayJSON
import EventLoops
import LinuxSupport
import Synchronization

/// A Varlink server on an AF_UNIX listening socket, driven by an `EventLoop`.
///
/// Each connection belongs to one of the worker loops, the one that serves the fewest
/// (the first on a tie: carplayd reads the CAN bus there): the loop reads it, and its
/// calls run as a task that prefers that loop as executor, so a call that does not wait
/// for another thread is read, handled and answered on one thread.
public final class VarlinkServer: Sendable {
    private let listener: FileDescriptor
    private let loop: EventLoop
    private let workers: [(loop: EventLoop, scratch: VarlinkReadScratch)]
    private let info: VarlinkServerInfo
    private let interfaces: [VarlinkInterfaceDescription]
    private let service: any VarlinkService
    /// The open connections by socket, each with the index of its worker, and how many
    /// each worker serves.
    private struct Connections {
        var open: [Int32: (connection: VarlinkConnection, worker: Int)] = [:]
        var served: [Int]
    }

    private let connections: Mutex<Connections>
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
        connections = Mutex(Connections(served: Array(repeating: 0, count: self.workers.count)))
        let soft = ResourceLimits.openFiles().soft
        self.maxConnections = maxConnections ?? max(1, min(Self.connectionCap, soft - Self.descriptorReserve(softLimit: soft)))
        self.listener = listener
        self.loop = loop
        self.info = info
        self.interfaces = interfaces
        self.service = service
    }

    public var connectionCount: Int { connections.withLock { $0.open.count } }

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
            let values = current.open.values.map(\.connection)
            current.open.removeAll()
            current.served = current.served.map { _ in 0 }
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
            // The worker serving the fewest connections; the first of those on a tie.
            let index = connections.withLock { connections in
                let served = connections.served
                return served.indices.min { served[$0] < served[$1] } ?? 0
            }
            let worker = workers[index]
            let connection = VarlinkConnection(socket: socket, peer: peer, loop: worker.loop, budget: budget, readScratch: worker.scratch, server: self) {
                [weak self] closed in
                self?.connections.withLock { connections in
                    if let entry = connections.open.removeValue(forKey: closed.socket.rawValue) { connections.served[entry.worker] -= 1 }
                }
                self?.resumeAccepting()
            }
            connections.withLock { connections in
                connections.open[socket.rawValue] = (connection, index)
                connections.served[index] += 1
            }
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
                replies.send(
                    VarlinkReply(parameters: [
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
}
