import Testing

@testable import Varlink

/// The connection's write queue: order kept across partial writes and put-back bytes.
@Suite struct VarlinkWriteQueueTests {
    /// A socket that takes at most `room` bytes per write, `full` after `budget` bytes.
    final class Socket {
        var taken: [UInt8] = []
        var room: Int
        var budget: Int
        var gone = false
        init(room: Int, budget: Int = .max) { self.room = room; self.budget = budget }
        func write(_ bytes: UnsafeRawBufferPointer) -> Int? {
            if gone { return nil }
            let count = min(bytes.count, room, budget)
            taken.append(contentsOf: bytes.prefix(count))
            budget -= count
            return count
        }
    }

    @Test func partialWritesKeepTheOrder() {
        var queue = VarlinkWriteQueue()
        let socket = Socket(room: 3, budget: 7)
        queue.append(Array(0..<5))
        queue.append(Array(5..<10))
        let flushed1 = queue.flush(socket.write)
        #expect(flushed1)
        #expect(socket.taken == Array(0..<7), "the socket filled up after 7 bytes")
        #expect(queue.count == 3)
        socket.budget = .max
        let flushed2 = queue.flush(socket.write)
        #expect(flushed2)
        #expect(socket.taken == Array(0..<10))
        #expect(queue.isEmpty)
    }

    @Test func putBackGoesAheadOfWhatWasQueuedMeanwhile() {
        // A reply written outside the lock while the queue was empty: the socket took
        // one byte, and another reply was queued meanwhile.
        var queue = VarlinkWriteQueue()
        let reply: [UInt8] = [4, 5, 6]
        queue.append([9])
        queue.putBack(reply[1...])
        let socket = Socket(room: 10)
        let flushed3 = queue.flush(socket.write)
        #expect(flushed3)
        #expect(socket.taken == [5, 6, 9])
    }

    @Test func aVanishedPeerIsReported() {
        var queue = VarlinkWriteQueue()
        let socket = Socket(room: 10)
        socket.gone = true
        queue.append([1])
        let flushed4 = queue.flush(socket.write)
        #expect(!flushed4)
        #expect(queue.count == 1, "the connection decides what to drop")
    }
}
