import Testing

@testable import Varlink

/// The calls between a connection's loop thread and its task, in order, ended by a close.
@Suite struct VarlinkCallQueueTests {
    @Test func itemsComeInOrderWhetherQueuedOrAwaited() async {
        let queue = VarlinkCallQueue<Int>()
        queue.push(1)
        queue.push(2)
        #expect(await queue.next() == 1)
        #expect(await queue.next() == 2)
        // Nothing queued: the task waits, a push hands the item over.
        async let waited = queue.next()
        for _ in 0..<10 { await Task.yield() }  // likely waiting by now; either way the same result
        queue.push(3)
        #expect(await waited == 3)
        for item in 4...40 { queue.push(item) }
        var taken: [Int] = []
        for _ in 4...40 { taken.append(await queue.next() ?? -1) }
        #expect(taken == Array(4...40))
    }

    /// A closed connection runs nothing more: what was queued is dropped, a waiting task
    /// and every later `next` get nil, later pushes are dropped.
    @Test func finishDropsTheQueueAndEndsTheWait() async {
        let queue = VarlinkCallQueue<Int>()
        queue.push(1)
        queue.finish()
        #expect(await queue.next() == nil)
        queue.push(2)
        #expect(await queue.next() == nil)

        let waiting = VarlinkCallQueue<Int>()
        async let ended = waiting.next()
        for _ in 0..<10 { await Task.yield() }  // likely waiting by now; either way the same result
        waiting.finish()
        #expect(await ended == nil)
    }
}
