import CANKit
import Foundation

/// An in-process CAN bus with vcan semantics: every frame a port sends reaches every
/// other open port, in one global order. What the embedded default runs on, and what
/// tests use instead of a kernel.
public actor VirtualCANBus {
    public nonisolated let interface: String
    private let now: @Sendable () -> CandumpTimestamp
    private var continuations: [Int: AsyncStream<ReceivedFrame>.Continuation] = [:]
    private var nextPortID = 0
    private var lastTimestamp = CandumpTimestamp(seconds: 0, microseconds: 0)

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

    /// A new endpoint on the bus.
    public func makePort() -> VirtualCANPort {
        let id = nextPortID
        nextPortID += 1
        let (stream, continuation) = AsyncStream<ReceivedFrame>.makeStream(bufferingPolicy: .unbounded)
        continuations[id] = continuation
        return VirtualCANPort(bus: self, id: id, interface: interface, frames: stream)
    }

    /// Number of open ports.
    public var portCount: Int { continuations.count }

    func deliver(_ frame: CANFrame, from sender: Int) throws(CANBusError) -> ReceivedFrame {
        guard continuations[sender] != nil else { throw .closed }
        // Timestamps never go backwards, so logs stay ordered.
        var stamp = now()
        if stamp < lastTimestamp { stamp = lastTimestamp }
        lastTimestamp = stamp
        let received = ReceivedFrame(frame: frame, timestamp: stamp, interface: interface)
        for (id, continuation) in continuations where id != sender {
            continuation.yield(received)
        }
        return received
    }

    func close(_ id: Int) {
        continuations.removeValue(forKey: id)?.finish()
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
        let result = await bus.deliverResult(frame, from: id)
        return try result.get()
    }

    public func close() async {
        await bus.close(id)
    }
}

extension VirtualCANBus {
    fileprivate func deliverResult(_ frame: CANFrame, from sender: Int) -> Result<ReceivedFrame, CANBusError> {
        Result { () throws(CANBusError) in try deliver(frame, from: sender) }
    }
}
