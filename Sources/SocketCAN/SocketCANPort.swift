import CANBus
import CANKit
import EventLoops
import LinuxSupport
import Synchronization

/// A `CANPort` on a Linux CAN interface (CAN_RAW). The socket is watched by an
/// `EventLoop`: when it is readable the loop thread takes what waits in one non-blocking
/// recvmmsg and hands the frames to the receiver given to `startReceiving` (frames
/// before it are dropped). Given the loop that also serves the Varlink calls (carplayd),
/// a call, its command frame, the frames that confirm it and the reply run on one thread
/// with no wake-up between them; without one the port starts a loop of its own. The
/// kernel's filters pass only `acceptedIDs`, so on a busy bus the frames nobody needs
/// cost nothing here. A frame the kernel does not take (a full transmit queue) waits in
/// the port's `CANWriteQueue`, worked off by a retry task while it holds frames. When
/// the interface goes down or disappears the port reconnects with backoff, and sends
/// fail fast with `interfaceDown` meanwhile.
public final class SocketCANPort: CANPort, Sendable {
    public let interface: String
    private let useFD: Bool
    private let filters: [CANFilter]
    private let loop: EventLoop
    /// The port started `loop` and ends it on `close`.
    private let ownsLoop: Bool

    private struct State {
        /// The socket sends use; nil while the link is down.
        var socket: (any CANSocketIO)?
        var health = BusHealth()
        var closed = false
        var writeQueue = CANWriteQueue()
        /// A retry task is working off the write queue.
        var flushScheduled = false
    }

    /// What only the loop thread touches (a lock no other thread takes: never contended).
    private struct Reading {
        /// The socket the loop watches: the only one open. Sockets are closed on the loop
        /// thread alone, after it stopped watching them, so that it never reads a
        /// descriptor number another thread has reused.
        var watched: (any CANSocketIO)?
        /// The drop counter of the last frame read (SO_RXQ_OVFL).
        var dropped: UInt32 = 0
        /// The next wait before a reopen while the link stays down.
        var backoffMilliseconds = 50
    }

    private let state = Mutex(State())
    private let reading = Mutex(Reading())
    private let io: CANSocketOpener
    /// Set by `startReceiving`: the loop thread hands it every frame.
    private let receiver = Mutex<CANReceiver?>(nil)

    /// Opens `interface`. `fd`: send and receive CAN FD frames. `acceptedIDs`: only
    /// these IDs reach the port (kernel filters); empty: every frame. `loop`: the event
    /// loop that reads the socket (nil: one of the port's own).
    public convenience init(interface: String, fd: Bool, acceptedIDs: [CANID] = [], loop: EventLoop? = nil) throws(Errno) {
        try self.init(interface: interface, fd: fd, acceptedIDs: acceptedIDs, loop: loop, io: .kernel)
    }

    /// The seam for tests: `io` opens the sockets (the kernel's CAN_RAW in production;
    /// a test double that fails sends with ENOBUFS or feeds error frames in tests, where
    /// vcan cannot produce those). See `CANSocketOpener`.
    init(interface: String, fd: Bool, acceptedIDs: [CANID] = [], loop: EventLoop? = nil, io: CANSocketOpener) throws(Errno) {
        self.io = io
        self.interface = interface
        self.useFD = fd
        self.filters = acceptedIDs.map { id in
            id.isExtended
                ? CANFilter(id: id.rawValue | RawCANFrame.extendedFlag, mask: 0x1FFF_FFFF | RawCANFrame.extendedFlag | RawCANFrame.remoteFlag)
                : CANFilter(id: id.rawValue, mask: 0x7FF | RawCANFrame.extendedFlag | RawCANFrame.remoteFlag)
        }
        let socket = try io.open(interface, fd)
        do throws(Errno) {
            if !filters.isEmpty { try socket.setFilters(filters) }
            if let loop { self.loop = loop } else { self.loop = try EventLoop(name: "can-\(interface)") }
        } catch {
            socket.close()
            throw error
        }
        ownsLoop = loop == nil
        state.withLock { $0.socket = socket }
        reading.withLock { $0.watched = socket }
        do { try watch(socket) } catch {
            state.withLock { $0.socket = nil }
            reading.withLock { $0.watched = nil }
            socket.close()
            if ownsLoop { self.loop.shutdown() }
            throw error
        }
    }

