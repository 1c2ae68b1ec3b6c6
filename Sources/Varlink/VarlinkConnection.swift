import CarplayJSON
import EventLoops
import LinuxSupport
import Synchronization

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
/// reply never waits for a read nor a read for a reply; `inFlight` marks those calls,
/// and a `close()` meanwhile leaves the descriptor to the last of them to close, so it
/// is never closed (and its number reused) under a read or write.
final class VarlinkConnection: @unchecked Sendable {
    typealias Item = (call: Result<VarlinkCall, VarlinkError>, size: Int)

    let socket: FileDescriptor
    let peer: PeerCredentials
    private let loop: EventLoop
    private let budget: VarlinkBufferBudget
    private let readScratch: VarlinkReadScratch
    private weak let server: VarlinkServer?
    private let onClose: @Sendable (VarlinkConnection) -> Void

    /// A connection's life: open; draining after an error (what is queued is sent, nothing
    /// more is read, then it closes); closed, its descriptor closed once no read or write
    /// is in flight (`released`).
    enum Life: Equatable {
        case open
        case draining
        case closed(released: Bool)
    }

    /// The socket calls running outside the lock.
    struct InFlight: OptionSet {
        let rawValue: UInt8
        static let read = InFlight(rawValue: 1)
        static let write = InFlight(rawValue: 2)
    }

    /// Whether the loop watches the socket for reads: paused while too many calls wait.
    enum Reads { case watched, paused }

    private struct State {
        var reader = VarlinkMessageReader()
        var outbound = VarlinkWriteQueue()
        var life = Life.open
        var inFlight: InFlight = []
        var reads = Reads.watched
        /// Registered for writability too (replies wait in `outbound`).
        var watchingWritable = false
        var task: Task<Void, Never>?
        /// Calls read and not yet taken by the task, and their size in bytes.
        var pendingCalls = 0
        var pendingBytes = 0
        /// Bytes counted in the server's budget for this connection.
        var accounted = 0

        var isClosed: Bool { if case .closed = life { true } else { false } }

        /// Nothing more is read; what is queued is sent, then the connection closes.
        mutating func drain() { if life == .open { life = .draining } }

        var mustPauseReading: Bool {
            pendingCalls >= VarlinkServer.pendingCallLimit || pendingBytes >= VarlinkServer.pendingByteLimit
        }

        var held: Int { reader.pendingCount + pendingBytes + outbound.count }
    }

    private let state = Mutex(State())
    private let calls = VarlinkCallQueue<Item>()

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
    }

    var isOpen: Bool { state.withLock { !$0.isClosed } }

    func start(dispatch: @escaping @Sendable (VarlinkCall, VarlinkReplies) async -> Void) throws(Errno) {
        let calls = self.calls
        // The calls run on the connection's loop thread (see `VarlinkServer`).
        let task = Task(executorPreference: loop) { [self] in
            // Bounded by pausing the reads (pendingCallLimit), not by dropping calls.
            while let item = await calls.next() {
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
            // Not registered with the loop while paused (no events at all, so a hang-up
            // cannot make the level-triggered loop spin either).
            guard state.reads == .paused, !state.mustPauseReading, state.life == .open else { return false }
            state.reads = .watched
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
        let held = state.isClosed ? 0 : state.held
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
                guard state.life == .open, state.reads == .watched else { return false }
                if state.mustPauseReading {
                    // Too many calls waiting: stop watching the socket until the task catches up.
                    state.reads = .paused
                    loop.deregister(socket)
                    server?.readPauses.add(1, ordering: .relaxed)
                    return false
                }
                state.inFlight.insert(.read)
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
                state.inFlight.remove(.read)
                if state.isClosed {
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
                        state.drain()
                        return [(.failure(VarlinkError.invalidMessage("the server's buffers are full; this connection holds more than its share")), 0)]
                    }
                    state.pendingCalls += framed.count
                    return framed.map { (.success($0), $0.count) }
                } catch {
                    // Oversized message: answer once, then hang up; nothing else is read.
                    state.pendingCalls += 1
                    state.drain()
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
                calls.push((call, message.size))
            }
            // A short read drained the socket: the level-triggered loop calls again when
            // more arrives (no read that would only say EAGAIN).
            if let count, count < buffer.count { return }
        }
    }

    /// Queues bytes and writes what the socket takes now.
    func enqueue(_ bytes: [UInt8]) -> Bool {
        enum Plan {
            case closed
            case queued(accepted: Bool, done: Bool)
            case writeNow
        }
        let plan = state.withLock { state -> Plan in
            guard !state.isClosed else { return .closed }
            guard !state.inFlight.contains(.write), state.outbound.isEmpty else {
                // Behind bytes still queued, or another task is writing: it flushes these.
                defer { account(&state) }
                state.outbound.append(bytes)
                if state.outbound.count > VarlinkServer.outboundLimit || overBudget(state) {
                    state.drain()
                    state.outbound.removeAll()
                    return .queued(accepted: false, done: Self.isDone(state))
                }
                return .queued(accepted: true, done: false)
            }
            state.inFlight.insert(.write)
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
            state.inFlight.remove(.write)
            if state.isClosed {
                closeDescriptor = Self.releaseDescriptor(&state)
                return (false, false)
            }
            defer { account(&state) }
            if let written {
                // Ahead of anything queued meanwhile: it was sent first.
                if written < bytes.count { state.outbound.putBack(bytes[written...]) }
            } else {
                // The peer is gone; the hang-up event closes us.
                state.drain()
                state.outbound.removeAll()
            }
            if state.outbound.count > VarlinkServer.outboundLimit || overBudget(state) {
                state.drain()
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
        guard !state.isClosed, !state.inFlight.contains(.write) else { return }
        let socket = self.socket
        if !state.outbound.flush({ try? socket.writeAvailable($0) }) {
            // The peer is gone; the hang-up event closes us.
            state.outbound.removeAll()
            state.drain()
        }
        account(&state)
        let wantWritable = !state.outbound.isEmpty
        if wantWritable != state.watchingWritable {
            state.watchingWritable = wantWritable
            // While reading is paused the socket is not registered; resuming restores this.
            if state.reads == .watched { loop.modify(socket, events: wantWritable ? [.readable, .writable] : [.readable]) }
        }
    }

    private static func isDone(_ state: State) -> Bool {
        state.life == .draining && state.outbound.isEmpty
    }

    /// After `close()`: true (once) when no read or write is in progress any more, and
    /// the caller closes the descriptor.
    private static func releaseDescriptor(_ state: inout State) -> Bool {
        guard state.life == .closed(released: false), state.inFlight.isEmpty else { return false }
        state.life = .closed(released: true)
        return true
    }

    private func closeIfDone() {
        let done = state.withLock { Self.isDone($0) }
        if done { close() }
    }

    func close() {
        let (wasOpen, task, closeDescriptor) = state.withLock { state -> (Bool, Task<Void, Never>?, Bool) in
            guard !state.isClosed else { return (false, nil, false) }
            state.life = .closed(released: false)
            account(&state)
            loop.deregister(socket)
            return (true, state.task, Self.releaseDescriptor(&state))
        }
        guard wasOpen else { return }
        if closeDescriptor { socket.close() }
        calls.finish()
        task?.cancel()
        onClose(self)
    }
}
