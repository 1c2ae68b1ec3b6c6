import CANBus
import CANKit
import LinuxSupport
import Synchronization

/// A `CANPort` on a Linux CAN interface (CAN_RAW). The socket is read on a thread of
/// its own that calls the receiver given to `startReceiving` (frames before it are read
/// and dropped); the cooperative pool never blocks on it. The thread blocks in one
/// recvmmsg per wake-up and hands over all the frames it brought at once; the kernel's
/// filters pass only `acceptedIDs`, so on a busy bus the frames nobody needs cost
/// nothing here. A frame the kernel does not take (a full transmit queue) waits in the
/// port's `CANWriteQueue`, worked off by a retry task while it holds frames. When the
/// interface goes down or disappears the port reconnects with backoff, and sends fail
/// fast with `interfaceDown` meanwhile.
public final class SocketCANPort: CANPort, Sendable {
    public let interface: String
    private let useFD: Bool
    private let filters: [CANFilter]

    private struct State {
        var socket: (any CANSocketIO)?
        /// A socket a send found down: only the reader thread closes sockets, so that it
        /// never polls or reads a descriptor number that another thread has reused.
        var retired: (any CANSocketIO)?
        var health = BusHealth()
        var closed = false
        var writeQueue = CANWriteQueue()
        /// A retry task is working off the write queue.
        var flushScheduled = false
    }

    /// How long the reader waits in one receive before it looks at the port's state
    /// (closing, a socket a send retired): at most this long for `close`, and the only
    /// wake-ups of an idle reader besides frames.
    static let receiveTimeoutMilliseconds: Int32 = 250

    private let state = Mutex(State())
    private let wake: WakeEvent
    private let finished = Mutex<Bool>(false)
    private let readerDone = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let io: CANSocketOpener
    /// Set by `startReceiving`: the reader thread hands it every frame.
    private let receiver = Mutex<CANReceiver?>(nil)

    /// Opens `interface`. `fd`: send and receive CAN FD frames. `acceptedIDs`: only
    /// these IDs reach the port (kernel filters); empty: every frame.
    public convenience init(interface: String, fd: Bool, acceptedIDs: [CANID] = []) throws(Errno) {
        try self.init(interface: interface, fd: fd, acceptedIDs: acceptedIDs, io: .kernel)
    }

    /// The seam for tests: `io` opens the sockets (the kernel's CAN_RAW in production;
    /// a test double that fails sends with ENOBUFS or feeds error frames in tests, where
    /// vcan cannot produce those). See `CANSocketOpener`.
    init(interface: String, fd: Bool, acceptedIDs: [CANID] = [], io: CANSocketOpener) throws(Errno) {
        self.io = io
        self.interface = interface
        self.useFD = fd
        self.filters = acceptedIDs.map { id in
            id.isExtended
                ? CANFilter(id: id.rawValue | RawCANFrame.extendedFlag, mask: 0x1FFF_FFFF | RawCANFrame.extendedFlag | RawCANFrame.remoteFlag)
                : CANFilter(id: id.rawValue, mask: 0x7FF | RawCANFrame.extendedFlag | RawCANFrame.remoteFlag)
        }
        wake = try WakeEvent()
        let socket = try io.open(interface, fd)
        do { try Self.configure(socket, filters: filters) } catch {
            socket.close()
            throw error
        }
        state.withLock { $0.socket = socket }
        do {
            try DetachedThread.start(name: "can-\(interface)") { [self] in readLoop() }
        } catch {
            state.withLock { $0.socket = nil }
            socket.close()
            throw error
        }
    }

