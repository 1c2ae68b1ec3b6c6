import Synchronization

/// The calls a connection has read and not yet run: the loop thread pushes them, the
/// connection's one task takes them in order. What an AsyncStream did here, without its
/// cost per call (generic storage looked up at run time, a buffer shifted on every take;
/// docs/BENCHMARKS.md has the figures).
final class VarlinkCallQueue<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var head = 0
        var waiter: UnsafeContinuation<Item?, Never>?
        var finished = false

        mutating func take() -> Item? {
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
            return item
        }
    }

    private enum Ready {
        case item(Item)
        case finished
        case none
    }

    private let state = Mutex(State())

    /// Queues `item`, or hands it to the task waiting for one; dropped once finished.
    func push(_ item: Item) {
        let waiter = state.withLock { state -> UnsafeContinuation<Item?, Never>? in
            guard !state.finished else { return nil }
            guard let waiter = state.waiter else {
                state.items.append(item)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: item)
    }

    /// Ends the queue (the connection closed): the calls still queued are dropped, and
    /// `next` returns nil from now on.
    func finish() {
        let waiter = state.withLock { state -> UnsafeContinuation<Item?, Never>? in
            state.finished = true
            state.items.removeAll()
            state.head = 0
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next item in order, waiting for one; nil once finished. One task at a time.
    func next() async -> Item? {
        let ready = state.withLock { state -> Ready in
            if let item = state.take() { return .item(item) }
            return state.finished ? .finished : .none
        }
        switch ready {
        case let .item(item): return item
        case .finished: return nil
        case .none: break
        }
        return await withUnsafeContinuation { (continuation: UnsafeContinuation<Item?, Never>) in
            // Checked again under the lock: a push or finish may have come in between.
            let now = state.withLock { state -> Ready in
                if let item = state.take() { return .item(item) }
                if state.finished { return .finished }
                state.waiter = continuation
                return .none
            }
            switch now {
            case let .item(item): continuation.resume(returning: item)
            case .finished: continuation.resume(returning: nil)
            case .none: break
            }
        }
    }
}
