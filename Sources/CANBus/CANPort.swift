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
    /// The controller is bus-off: it left the bus after too many errors, and sends and
    /// receives nothing until it restarts (restart-ms, or `ip link set ... type can restart`).
    case busOff(String)
    case other(String)

    public var description: String {
        switch self {
        case .closed: "the CAN port is closed"
        case let .interfaceDown(name): "CAN interface \(name) is down"
        case .transmitQueueFull: "the CAN transmit queue is full"
        case let .busOff(name): "CAN interface \(name) is bus-off: its controller left the bus after too many errors, until it restarts"
        case let .other(text): text
        }
    }
}

/// How a send went: on the bus now, taken into the port's write queue (it goes out in
/// order, after the frames queued before it, when the bus takes frames again), or not
/// sent at all. A queued frame carries the time it was queued.
public enum SendAttempt: Sendable, Equatable {
    case sent(ReceivedFrame)
    case queued(ReceivedFrame)
    case failed(CANBusError)

    /// The frame as sent or queued; nil when the send failed.
    public var frame: ReceivedFrame? {
        switch self {
        case let .sent(frame), let .queued(frame): frame
        case .failed: nil
        }
    }
}

/// One endpoint on a CAN bus, with SocketCAN's raw-socket semantics: it receives
/// every frame that the other endpoints send, not its own.
///
/// One way in, one way out. Frames reach the receiver given to `startReceiving`, on the
/// thread that has them (the sender's, on an in-process bus; the event loop's that
/// watches the socket, on SocketCAN), one at a time per sender and in bus order; frames that arrive before it
/// are not delivered. A send never suspends: it answers at once with a `SendAttempt`.
public protocol CANPort: Sendable {
    /// The interface name, e.g. "vcan0".
    var interface: String { get }
    /// Sends `frame`, or queues it behind the frames the bus has not taken yet.
    @discardableResult
    func send(_ frame: CANFrame) -> SendAttempt
    /// Hands every frame received from now on to `receiver`. Call it once.
    func startReceiving(_ receiver: CANReceiver)
    /// Stops receiving (the receiver hears `finished`) and sending.
    func close() async
    /// The bus's health as this port sees it.
    func health() -> BusHealth
}

/// Where a port hands its frames (see `CANPort.startReceiving`). They run on the port's
/// thread, one call at a time per sender; they must not block, and they must not send on
/// the bus while holding a lock that another receiver on the same bus takes (the send
/// delivers synchronously). A port that reads several frames at once (SocketCAN: what
/// one read of the socket brought) hands them to `frames` together, in bus order; an
/// in-process bus hands each to `frame`. A receiver may give either or both.
public struct CANReceiver: Sendable {
    public var frame: @Sendable (ReceivedFrame) -> Void
    public var frames: @Sendable ([ReceivedFrame]) -> Void
    /// The port closed: no more frames.
    public var finished: @Sendable () -> Void

    public init(frame: @escaping @Sendable (ReceivedFrame) -> Void, finished: @escaping @Sendable () -> Void = {}) {
        self.frame = frame
        self.frames = { batch in for received in batch { frame(received) } }
        self.finished = finished
    }

    /// A receiver that handles a batch as one (one lock, one clock read for all).
    public init(
        frame: @escaping @Sendable (ReceivedFrame) -> Void, frames: @escaping @Sendable ([ReceivedFrame]) -> Void,
        finished: @escaping @Sendable () -> Void = {}
    ) {
        self.frame = frame
        self.frames = frames
        self.finished = finished
    }

    /// A receiver that keeps the frames in a stream, for a reader that wants to await
    /// them (tests, tools): the stream ends when the port closes.
    public static func stream(bufferingNewest limit: Int = 65536) -> (receiver: CANReceiver, frames: AsyncStream<ReceivedFrame>) {
        let (frames, continuation) = AsyncStream<ReceivedFrame>.makeStream(bufferingPolicy: .bufferingNewest(limit))
        let receiver = CANReceiver(frame: { continuation.yield($0) }, finished: { continuation.finish() })
        return (receiver, frames)
    }
}

extension CANPort {
    /// An in-process bus has no controller: always error-active.
    public func health() -> BusHealth { BusHealth() }

    /// Starts receiving into a stream (`CANReceiver.stream`).
    public func receivedFrames(bufferingNewest limit: Int = 65536) -> AsyncStream<ReceivedFrame> {
        let (receiver, frames) = CANReceiver.stream(bufferingNewest: limit)
        startReceiving(receiver)
        return frames
    }
}
