import CANKit
import Foundation
import Synchronization

/// An in-process CAN bus with vcan semantics: every frame a port sends reaches every
/// other open port, in one global order. What the embedded default runs on, and what
/// tests use instead of a kernel.
///
/// Delivery is synchronous under a lock (no actor hop per frame): a send stamps the
/// frame and yields it to every other port's stream before it returns, so the global
/// order is the order in which sends took the lock.
public final class VirtualCANBus: Sendable {
    public let interface: String
    private let now: @Sendable () -> CandumpTimestamp

    private struct Ports {
        var continuations: [Int: AsyncStream<ReceivedFrame>.Continuation] = [:]
        var nextPortID = 0
        var lastTimestamp = CandumpTimestamp(seconds: 0, microseconds: 0)
    }

    private let ports = Mutex(Ports())

    /// `now` stamps frames; the default is the wall clock (as candump stamps them).
    public init(interface: String = "vcan0", now: @escaping @Sendable () -> CandumpTimestamp = VirtualCANBus.wallClock) {
        self.interface = interface
        self.now = now
    }

    public static let wallClock: @Sendable () -> CandumpTimestamp = {
        let seconds = Date().timeIntervalSince1970
        let whole = seconds.rounded(.down)
        return CandumpTimestamp(seconds: Int64(whole), microseconds: UInt32(min(999_999, ((seconds - whole) * 1_000_000).rounded())))
    }

    /// A new endpoint on the bus. (`async` as when the bus was an actor: callers await it.)
    public func makePort() async -> VirtualCANPort {
        makePortNow()
    }

    /// A new endpoint on the bus, from synchronous code.
    public func makePortNow() -> VirtualCANPort {
        let (stream, continuation) = AsyncStream<ReceivedFrame>.makeStream(bufferingPolicy: .unbounded)
        let id = ports.withLock { ports in
            let id = ports.nextPortID
            ports.nextPortID += 1
            ports.continuations[id] = continuation
            return id
        }
        return VirtualCANPort(bus: self, id: id, interface: interface, frames: stream)
    }

    /// Number of open ports.
    public var portCount: Int {
        get async { ports.withLock { $0.continuations.count } }
    }

    func deliver(_ frame: CANFrame, from sender: Int) throws(CANBusError) -> ReceivedFrame {
        let now = self.now
        let interface = self.interface
        let result: ReceivedFrame? = ports.withLock { ports in
            guard ports.continuations[sender] != nil else { return nil }
            // Timestamps never go backwards, so logs stay ordered.
            var stamp = now()
            if stamp < ports.lastTimestamp { stamp = ports.lastTimestamp }
            ports.lastTimestamp = stamp
            let received = ReceivedFrame(frame: frame, timestamp: stamp, interface: interface)
            for (id, continuation) in ports.continuations where id != sender {
                continuation.yield(received)
            }
            return received
        }
        guard let result else { throw .closed }
        return result
    }

    func close(_ id: Int) {
        let continuation = ports.withLock { $0.continuations.removeValue(forKey: id) }
        continuation?.finish()
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

    public func close() async {
        bus.close(id)
    }
}
