import CANKit

/// A frame as a port received it: when, on which interface.
public struct ReceivedFrame: Sendable, Hashable {
    public var frame: CANFrame
    public var timestamp: CandumpTimestamp
    public var interface: String

    public init(frame: CANFrame, timestamp: CandumpTimestamp, interface: String) {
        self.frame = frame
        self.timestamp = timestamp
        self.interface = interface
    }

    /// The `candump -L` line of this frame.
    public var logLine: String {
        CandumpWriter.logLine(CandumpRecord(timestamp: timestamp, interface: interface, frame: frame))
    }
}

public enum CANBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The port was closed.
    case closed
    /// The interface is down or gone.
    case interfaceDown(String)
    /// The transmit queue stayed full.
    case transmitQueueFull
    case other(String)

    public var description: String {
        switch self {
        case .closed: "the CAN port is closed"
        case let .interfaceDown(name): "CAN interface \(name) is down"
        case .transmitQueueFull: "the CAN transmit queue is full"
        case let .other(text): text
        }
    }
}

/// One endpoint on a CAN bus, with SocketCAN's raw-socket semantics: it receives
/// every frame that the other endpoints send, not its own.
public protocol CANPort: Sendable {
    /// The interface name, e.g. "vcan0".
    var interface: String { get }
    /// Sends a frame; returns once the bus has taken it, with the frame as sent.
    @discardableResult
    func send(_ frame: CANFrame) async throws(CANBusError) -> ReceivedFrame
    /// Frames from the other endpoints, in bus order. One consumer per port.
    var frames: AsyncStream<ReceivedFrame> { get }
    /// Stops receiving; `frames` finishes.
    func close() async
    /// The bus's health as this port sees it.
    func health() async -> BusHealth
    /// Sends without suspending when the port can (an in-process bus): the result of
    /// the send; nil when the port cannot, and then the caller uses `send`. Saves the
    /// executor hops of an `async` call per frame.
    func sendImmediately(_ frame: CANFrame) -> Result<ReceivedFrame, CANBusError>?
    /// Hands every received frame to `receiver` on the thread that has it (the sender's,
    /// on an in-process bus; the reader thread, on SocketCAN) instead of through `frames`,
    /// no task wake-up per frame. Frames that arrived before stay in `frames`, which then
    /// finishes: read them out before any direct one (`OrderedHandoff` does). False when
    /// the port cannot; the caller reads `frames` then. Call it once.
    func deliverDirectly(to receiver: CANReceiver) -> Bool
}

/// Where a port hands its frames when it delivers them directly (see
/// `CANPort.deliverDirectly`). `frame` runs on the port's thread, one frame at a time per
/// sender; it must not block, and it must not send on the bus while holding a lock that
/// another receiver on the same bus takes (the send delivers synchronously).
public struct CANReceiver: Sendable {
    public var frame: @Sendable (ReceivedFrame) -> Void
    /// The port closed: no more frames.
    public var finished: @Sendable () -> Void

    public init(frame: @escaping @Sendable (ReceivedFrame) -> Void, finished: @escaping @Sendable () -> Void = {}) {
        self.frame = frame
        self.finished = finished
    }
}

extension CANPort {
    /// An in-process bus has no controller: always error-active.
    public func health() async -> BusHealth { BusHealth() }

    /// By default a port has no synchronous path.
    public func sendImmediately(_ frame: CANFrame) -> Result<ReceivedFrame, CANBusError>? { nil }

    /// By default a port delivers through `frames` only.
    public func deliverDirectly(to receiver: CANReceiver) -> Bool { false }
}