    /// Sends at once, or queues behind the frames the kernel has not taken yet (a retry
    /// task sends those); `transmitQueueFull` when the port's queue is full too.
    @discardableResult
    public func send(_ frame: CANFrame) -> SendAttempt {
        let raw = Self.raw(frame)
        // `down`: the link is gone (the loop retires the socket); `flushAfter`: this send
        // queued the first frame, so a retry task starts then.
        let (attempt, down, flushAfter) = state.withLock { state -> (SendAttempt, Bool, Int32?) in
            if state.closed { return (.failed(.closed), false, nil) }
            guard let socket = state.socket else { return (.failed(.interfaceDown(interface)), false, nil) }
            // A controller that is bus-off takes nothing: nothing is queued for it either.
            if state.health.state == .busOff { return (.failed(.busOff(interface)), false, nil) }
            let stamped = ReceivedFrame(frame: frame, timestamp: CandumpTimestamp.now(), interface: interface)
            // Behind the queued ones, so that one sender's frames keep their order.
            guard state.writeQueue.isEmpty else {
                return state.writeQueue.enqueue(frame) ? (.queued(stamped), false, nil) : (.failed(.transmitQueueFull), false, nil)
            }
            do throws(Errno) {
                try socket.send(raw)
                return (.sent(stamped), false, nil)
            } catch {
                if error.isTransientlyFull {
                    guard state.writeQueue.enqueue(frame) else { return (.failed(.transmitQueueFull), false, nil) }
                    guard !state.flushScheduled else { return (.queued(stamped), false, nil) }
                    state.flushScheduled = true
                    return (.queued(stamped), false, state.writeQueue.retryMilliseconds)
                }
                if error.isInterfaceGone {
                    Self.markDown(&state, "send: \(error)")
                    return (.failed(.interfaceDown(interface)), true, nil)
                }
                return (.failed(.other("send on \(interface): \(error)")), false, nil)
            }
        }
        // The loop thread closes the socket and reopens it.
        if down { onLoop { [self] in retireWatched() } }
        if let flushAfter { scheduleFlush(afterMilliseconds: flushAfter) }
        return attempt
    }

    public func startReceiving(_ receiver: CANReceiver) {
        let closed = state.withLock { $0.closed }
        if closed {
            receiver.finished()
            return
        }
        self.receiver.withLock { $0 = receiver }
    }

    public func health() -> BusHealth { state.withLock { $0.health } }

    /// Frames waiting in the port's write queue.
    public var queuedFrames: Int { state.withLock { $0.writeQueue.count } }