    /// Sends at once, or queues behind the frames the kernel has not taken yet (the
    /// reader thread sends those); `transmitQueueFull` when the port's queue is full too.
    @discardableResult
    public func send(_ frame: CANFrame) -> SendAttempt {
        let raw = Self.raw(frame)
        // `flushAfter`: this send queued the first frame, so a retry task starts then.
        let (attempt, down, flushAfter) = state.withLock { state -> (SendAttempt, String?, Int32?) in
            if state.closed { return (.failed(.closed), nil, nil) }
            guard let socket = state.socket else { return (.failed(.interfaceDown(interface)), nil, nil) }
            let stamped = ReceivedFrame(frame: frame, timestamp: CandumpTimestamp.now(), interface: interface)
            // Behind the queued ones, so that one sender's frames keep their order.
            guard state.writeQueue.isEmpty else {
                return state.writeQueue.enqueue(frame) ? (.queued(stamped), nil, nil) : (.failed(.transmitQueueFull), nil, nil)
            }
            do throws(Errno) {
                try socket.send(raw)
                return (.sent(stamped), nil, nil)
            } catch {
                if error.isTransientlyFull {
                    guard state.writeQueue.enqueue(frame) else { return (.failed(.transmitQueueFull), nil, nil) }
                    guard !state.flushScheduled else { return (.queued(stamped), nil, nil) }
                    state.flushScheduled = true
                    return (.queued(stamped), nil, state.writeQueue.retryMilliseconds)
                }
                if error.isInterfaceGone { return (.failed(.interfaceDown(interface)), "send: \(error)", nil) }
                return (.failed(.other("send on \(interface): \(error)")), nil, nil)
            }
        }
        if let down { markDown(down, onReaderThread: false) }
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
            return was
        }
        guard !alreadyClosed else { return }
        wake.signal()
        // Wait for the reader thread to finish, so no fd or thread outlives the port.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = finished.withLock { finished -> Bool in
                if finished { return true }
                readerDone.withLock { $0 = continuation }
                return false
            }
            if done { continuation.resume() }
        }
        wake.close()
        receiver.withLock { $0 }?.finished()
    }

    // MARK: - Reader thread

    private func readLoop() {
        var backoff: Int32 = 50
        var dropped: UInt32 = 0
        while !state.withLock({ $0.closed }) {
            closeRetired()
            guard let socket = state.withLock({ $0.socket }) else {
                // Down: wait, then reopen (the interface may come back with a new index).
                // The kernel binds a socket to an interface that is down and reports
                // ENETDOWN on it at once, so a reopen is not yet a recovery: the backoff
                // resets only when a frame arrives.
                wake.wait(timeoutMilliseconds: backoff)
                backoff = min(backoff * 2, 2000)
                if !state.withLock({ $0.closed }) { reopen() }
                continue
            }
            let batch: [RawCANReception]
            do {
                batch = try socket.receive(upTo: CANSocket.batchLimit)
            } catch {
                // The receive timeout: look at the state again. A send that found the
                // link down took the socket's error, so this is also how the reader
                // learns it.
                if error == .wouldBlock { continue }
                markDown("receive: \(error)")
                continue
            }
            backoff = 50
            deliver(batch, dropped: &dropped)
        }
        closeRetired()
        if let socket = state.withLock({ state -> (any CANSocketIO)? in
            let socket = state.socket
            state.socket = nil
            return socket
        }) {
            socket.close()
        }
        let waiter = finished.withLock { finished -> CheckedContinuation<Void, Never>? in
            finished = true
            return readerDone.withLock { $0 }
        }
        waiter?.resume()
    }

    /// Hands what one receive brought to the receiver, at once. The port's lock (which a
    /// send holds while it writes) only when the bus health changes: a dropped-frame
    /// count that moved (`dropped`: the last one seen), error frames.
    private func deliver(_ batch: [RawCANReception], dropped: inout UInt32) {
        var frames: [ReceivedFrame] = []
        frames.reserveCapacity(batch.count)
        var errorFrames: [CANFrame] = []
        for reception in batch {
            guard let frame = Self.frame(reception.frame) else { continue }
            if frame.isError { errorFrames.append(frame) }
            let stamp = CandumpTimestamp(seconds: reception.seconds, microseconds: UInt32(max(0, min(999_999, reception.microseconds))))
            frames.append(ReceivedFrame(frame: frame, timestamp: stamp, interface: interface))
        }
        let newest = batch.last?.dropped ?? dropped
        if newest != dropped || !errorFrames.isEmpty {
            dropped = newest
            state.withLock { state in
                state.health.droppedFrames = newest
                for frame in errorFrames { state.health.apply(errorFrame: frame) }
            }
        }
        guard !frames.isEmpty, let receiver = receiver.withLock({ $0 }) else { return }
        if frames.count == 1 { receiver.frame(frames[0]) } else { receiver.frames(frames) }
    }

    /// Works the write queue off while it holds frames: a retry a little later each time,
    /// until the kernel takes them or the queue gives up.
    private func scheduleFlush(afterMilliseconds delay: Int32) {
        Task.detached { [self] in
            try? await Task.sleep(for: .milliseconds(Int(delay)))
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

    /// The interface is down or gone: the socket goes, queued frames are dropped, and the
    /// reader thread reopens with backoff. A send (`onReaderThread: false`) only retires
    /// the socket and wakes the reader, which closes it.
    private func markDown(_ reason: String, onReaderThread: Bool = true) {
        let socket = state.withLock { state -> (any CANSocketIO)? in
            let socket = state.socket
            state.socket = nil
            state.health.state = .down
            state.health.lastError = reason
            _ = state.writeQueue.dropAll(reason)
            if !onReaderThread, let socket {
                state.retired = socket
                return nil
            }
            return socket
        }
        if onReaderThread { socket?.close() } else { wake.signal() }
    }

    private func closeRetired() {
        state.withLock { state -> (any CANSocketIO)? in
            let retired = state.retired
            state.retired = nil
            return retired
        }?.close()
    }

    private func reopen() {
        guard io.exists(interface), let socket = try? io.open(interface, useFD) else { return }
        if (try? Self.configure(socket, filters: filters)) == nil {
            socket.close()
            return
        }
        state.withLock { state in
            state.socket = socket
            state.health.state = .errorActive
            state.health.restarts += 1
        }
    }

    /// Every socket the port opens: the kernel filters (none: every frame) and the
    /// receive timeout of the reader's wait.
    private static func configure(_ socket: any CANSocketIO, filters: [CANFilter]) throws(Errno) {
        if !filters.isEmpty { try socket.setFilters(filters) }
        try socket.setReceiveTimeout(milliseconds: receiveTimeoutMilliseconds)
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
    func setFilters(_ filters: [CANFilter]) throws(Errno)
    func filters() throws(Errno) -> [CANFilter]
    func setReceiveTimeout(milliseconds: Int32) throws(Errno)
    func send(_ frame: RawCANFrame) throws(Errno)
    /// Waits for a frame (at most the receive timeout: `Errno.wouldBlock`), then takes
    /// those already waiting too, up to `limit`.
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
