import CANKit
import Synchronization

/// An in-process CAN bus with vcan semantics: every frame a port sends reaches every
/// other port that receives, in one global order. What the embedded default runs on,
/// and what tests use instead of a kernel.
///
/// Delivery is synchronous: a send stamps the frame under the bus's lock, then, after
/// the lock, calls the receivers of the other ports on the sender's thread. A receiver
/// sees each sender's frames in that sender's order; frames of two senders sending at the
/// same instant may reach it in either order. A send never queues.
public final class VirtualCANBus: Sendable {
    public let interface: String
    private let now: @Sendable () -> CandumpTimestamp

    private struct Ports {
        /// Open ports; those that receive have their receiver.
        var open: Set<Int> = []
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

    /// A new endpoint on the bus; it hears the frames sent once it receives.
    public func makePort() -> VirtualCANPort {
        let id = ports.withLock { ports in
            let id = ports.nextPortID
            ports.nextPortID += 1
            ports.open.insert(id)
            return id
        }
        return VirtualCANPort(bus: self, id: id, interface: interface)
    }

    /// Number of open ports.
    public var portCount: Int { ports.withLock { $0.open.count } }

    func deliver(_ frame: CANFrame, from sender: Int) -> SendAttempt {
        let now = self.now
        let interface = self.interface
        let result: (ReceivedFrame, [(id: Int, receiver: CANReceiver)])? = ports.withLock { ports in
            guard ports.open.contains(sender) else { return nil }
            // Timestamps never go backwards, so logs stay ordered.
            var stamp = now()
            if stamp < ports.lastTimestamp { stamp = ports.lastTimestamp }
            ports.lastTimestamp = stamp
            return (ReceivedFrame(frame: frame, timestamp: stamp, interface: interface), ports.receivers)
        }
        guard let (received, receivers) = result else { return .failed(.closed) }
        // Outside the lock: a receiver may send in turn (the simulated vehicle answers).
        for (id, receiver) in receivers where id != sender {
            receiver.frame(received)
        }
        return .sent(received)
    }

    func startReceiving(_ id: Int, _ receiver: CANReceiver) {
        let closed = ports.withLock { ports -> Bool in
            guard ports.open.contains(id), !ports.receivers.contains(where: { $0.id == id }) else { return true }
            ports.receivers.append((id, receiver))
            return false
        }
        if closed { receiver.finished() }
    }

    func close(_ id: Int) {
        let receiver = ports.withLock { ports -> CANReceiver? in
            ports.open.remove(id)
            guard let index = ports.receivers.firstIndex(where: { $0.id == id }) else { return nil }
            return ports.receivers.remove(at: index).receiver
        }
        receiver?.finished()
    }
}

/// An endpoint on a `VirtualCANBus`.
public struct VirtualCANPort: CANPort {
    private let bus: VirtualCANBus
    private let id: Int
    public let interface: String

    init(bus: VirtualCANBus, id: Int, interface: String) {
        self.bus = bus
        self.id = id
        self.interface = interface
    }

    /// Delivers at once: the in-process bus never queues.
    @discardableResult
    public func send(_ frame: CANFrame) -> SendAttempt {
        bus.deliver(frame, from: id)
    }

    public func startReceiving(_ receiver: CANReceiver) {
        bus.startReceiving(id, receiver)
    }

    public func close() {
        bus.close(id)
    }
}
