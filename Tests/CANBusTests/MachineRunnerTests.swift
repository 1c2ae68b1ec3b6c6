import CANBus
import Synchronization
import TestSupport
import Testing

/// The one runner of the head unit and the simulated vehicle: its timer wakes at the
/// machine's next deadline, hands what expired to the owner outside the lock, and stops
/// when nothing is timed.
@Suite struct MachineRunnerTests {
    /// A machine of alarms: each deadline expires once.
    struct Alarms: RunnableCore {
        var due: [ContinuousClock.Instant] = []

        var nextDeadline: ContinuousClock.Instant? { due.min() }

        mutating func expire(at now: ContinuousClock.Instant) -> Int {
            let expired = due.filter { $0 <= now }.count
            due.removeAll { $0 <= now }
            return expired
        }
    }

    /// Waits in real time until `condition` holds; a minute is a hang, not a slow host.
    static func eventually(_ condition: () -> Bool) async {
        let give = ContinuousClock.now + .seconds(60)
        while !condition(), ContinuousClock.now < give { try? await Task.sleep(for: .milliseconds(1)) }
        #expect(condition())
    }

    /// Until the runner's timer task sleeps on the clock as `sleeping` says.
    static func settle(_ clock: ManualClock, sleeping: Int) async {
        await eventually { clock.sleeperCount == sleeping }
    }

    @Test func theTimerExpiresWhatIsDueAndDeliversItOutsideTheLock() async {
        let clock = ManualClock()
        let runner = MachineRunner(Alarms(), clock: clock)
        let delivered = Mutex<[Int]>([])
        runner.onExpired { expired in
            // Outside the lock: the runner can be entered again from here.
            let left = runner.withCore { $0.due.count }
            delivered.withLock { $0.append(expired * 10 + left) }
        }
        let start = clock.now
        runner.scheduling { $0.due = [start + .seconds(1), start + .seconds(1), start + .seconds(3)] }
        await Self.settle(clock, sleeping: 1)
        clock.advance(by: .seconds(1))
        await Self.eventually { !delivered.withLock { $0.isEmpty } }
        #expect(delivered.withLock { $0 } == [21], "two alarms expired, one left")
        // Armed again for the one left.
        await Self.settle(clock, sleeping: 1)
        clock.advance(by: .seconds(2))
        await Self.eventually { delivered.withLock { $0.count } == 2 }
        #expect(delivered.withLock { $0 } == [21, 10])
        #expect(runner.withCore { $0.due.isEmpty })
    }

    @Test func nothingTimedCancelsTheTimer() async {
        let clock = ManualClock()
        let runner = MachineRunner(Alarms(), clock: clock)
        let delivered = Mutex(0)
        runner.onExpired { _ in delivered.withLock { $0 += 1 } }
        let start = clock.now
        runner.scheduling { $0.due = [start + .seconds(1)] }
        await Self.settle(clock, sleeping: 1)
        runner.scheduling { $0.due = [] }
        await Self.settle(clock, sleeping: 0)
        clock.advance(by: .seconds(5))
        #expect(delivered.withLock { $0 } == 0)
        #expect(clock.wokenCount == 0, "the sleeper was cancelled, not woken")
    }

    /// `withCore` leaves the timer as it is: an earlier deadline set through it waits for
    /// the next `scheduling`.
    @Test func withCoreLeavesTheTimerAlone() async {
        let clock = ManualClock()
        let runner = MachineRunner(Alarms(), clock: clock)
        runner.withCore { $0.due = [clock.now + .seconds(1)] }
        try? await Task.sleep(for: .milliseconds(20))
        #expect(clock.sleeperCount == 0)
        runner.scheduling { _ in }
        await Self.settle(clock, sleeping: 1)
    }
}
