/// The reply bytes of one connection that its socket has not taken yet, in order.
/// Bookkeeping only: `VarlinkConnection` writes through it under its lock and decides
/// what a queue that is too long means (the client is disconnected).
struct VarlinkWriteQueue {
    private var bytes: [UInt8] = []
    /// Where the unsent bytes start: a partial write moves it instead of shifting the rest.
    private var start = 0

    var count: Int { bytes.count - start }
    var isEmpty: Bool { start == bytes.count }

    mutating func append(_ more: [UInt8]) {
        bytes.append(contentsOf: more)
    }

    /// The unsent end of a reply written outside the lock: ahead of anything queued
    /// meanwhile, which was queued after it.
    mutating func putBack(_ unsent: ArraySlice<UInt8>) {
        bytes.replaceSubrange(0..<start, with: unsent)
        start = 0
    }

    mutating func removeAll() {
        bytes = []
        start = 0
    }

    /// Writes with `write` (the count the socket took, 0 when it is full, nil when the
    /// peer is gone) until the queue is empty or the socket full; false when the peer is gone.
    mutating func flush(_ write: (UnsafeRawBufferPointer) -> Int?) -> Bool {
        while !isEmpty {
            let written = bytes.withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[start...])) }
            guard let written else { return false }
            if written == 0 { break }
            start += written
        }
        if isEmpty {
            removeAll()
        } else if start >= 1 << 16, start * 2 >= bytes.count {
            // Mostly sent: drop the sent part once rather than on every write.
            bytes.removeFirst(start)
            start = 0
        }
        return true
    }
}
