import Synchronization

/// The switch from a port's `frames` to direct delivery (`CANPort.deliverDirectly`), in
/// arrival order: what the stream buffered before the switch is handled first, and the
/// frames the port hands over meanwhile wait behind it. Without it the port's thread
/// handles a new frame while an older one is still in the stream -- an E2E receiver
/// then sees the older counter after the newer one, a "repeated" or "wrongSequence"
/// frame that the vehicle never sent.
public final class OrderedHandoff: Sendable {
    private struct Queue {
        var direct = false
        var waiting: [ReceivedFrame] = []
    }

    private let queue = Mutex(Queue())
    private let handle: @Sendable (ReceivedFrame) -> Void

    /// `handle` gets every frame once, one at a time, in the order the port received them.
    public init(_ handle: @escaping @Sendable (ReceivedFrame) -> Void) {
        self.handle = handle
    }

    /// The receiver to give `deliverDirectly` (`finished`: the port closed).
    public func receiver(finished: @escaping @Sendable () -> Void) -> CANReceiver {
        CANReceiver(frame: { [self] received in frame(received) }, finished: finished)
    }

    /// On the port's thread: handled at once after the switch, queued before.
    func frame(_ received: ReceivedFrame) {
        let now = queue.withLock { queue -> Bool in
            if queue.direct { return true }
            queue.waiting.append(received)
            return false
        }
        if now { handle(received) }
    }

    /// Handles what `stream` (the port's `frames`, which finishes at the switch) buffered,
    /// then what queued meanwhile; returns once the port's thread handles frames itself.
    public func drain(_ stream: AsyncStream<ReceivedFrame>) async {
        for await received in stream { handle(received) }
        while true {
            let batch = queue.withLock { queue -> [ReceivedFrame] in
                if queue.waiting.isEmpty { queue.direct = true }
                let batch = queue.waiting
                queue.waiting = []
                return batch
            }
            if batch.isEmpty { return }
            for received in batch { handle(received) }
        }
    }
}
