/// A `MachineRunner`'s one timer: one task that sleeps until its machine's next deadline,
/// on the clock's executor (a wake-up queued behind Swift's cooperative pool would stall
/// while synchronous work holds it). The runner keeps it inside its lock. The task calls
/// back with the arming it belongs to, and the runner `claim`s it under the lock: a
/// wake-up that a later arming or `cancel` replaced does nothing.
@usableFromInline struct DeadlineTimer: Sendable {
    private var task: Task<Void, Never>?
    private var deadline: ContinuousClock.Instant?
    private var arming = 0

    @usableFromInline init() {}

    /// Wakes by `next`. A timer already armed to wake by then stays: waking early finds
    /// nothing due, and the runner arms again for what is. nil leaves the timer as it is.
    @usableFromInline mutating func arm(
        for next: ContinuousClock.Instant?, on clock: any MonotonicClock, _ wake: @escaping @Sendable (_ arming: Int) -> Void
    ) {
        guard let next else { return }
        if task != nil, let deadline, deadline <= next { return }
        task?.cancel()
        arming += 1
        let armed = arming
        deadline = next
        task = Task(executorPreference: clock.executor) {
            do { try await clock.sleep(until: next) } catch { return }
            wake(armed)
        }
    }

    /// True when `arming`'s wake-up is the armed one, which is then spent: the runner acts
    /// on what is due and arms again.
    @usableFromInline mutating func claim(_ arming: Int) -> Bool {
        guard arming == self.arming, task != nil else { return false }
        task = nil
        deadline = nil
        return true
    }

    /// No wake-up any more, not even one already past its sleep.
    @usableFromInline mutating func cancel() {
        task?.cancel()
        task = nil
        deadline = nil
        arming += 1
    }
}