    public func close() async {
        let alreadyClosed = state.withLock { state -> Bool in
            let was = state.closed
            state.closed = true
            state.socket = nil
            return was
        }
        guard !alreadyClosed else { return }
        // The loop thread stops watching the socket and closes it; no fd outlives the port.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            onLoop { [self] in
                retireWatched()
                continuation.resume()
            }
        }
        if ownsLoop { loop.shutdown() }
        receiver.withLock { $0 }?.finished()
    }

    // MARK: - On the loop thread

    /// Runs `work` on the loop thread: at once when already there.
    private func onLoop(_ work: @escaping @Sendable () -> Void) {
        if loop.isCurrentThread {
            work()
        } else {
            Task(executorPreference: loop) { work() }
        }
    }

    private func watch(_ socket: any CANSocketIO) throws(Errno) {
        try loop.register(socket.descriptor, events: .readable) { [self] _ in read(socket) }
    }

    /// The most frames one read takes. A wake-up brings one or two (the kernel filters pass
    /// only what the profile reads); the C side prepares a header per slot on every call,
    /// so 64 slots cost more than the frames. A longer burst leaves the socket readable
    /// (the loop is level-triggered): the next read takes the rest.
    static let framesPerRead = 16

    /// The socket is readable (frames, or an error: the link went down).
    private func read(_ socket: any CANSocketIO) {
        let batch: [RawCANReception]
        do {
            batch = try socket.receive(upTo: Self.framesPerRead)
        } catch {
            if error == .wouldBlock { return }
            // A send that found the link down may have marked it already.
            state.withLock { state in
                if !state.closed, state.socket != nil { Self.markDown(&state, "receive: \(error)") }
            }
            retireWatched()
            return
        }
        deliver(batch)
    }

    /// Hands what one receive brought to the receiver, at once. The port's lock (which a
    /// send holds while it writes) only when the bus health changes: a dropped-frame
    /// count that moved, error frames.
    private func deliver(_ batch: [RawCANReception]) {
        var frames: [ReceivedFrame] = []
        frames.reserveCapacity(batch.count)
        var errorFrames: [CANFrame] = []
        for reception in batch {
            guard let frame = Self.frame(reception.frame) else { continue }
            if frame.isError { errorFrames.append(frame) }
            let stamp = CandumpTimestamp(seconds: reception.seconds, microseconds: UInt32(max(0, min(999_999, reception.microseconds))))
            frames.append(ReceivedFrame(frame: frame, timestamp: stamp, interface: interface))
        }
        let newest = batch.last?.dropped
        let moved = reading.withLock { reading -> Bool in
            // A frame arrived: the link works, the next outage backs off from the start.
            reading.backoffMilliseconds = 50
            guard let newest, newest != reading.dropped else { return false }
            reading.dropped = newest
            return true
        }
        if moved || !errorFrames.isEmpty {
            state.withLock { state in
                if let newest { state.health.droppedFrames = newest }
                for frame in errorFrames { state.health.apply(errorFrame: frame) }
                // Frames waiting for a bus that is gone would go out late, after it
                // restarts, as commands nobody waits for any more.
                if state.health.state == .busOff, case let .dropped(count, _) = state.writeQueue.dropAll("bus-off"), count > 0 {
                    state.health.lastError = "bus-off: \(count) queued frames dropped"
                }
            }
        }
        guard !frames.isEmpty, let receiver = receiver.withLock({ $0 }) else { return }
        if frames.count == 1 { receiver.frame(frames[0]) } else { receiver.frames(frames) }
    }

    /// The link is down (or the port closed): stop watching the socket that sends no
    /// longer use, close it, and try to reopen after the backoff.
    private func retireWatched() {
        let (socket, closed) = state.withLock { state in (state.socket, state.closed) }
        let retired = reading.withLock { reading -> (any CANSocketIO)? in
            guard let watched = reading.watched, watched.descriptor != socket?.descriptor else { return nil }
            reading.watched = nil
            return watched
        }
        if let retired {
            loop.deregister(retired.descriptor)
            retired.close()
        }
        if retired != nil, !closed { scheduleReopen() }
    }

    /// Reopens after the backoff, doubling it (up to 2 s) while the link stays down. The
    /// kernel binds a socket to an interface that is down and reports ENETDOWN on it at
    /// once, so a reopen is not yet a recovery: the backoff resets only when a frame arrives.
    private func scheduleReopen() {
        let delay = reading.withLock { reading in
            defer { reading.backoffMilliseconds = min(reading.backoffMilliseconds * 2, 2000) }
            return reading.backoffMilliseconds
        }
        Task(executorPreference: loop) { [self] in
            // Thrown: the loop stopped, and the port with it.
            do { try await loop.sleep(for: .milliseconds(delay)) } catch { return }
            reopen()
        }
    }

    private func reopen() {
        guard !state.withLock({ $0.closed }) else { return }
        guard io.exists(interface), let socket = try? io.open(interface, useFD) else {
            scheduleReopen()
            return
        }
        if !filters.isEmpty, (try? socket.setFilters(filters)) == nil {
            socket.close()
            scheduleReopen()
            return
        }
        let opened = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.socket = socket
            state.health.state = .errorActive
            state.health.restarts += 1
            return true
        }
        guard opened else {
            socket.close()
            return
        }
        reading.withLock { $0.watched = socket }
        do { try watch(socket) } catch {
            state.withLock { state in Self.markDown(&state, "watch: \(error)") }
            retireWatched()
        }
    }

    /// The link is down: sends fail fast, queued frames are dropped.
    private static func markDown(_ state: inout State, _ reason: String) {
        state.socket = nil
        state.health.state = .down
        state.health.lastError = reason
        _ = state.writeQueue.dropAll(reason)
    }

    // MARK: - The write queue

    /// Works the write queue off while it holds frames: a retry a little later each time,
    /// until the kernel takes them or the queue gives up. On the loop, like every timer of
    /// the port.
    private func scheduleFlush(afterMilliseconds delay: Int32) {
        Task(executorPreference: loop) { [self] in
            // Interrupted (the loop stopped): flush now, the queue decides what is left.
            try? await loop.sleep(for: .milliseconds(Int(delay)))
            if let next = flushWriteQueue() { scheduleFlush(afterMilliseconds: next) }
        }
    }

    /// Sends what the write queue holds, in order, until the kernel refuses one; when to
    /// try again, or nil when nothing waits any more (the retry task ends).
    private func flushWriteQueue() -> Int32? {
        state.withLock { state -> Int32? in
            if !state.closed, !state.writeQueue.isEmpty, let socket = state.socket {
                let flushed = state.writeQueue.flush { frame in
                    do throws(Errno) {
                        try socket.send(Self.raw(frame))
                        return .written
                    } catch {
                        return error.isTransientlyFull ? .full : .failed("send on \(interface): \(error)")
                    }
                }
                if case let .dropped(count, reason) = flushed { state.health.lastError = "\(reason): \(count) queued frames dropped" }
                if case let .waiting(retry) = flushed { return retry }
            }
            state.flushScheduled = false
            return nil
        }
    }

    /// The kernel filters on the socket the port reads now (read back from the kernel);
    /// nil while the interface is down.
    public func installedFilters() -> [CANFilter]? {
        state.withLock { state in try? state.socket?.filters() }
    }

    // MARK: - Conversions

    static func frame(_ raw: RawCANFrame) -> CANFrame? {
        let isError = raw.canID & RawCANFrame.errorFlag != 0
        let isExtended = isError || raw.canID & RawCANFrame.extendedFlag != 0
        let value = raw.canID & (isExtended ? 0x1FFF_FFFF : 0x7FF)
        guard let id = CANID(value, extended: isExtended) else { return nil }
        let kind: CANFrame.Kind = raw.isFD ? .fd(bitRateSwitch: raw.fdFlags & 0x01 != 0, errorStateIndicator: raw.fdFlags & 0x02 != 0) : .classic
        var data = raw.data
        if raw.isFD, CANFrame.fdLength(atLeast: data.count) != data.count {
            data += [UInt8](repeating: 0, count: (CANFrame.fdLength(atLeast: data.count) ?? 64) - data.count)
        }
        return try? CANFrame(id: id, data: data, kind: kind, isRemote: raw.canID & RawCANFrame.remoteFlag != 0 && !isError, isError: isError)
    }

    static func raw(_ frame: CANFrame) -> RawCANFrame {
        var id = frame.id.rawValue
        if frame.id.isExtended { id |= RawCANFrame.extendedFlag }
        if frame.isRemote { id |= RawCANFrame.remoteFlag }
        var flags: UInt8 = 0
        if case let .fd(brs, esi) = frame.kind { flags = (brs ? 0x01 : 0) | (esi ? 0x02 : 0) }
        return RawCANFrame(canID: id, data: frame.data, isFD: frame.isFD, fdFlags: flags)
    }
}

