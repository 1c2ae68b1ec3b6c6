import CCarplayLinux
import LinuxSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One epoll loop on a dedicated thread: blocking waits never run on Swift's
/// cooperative pool. Handlers run on the loop thread and must not block; they
/// hand work to async code (continuations, AsyncStreams).
///
/// It is also a `TaskExecutor`: a task created with `Task(executorPreference: loop)`
/// runs its jobs on the loop thread between two epoll waits, and so does every default
/// actor and nonisolated async function it calls. A Varlink call read on the loop then
/// runs to its reply without waking another thread. And it keeps time: `sleep(until:)`
/// bounds the loop's epoll_wait, so a task on the loop that sleeps wakes without a timer
/// thread, a timerfd or a futex.
public final class EventLoop: Sendable {
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let readable = Events(rawValue: carplay_epollin)
        public static let writable = Events(rawValue: carplay_epollout)
        public static let error = Events(rawValue: carplay_epollerr)
        public static let hangup = Events(rawValue: carplay_epollhup | carplay_epollrdhup)
    }

    public typealias Handler = @Sendable (Events) -> Void

    private let epoll: Int32
    private let wakeup: Int32
    private let handlers = Mutex<[UInt64: Handler]>([:])
    private let tokens = Mutex<[Int32: UInt64]>([:])
    private let nextToken = Atomic<UInt64>(1)
    private let running = Atomic<Bool>(true)
    private let finished = Mutex<Bool>(false)
    private let heartbeats = Atomic<UInt64>(0)
    private static let wakeToken: UInt64 = 0

    /// Jobs of tasks that prefer this loop, sleepers, and whether the loop thread is
    /// (about to be) blocked in epoll_wait (until `sleepingUntil`, nil: no deadline) and
    /// needs the eventfd to see a new job or an earlier deadline.
    private struct Jobs {
        var queue: [UnownedJob] = []
        var timers = TimerQueue<CheckedContinuation<Void, any Error>>()
        var sleeping = false
        var sleepingUntil: ContinuousClock.Instant?
        var stopped = false
    }

    private let jobs = Mutex(Jobs())
    private let nextTimerID = Atomic<Int>(0)
    /// pthread_self() of the loop thread (0 before it started).
    private let thread = Atomic<UInt>(0)

    /// True on the loop's own thread (handlers, and jobs of tasks that prefer the loop).
    public var isCurrentThread: Bool { thread.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// `name`: the thread's (top -H, /proc/PID/task/*/comm).
    public init(name: String = "event-loop") throws(Errno) {
        let epoll = carplay_epoll_create()
        guard epoll >= 0 else { throw Errno.current }
        let wakeup = carplay_eventfd()
        guard wakeup >= 0 else {
            let error = Errno.current
            close(epoll)
            throw error
        }
        self.epoll = epoll
        self.wakeup = wakeup
        // Edge-triggered: every write reports the eventfd once, so the loop never reads it
        // (one syscall less per wake-up). Its counter grows by one per wake-up and would
        // take centuries to reach the 2^64 - 2 at which a write blocks.
        guard carplay_epoll_ctl(epoll, Int32(CARPLAY_EPOLL_ADD), wakeup, carplay_epollin | carplay_epollet, Self.wakeToken) == 0 else {
            let error = Errno.current
            close(epoll)
            close(wakeup)
            throw error
        }
        do {
            try DetachedThread.start(name: name) { [self] in self.loop() }
        } catch {
            close(epoll)
            close(wakeup)
            throw error
        }
    }

    /// Watches `fd`; `handler` runs on the loop thread whenever one of `events` occurs
    /// (errors and hang-ups are always reported).
    public func register(_ fd: FileDescriptor, events: Events, handler: @escaping Handler) throws(Errno) {
        let token = nextToken.add(1, ordering: .relaxed).oldValue
        handlers.withLock { $0[token] = handler }
        tokens.withLock { $0[fd.rawValue] = token }
        guard carplay_epoll_ctl(epoll, Int32(CARPLAY_EPOLL_ADD), fd.rawValue, events.rawValue | Events.hangup.rawValue, token) == 0 else {
            let error = Errno.current
            handlers.withLock { $0[token] = nil }
            tokens.withLock { $0[fd.rawValue] = nil }
            throw error
        }
    }

    /// Changes the events watched on `fd`.
    public func modify(_ fd: FileDescriptor, events: Events) {
        guard let token = tokens.withLock({ $0[fd.rawValue] }) else { return }
        _ = carplay_epoll_ctl(epoll, Int32(CARPLAY_EPOLL_MOD), fd.rawValue, events.rawValue | Events.hangup.rawValue, token)
    }

    /// Stops watching `fd` (the caller closes it afterwards).
    public func deregister(_ fd: FileDescriptor) {
        guard let token = tokens.withLock({ $0.removeValue(forKey: fd.rawValue) }) else { return }
        _ = carplay_epoll_ctl(epoll, Int32(CARPLAY_EPOLL_DEL), fd.rawValue, 0, 0)
        handlers.withLock { $0[token] = nil }
    }

    /// Liveness (the systemd watchdog): `poke()` wakes the loop thread, which counts one
    /// heartbeat when it gets there. A heartbeat count that does not move after a poke
    /// means the loop thread is stuck in a handler.
    public func poke() {
        var one: UInt64 = 1
        _ = write(wakeup, &one, 8)
    }

    /// Wake-ups the loop thread has handled so far.
    public var heartbeat: UInt64 { heartbeats.load(ordering: .acquiring) }

    /// Ends the loop thread; handlers are dropped.
    public func shutdown() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(wakeup, &one, 8)
    }

    private func loop() {
        var events = [UInt32](repeating: 0, count: 64)
        var tokens = [UInt64](repeating: 0, count: 64)
        var batch: [UnownedJob] = []
        thread.store(UInt(pthread_self()), ordering: .releasing)
        while running.load(ordering: .acquiring) {
            // Block only when no job waits, until the first sleeper is due; a job or an
            // earlier sleeper added from another thread after this point sees `sleeping`
            // and writes the eventfd.
            let timeout: Int32 = jobs.withLock { jobs in
                guard jobs.queue.isEmpty else { return 0 }
                let next = jobs.timers.nextDeadline
                let timeout = next.map { TimerQueue<Never>.epollTimeout(until: $0, now: .now) } ?? -1
                if timeout != 0 {
                    jobs.sleeping = true
                    jobs.sleepingUntil = next
                }
                return timeout
            }
            let waited = try? retryingOnInterrupt { carplay_epoll_wait(epoll, &events, &tokens, 64, timeout) }
            if timeout != 0 { jobs.withLock { $0.sleeping = false } }
            defer {
                wakeSleepers()
                runJobs(&batch)
            }
            guard let count = waited else { break }
            for index in 0..<Int(count) {
                if tokens[index] == Self.wakeToken {
                    heartbeats.add(1, ordering: .releasing)
                    continue
                }
                let handler = handlers.withLock { $0[tokens[index]] }
                handler?(Events(rawValue: events[index]))
            }
        }
        handlers.withLock { $0.removeAll() }
        close(epoll)
        close(wakeup)
        // Tasks that still prefer this loop finish on the global executor; sleepers hear
        // that the loop is gone.
        let (left, sleepers) = jobs.withLock { jobs in
            jobs.stopped = true
            defer { jobs.queue.removeAll() }
            return (jobs.queue, jobs.timers.removeAll())
        }
        for job in left { globalConcurrentExecutor.enqueue(job) }
        for sleeper in sleepers { sleeper.resume(throwing: CancellationError()) }
    }

    /// Resumes the sleepers that are due; their tasks' jobs then run in this round when
    /// they prefer the loop.
    private func wakeSleepers() {
        let due = jobs.withLock { jobs in jobs.timers.isEmpty ? [] : jobs.timers.popDue(at: .now) }
        for sleeper in due { sleeper.resume() }
    }

    /// Runs the queued jobs, and those they enqueue (an actor hop, a resumed
    /// continuation), up to `jobBudget` per round; then the sockets have their turn.
    private func runJobs(_ batch: inout [UnownedJob]) {
        let executor = asUnownedTaskExecutor()
        var ran = 0
        while ran < Self.jobBudget {
            jobs.withLock { swap(&$0.queue, &batch) }
            guard !batch.isEmpty else { return }
            for job in batch { job.runSynchronously(on: executor) }
            ran += batch.count
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Jobs run between two polls of the sockets, at most.
    static let jobBudget = 256

    /// Returns at `deadline` or later (to the millisecond, never earlier), woken by the loop
    /// thread; throws when the calling task is cancelled or the loop stopped. A task that
    /// prefers this loop then sleeps at no cost beyond the loop's own wait.
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        let id = nextTimerID.add(1, ordering: .relaxed).oldValue
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (wake, refused) = jobs.withLock { jobs -> (Bool, Bool) in
                    if jobs.stopped || Task.isCancelled { return (false, true) }
                    jobs.timers.add(id: id, deadline: deadline, continuation)
                    // The loop sleeps past this deadline: it must look again.
                    guard jobs.sleeping, jobs.sleepingUntil.map({ deadline < $0 }) ?? true else { return (false, false) }
                    jobs.sleeping = false
                    return (true, false)
                }
                if refused { continuation.resume(throwing: CancellationError()) }
                if wake {
                    var one: UInt64 = 1
                    _ = write(wakeup, &one, 8)
                }
            }
        } onCancel: {
            jobs.withLock { $0.timers.remove(id: id) }?.resume(throwing: CancellationError())
        }
    }

    public func sleep(for duration: Duration) async throws {
        try await sleep(until: .now + duration)
    }

    /// Sleepers waiting on the loop.
    var sleeperCount: Int { jobs.withLock { $0.timers.count } }
}

extension EventLoop: TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let (wake, stopped) = jobs.withLock { jobs -> (Bool, Bool) in
            guard !jobs.stopped else { return (false, true) }
            jobs.queue.append(job)
            defer { jobs.sleeping = false }
            return (jobs.sleeping, false)
        }
        if stopped {
            globalConcurrentExecutor.enqueue(job)
            return
        }
        if wake {
            var one: UInt64 = 1
            _ = write(wakeup, &one, 8)
        }
    }
}
