import LinuxSupport
import Synchronization
import Testing

@testable import EventLoops

/// The loop keeps time: sleepers bound its epoll_wait (no timer thread, timerfd or futex).
@Suite struct EventLoopTimerTests {
    typealias Instant = ContinuousClock.Instant

    @Test func theQueueKeepsDeadlineOrderAndTakesOutWhatIsDue() {
        let start = Instant.now
        var queue = TimerQueue<String>()
        queue.add(id: 1, deadline: start + .milliseconds(30), "c")
        queue.add(id: 2, deadline: start + .milliseconds(10), "a")
        queue.add(id: 3, deadline: start + .milliseconds(20), "b")
        queue.add(id: 4, deadline: start + .milliseconds(10), "a2")
        #expect(queue.nextDeadline == start + .milliseconds(10))
        #expect(queue.popDue(at: start + .milliseconds(5)) == [])
        #expect(queue.popDue(at: start + .milliseconds(10)) == ["a", "a2"], "equal deadlines in the order added")
        #expect(queue.remove(id: 1) == "c")
        #expect(queue.remove(id: 1) == nil, "gone once taken")
        #expect(queue.popDue(at: start + .seconds(1)) == ["b"])
        #expect(queue.isEmpty && queue.nextDeadline == nil)
    }

    @Test func epollTimeoutRoundsUpAndNeverWaitsWithoutADeadline() {
        let now = Instant.now
        #expect(TimerQueue<Int>.epollTimeout(until: nil, now: now) == -1)
        #expect(TimerQueue<Int>.epollTimeout(until: now - .milliseconds(3), now: now) == 0)
        #expect(TimerQueue<Int>.epollTimeout(until: now, now: now) == 0)
        #expect(TimerQueue<Int>.epollTimeout(until: now + .microseconds(1), now: now) == 1, "never before the deadline")
        #expect(TimerQueue<Int>.epollTimeout(until: now + .milliseconds(250), now: now) == 250)
        #expect(TimerQueue<Int>.epollTimeout(until: now + .seconds(3_000_000), now: now) == Int32.max)
    }

    /// A task on the loop sleeps and wakes on the loop thread, not before its deadline.
    @Test func aTaskOnTheLoopWakesOnItsThreadAtTheDeadline() async throws {
        let loop = try EventLoop()
        defer { loop.shutdown() }
        let (early, onLoop) = try await Task(executorPreference: loop) { () async throws -> (Bool, Bool) in
            let deadline = Instant.now + .milliseconds(30)
            try await loop.sleep(until: deadline)
            return (Instant.now < deadline, loop.isCurrentThread)
        }.value
        #expect(!early)
        #expect(onLoop)
        #expect(loop.sleeperCount == 0)
    }

    /// The loop waits with no deadline (-1); a sleeper added from another thread must
    /// wake it to look again, or it sleeps for ever.
    @Test func aSleeperFromAnotherThreadWakesAnIdleLoop() async throws {
        let loop = try EventLoop()
        defer { loop.shutdown() }
        try await Task.sleep(for: .milliseconds(20))  // the loop is in epoll_wait(-1) by now
        let start = Instant.now
        try await loop.sleep(for: .milliseconds(20))
        #expect(Instant.now - start >= .milliseconds(20))
        // An earlier sleeper behind a later one must still wake at its own deadline.
        let later = Task { try await loop.sleep(for: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(20))
        let second = Instant.now
        try await loop.sleep(for: .milliseconds(20))
        #expect(Instant.now - second < .seconds(20), "did not wait for the later sleeper")
        later.cancel()
        await #expect(throws: CancellationError.self) { try await later.value }
        #expect(loop.sleeperCount == 0, "a cancelled sleeper is taken out")
    }

    @Test func sleepersHearThatTheLoopStopped() async throws {
        let loop = try EventLoop()
        let sleeper = Task { try await loop.sleep(for: .seconds(60)) }
        while loop.sleeperCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        loop.shutdown()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}
