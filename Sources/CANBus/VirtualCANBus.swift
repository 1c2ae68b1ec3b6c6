import CANKit
import Synchronization

/// An in-process CAN bus with vcan semantics: every frame a port sends reaches every
/// other open port, in one global order. What the embedded default runs on, and what
/// tests use instead of a kernel.
///
/// Delivery is synchronous: a send stamps the frame and yields it to every other port's
/// stream under a lock (so streams see the order in which sends took the lock), then,
/// after the lock, calls the receivers of the ports that deliver directly. A direct
/// receiver sees each sender's frames in that sender's order; frames of two senders
/// sending at the same instant may reach it in either order.
public final class VirtualCANBus: Sendable {
    public let interface: String
    private let now: @Sendable () -> CandumpTimestamp

    private enum Endpoint {
        case stream(AsyncStream<ReceivedFrame>.Continuation)
        case direct(CANReceiver)
    }

    private struct Ports {
        var endpoints: [Int: Endpoint] = [:]
        /// The direct receivers, kept apart so a send copies no dictionary.
        var receivers: [(id: Int, receiver: CANReceiver)] = []
        var nextPortID = 0
        var lastTimestamp = CandumpTimestamp(seconds: 0, microseconds: 0)
    }

    private let ports = Mutex(Ports())

    /// `now` stamps frames; the default is the wall clock (as candump stamps them).
    public init(interface: String = "vcan0", now: @escaping @Sendable () -> CandumpTimestamp = VirtualCANBus.wallClock) {
        self.interface = interface
        self.now = now
    }

    public static let wallClock: @Sendable () -> CandumpTimestamp = { CandumpTimestamp.now() }

    /// A new endpoint on the bus; it hears the frames sent after it opened.
    public func makePort() -> VirtualCANPort {
        let (stream, continuation) = AsyncStream<ReceivedFrame>.makeStream(bufferingPolicy: .unbounded)
        let id = ports.withLock { ports in
            let id = ports.nextPortID
            ports.nextPortID += 1
            ports.endpoints[id] = .stream(continuation)
            return id
        }
        return VirtualCANPort(bus: self, id: id, interface: interface, frames: stream)
    }

    /// Number of open ports.
    public var portCount: Int {
        get async { ports.withLock { $0.endpoints.count } }
    }

    func deliver(_ frame: CANFrame, from sender: Int) throws(CANBusError) -> ReceivedFrame {
        let now = self.now
        let interface = self.interface
        let result: (ReceivedFrame, [(id: Int, receiver: CANReceiver)])? = ports.withLock { ports in
            guard ports.endpoints[sender] != nil else { return nil }
            // Timestamps never go backwards, so logs stay ordered.
            var stamp = now()
            if stamp < ports.lastTimestamp { stamp = ports.lastTimestamp }
            ports.lastTimestamp = stamp
            let received = ReceivedFrame(frame: frame, timestamp: stamp, interface: interface)
            for (id, endpoint) in ports.endpoints where id != sender {
                if case let .stream(continuation) = endpoint { continuation.yield(received) }
            }
            return (received, ports.receivers)
        }
        guard let (received, receivers) = result else { throw .closed }
        // Outside the lock: a receiver may send in turn (the simulated vehicle answers).
        for (id, receiver) in receivers where id != sender {
            receiver.frame(received)
        }
        return received
    }

    /// Switches port `id` from its stream to `receiver`; false when the port is closed.
    func deliverDirectly(_ id: Int, to receiver: CANReceiver) -> Bool {
        let continuation: AsyncStream<ReceivedFrame>.Continuation? = ports.withLock { ports in
            guard case let .stream(continuation)? = ports.endpoints[id] else { return nil }
            ports.endpoints[id] = .direct(receiver)
            ports.receivers.append((id, receiver))
            return continuation
        }
        // The port's stream has no producer any more.
        continuation?.finish()
        return continuation != nil
    }

    func close(_ id: Int) {
        let endpoint = ports.withLock { ports -> Endpoint? in
            ports.receivers.removeAll { $0.id == id }
            return ports.endpoints.removeValue(forKey: id)
        }
        switch endpoint {
        case let .stream(continuation)?: continuation.finish()
        case let .direct(receiver)?: receiver.finished()
        case nil: break
        }
    }
}

/// An endpoint on a `VirtualCANBus`.
public struct VirtualCANPort: CANPort {
    private let bus: VirtualCANBus
    private let id: Int
    public let interface: String
    public let frames: AsyncStream<ReceivedFrame>

    init(bus: VirtualCANBus, id: Int, interface: String, frames: AsyncStream<ReceivedFrame>) {
        self.bus = bus
        self.id = id
        self.interface = interface
        self.frames = frames
    }

    @discardableResult
    public func send(_ frame: CANFrame) async throws(CANBusError) -> ReceivedFrame {
        try bus.deliver(frame, from: id)
    }

    /// Delivers at once: the in-process bus never blocks.
    public func sendImmediately(_ frame: CANFrame) -> Result<ReceivedFrame, CANBusError>? {
        Result { () throws(CANBusError) in try bus.deliver(frame, from: id) }
    }

    public func deliverDirectly(to receiver: CANReceiver) -> Bool {
        bus.deliverDirectly(id, to: receiver)
    }

    public func close() async {
        bus.close(id)
    }
}
