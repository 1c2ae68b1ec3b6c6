/// What an `EventLoop` sleeps for besides its sockets: waiters by deadline, the first of
/// which bounds the loop's epoll_wait. Pure: the loop passes the time in.
struct TimerQueue<Waiter> {
    typealias Instant = ContinuousClock.Instant

    /// Sorted by deadline; equal deadlines in the order they were added.
    private var entries: [(deadline: Instant, id: Int, waiter: Waiter)] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    var nextDeadline: Instant? { entries.first?.deadline }

    mutating func add(id: Int, deadline: Instant, _ waiter: Waiter) {
        // After every entry due no later: binary search for the first later one.
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].deadline <= deadline { low = middle + 1 } else { high = middle }
        }
        entries.insert((deadline, id, waiter), at: low)
    }

    /// Takes the waiter `id` out (a cancelled sleep); nil when it is not here any more.
    mutating func remove(id: Int) -> Waiter? {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return nil }
        return entries.remove(at: index).waiter
    }

    /// Takes out every waiter due at `now`, first due first.
    mutating func popDue(at now: Instant) -> [Waiter] {
        guard let first = entries.first, first.deadline <= now else { return [] }
        let due = entries.prefix { $0.deadline <= now }.count
        defer { entries.removeFirst(due) }
        return entries.prefix(due).map(\.waiter)
    }

    /// Takes out every waiter (the loop stops).
    mutating func removeAll() -> [Waiter] {
        defer { entries.removeAll() }
        return entries.map(\.waiter)
    }

    /// epoll_wait's timeout in milliseconds for the first deadline: rounded up, so the loop
    /// never wakes before it (a wake-up too early would be one more); -1 with none.
    static func epollTimeout(until deadline: Instant?, now: Instant) -> Int32 {
        guard let deadline else { return -1 }
        let remaining = deadline - now
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}
