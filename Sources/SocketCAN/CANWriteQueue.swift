import CANKit

/// The frames a CAN socket did not take yet (ENOBUFS: the interface's transmit queue is
/// full), in the order they were sent. Pure: `SocketCANPort` tries them again from a
/// retry task, a little later each time, and gives up on them after `maxAttempts`
/// tries of the oldest (the bus is not draining: a controller bus-off, a cable off).
struct CANWriteQueue {
    /// What one write of a frame did.
    enum Write {
        case written
        /// The kernel's queue is full: try again later.
        case full
        case failed(String)
    }

    /// What a flush left.
    enum Flushed: Equatable {
        /// Every frame went out.
        case empty
        /// Some are still waiting: try again after `retryMilliseconds`.
        case waiting(retryMilliseconds: Int32)
        /// Given up: these many frames were dropped, and why.
        case dropped(count: Int, reason: String)
    }

    static let capacity = 256
    static let maxAttempts = 10

    private var frames: [CANFrame] = []
    private var head = 0
    /// Tries of the oldest frame so far.
    private var attempts = 0

    var isEmpty: Bool { head == frames.count }
    var count: Int { frames.count - head }

    /// Queues `frame` behind the others; false when the queue is full.
    mutating func enqueue(_ frame: CANFrame) -> Bool {
        guard count < Self.capacity else { return false }
        frames.append(frame)
        return true
    }

    /// Writes the frames in order until one is refused.
    mutating func flush(_ write: (CANFrame) -> Write) -> Flushed {
        while !isEmpty {
            switch write(frames[head]) {
            case .written:
                head += 1
                attempts = 0
            case .full:
                attempts += 1
                if attempts >= Self.maxAttempts { return dropAll("the CAN transmit queue stayed full") }
                return .waiting(retryMilliseconds: Int32(2 * attempts))
            case let .failed(reason):
                return dropAll(reason)
            }
        }
        frames.removeAll(keepingCapacity: true)
        head = 0
        return .empty
    }

    /// When the oldest frame should be tried again; nil when nothing waits.
    var retryMilliseconds: Int32? { isEmpty ? nil : Int32(2 * max(1, attempts)) }

    /// Forgets every queued frame (the interface went down, the port closed).
    mutating func dropAll(_ reason: String) -> Flushed {
        let dropped = count
        frames.removeAll()
        head = 0
        attempts = 0
        return .dropped(count: dropped, reason: reason)
    }
}
