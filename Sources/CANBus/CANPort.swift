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
}

extension CANPort {
    /// An in-process bus has no controller: always error-active.
    public func health() async -> BusHealth { BusHealth() }

    /// By default a port has no synchronous path.
    public func sendImmediately(_ frame: CANFrame) -> Result<ReceivedFrame, CANBusError>? { nil }
}