// MARK: - The socket seam

/// What `SocketCANPort` does with an open CAN_RAW socket. `CANSocket` is the only
/// production conformer; tests substitute a double to produce what vcan cannot (a full
/// transmit queue: ENOBUFS; controller error frames) without a kernel.
protocol CANSocketIO: Sendable {
    /// What the event loop watches: readable when frames wait or the link failed.
    var descriptor: FileDescriptor { get }
    func setFilters(_ filters: [CANFilter]) throws(Errno)
    func filters() throws(Errno) -> [CANFilter]
    func send(_ frame: RawCANFrame) throws(Errno)
    /// Takes the frames waiting, up to `limit`, without blocking (`Errno.wouldBlock`:
    /// none); a link that went down throws its error (ENETDOWN).
    func receive(upTo limit: Int) throws(Errno) -> [RawCANReception]
    func close()
}

extension CANSocket: CANSocketIO {}

/// How `SocketCANPort` opens sockets and asks whether the interface exists (it reopens
/// after the interface went down). `.kernel` is the real thing.
struct CANSocketOpener: Sendable {
    var open: @Sendable (_ interface: String, _ fd: Bool) throws(Errno) -> any CANSocketIO
    var exists: @Sendable (_ interface: String) -> Bool

    static let kernel = CANSocketOpener(
        open: { (interface: String, fd: Bool) throws(Errno) -> any CANSocketIO in try CANSocket.open(interface: interface, fd: fd) },
        exists: { CANSocket.interfaceExists($0) })
}
