import CANBus
import CANKit
import Synchronization
import VehicleKit

/// The simulated vehicle on a bus: feeds every frame from `port` to a
/// `VehicleSimulation`, runs its `tick` at `nextDeadline`, and sends what both return.
///
/// A command is simulated and answered on the thread that delivered it (the in-process
/// bus's sender, the event loop that reads SocketCAN), under the node's lock: no task wake-up
/// between a command frame and its acknowledgement.
///
/// `run()` returns when its task is cancelled or the port closes; it does not close the
/// port. One `run()` at a time; frames that arrive while no `run()` is running are not
/// simulated (a switched-off ECU hears nothing).
public final class SimulatedVehicleNode: Sendable {
    private let port: any CANPort
    /// The simulation's time (a `ScenarioRunner` on the node sleeps on it too).
    let clock: any MonotonicClock
    private let core: Mutex<Core>
    /// Frames received while another thread was simulating: that thread simulates them
    /// too before it returns, so a sender never waits (or spins) on a busy vehicle.
    private let inbox = Mutex(Inbox())
    /// Who hears of every command the vehicle applied (`appliedCommands()`).
    private let appliedObservers = Mutex<[Int: AsyncStream<String>.Continuation]>([:])
    private let nextObserver = Atomic<Int>(0)

    private struct Inbox {
        var frames: [ReceivedFrame] = []
        var busy = false
    }

    /// Everything mutable, behind one lock. The lock is held while the simulation's
    /// frames are sent, so that frames leave in the order the simulation made them (an E2E
    /// alive counter that overtook its predecessor would look like a lost frame).
    private struct Core {
        var simulation: VehicleSimulation
        var start: ContinuousClock.Instant?
        var timer = DeadlineTimer()
        var running = false
        /// The port hands frames to the node (once per port) ...
        var attached = false
        /// ... and `run()` waits here until cancelled or the port closes.
        var waiting: CheckedContinuation<Void, Never>?
        var stopRequested = false
        var portClosed = false
    }

    public init(simulation: VehicleSimulation, port: any CANPort, clock: any MonotonicClock = Timekeeper.loop) {
        self.port = port
        self.clock = clock
        self.core = Mutex(Core(simulation: simulation))
    }

    public func run() async {
        let begun = core.withLock { core -> Bool in
            guard !core.running else { return false }
            core.running = true
            core.stopRequested = false
            if core.start == nil { core.start = clock.now }
            return true
        }
        guard begun else { return }
        // Receiving before the first frames: whoever hears them can command at once.
        attach()
        fire()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let stopNow = core.withLock { core -> Bool in
                    if core.stopRequested || core.portClosed { return true }
                    core.waiting = continuation
                    return false
                }
                if stopNow { continuation.resume() }
            }
        } onCancel: {
            stopWaiting()
        }
        core.withLock { core in
            core.running = false
            core.timer.cancel()
        }
    }

    /// `run()` in a task of its own that starts on the clock's thread (`Timekeeper.loop`'s,
    /// or an event loop's): a task started on Swift's cooperative pool waits its turn behind
    /// whatever else is queued there, and the car would stay silent meanwhile.
    public func start() -> Task<Void, Never> {
        Task(executorPreference: clock.executor) { await self.run() }
    }

    public func state() -> VehicleState { core.withLock { $0.simulation.state } }

    public func setFaults(_ plan: FaultPlan) {
        core.withLock { core in
            core.simulation.setFaults(plan)
            schedule(&core)
        }
    }

    public func statistics() -> SimulationStatistics { core.withLock { $0.simulation.statistics } }

    /// The faults still in force (count-limited rules count down and disappear).
    public func faults() -> FaultPlan { core.withLock { $0.simulation.faults } }

    /// The log entries since the last call (what the vehicle applied, rejected, ignored).
    public func drainLog() -> [SimulationLogEntry] { core.withLock { $0.simulation.drainLog() } }

    /// Sets values from outside the command path (see `VehicleSimulation.override`).
    public func override(_ values: [PropertyKey: PropertyValue]) {
        core.withLock { core in
            let out = core.simulation.override(values, at: elapsed(core))
            send(out, &core)
            schedule(&core)
        }
    }

    /// Plugs the car in, unplugs it, drives or stops it (see `VehicleSimulation.setDriveState`).
    public func setDriveState(_ drive: DriveState) throws(DriveStateError) {
        try core.withLock { (core) throws(DriveStateError) in
            let out = try core.simulation.setDriveState(drive, at: elapsed(core))
            send(out, &core)
            schedule(&core)
        }
    }

    public func driveState() -> DriveState { core.withLock { $0.simulation.drive } }

    /// The simulation's time: since the first `run()` (what fault windows count from).
    public func elapsedTime() -> Duration { core.withLock { elapsed($0) } }

    // MARK: - Receiving

    /// Asks the port to hand its frames to the node (the first `run()` does).
    private func attach() {
        let first = core.withLock { core -> Bool in
            defer { core.attached = true }
            return !core.attached
        }
        guard first else { return }
        port.startReceiving(
            CANReceiver(
                frame: { [weak self] received in self?.receive(received) },
                finished: { [weak self] in self?.portFinished() }))
    }

    private func receive(_ received: ReceivedFrame) {
        let mine = inbox.withLock { inbox -> Bool in
            if inbox.busy {
                inbox.frames.append(received)
                return false
            }
            inbox.busy = true
            return true
        }
        guard mine else { return }
        simulate(received)
        while let next = inbox.withLock({ inbox -> ReceivedFrame? in
            guard !inbox.frames.isEmpty else {
                inbox.busy = false
                return nil
            }
            return inbox.frames.removeFirst()
        }) {
            simulate(next)
        }
    }

    private func simulate(_ received: ReceivedFrame) {
        core.withLock { core in
            guard core.running else { return }
            let out = core.simulation.receive(received.frame, at: elapsed(core))
            send(out, &core)
            publishApplied(&core)
            schedule(&core)
        }
    }

    private func portFinished() {
        let waiting = core.withLock { core in
            core.portClosed = true
            return core.waiting.take()
        }
        waiting?.resume()
    }

    private func stopWaiting() {
        let waiting = core.withLock { core in
            core.stopRequested = true
            return core.waiting.take()
        }
        waiting?.resume()
    }

    // MARK: - Timer

    private func elapsed(_ core: Core) -> Duration {
        guard let start = core.start else { return .zero }
        return clock.now - start
    }

    /// The name of each command message the vehicle applies from now on (a delayed one
    /// when it is applied), in order: what a scenario's `afterCommand` events wait for.
    public func appliedCommands() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = nextObserver.add(1, ordering: .relaxed).oldValue
        appliedObservers.withLock { $0[id] = continuation }
        core.withLock { $0.simulation.tracksApplied = true }
        continuation.onTermination = { [weak self] _ in _ = self?.appliedObservers.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    /// Hands the commands just applied to the observers (in the simulation's order: the
    /// node's lock is held).
    private func publishApplied(_ core: inout Core) {
        guard core.simulation.tracksApplied else { return }
        let applied = core.simulation.drainApplied()
        guard !applied.isEmpty else { return }
        let observers = appliedObservers.withLock { Array($0.values) }
        for message in applied { for observer in observers { observer.yield(message) } }
    }

    /// Runs what is due by the clock now, on the caller's thread (frames sent before it
    /// returns). The timer does this by itself; a test on a manual clock calls it after
    /// moving the clock, so the vehicle keeps pace with virtual time without a task hop.
    public func runDue() { fire() }

    /// Runs `tick` and re-arms the timer.
    private func fire() {
        core.withLock { core in
            guard core.running else { return }
            let out = core.simulation.tick(at: elapsed(core))
            send(out, &core)
            publishApplied(&core)
            schedule(&core)
        }
    }

    /// The timer's wake-up: `fire` unless a later arming replaced it.
    private func timerFired(_ arming: Int) {
        guard core.withLock({ $0.timer.claim(arming) }) else { return }
        fire()
    }

    /// Makes sure the timer wakes by the simulation's next deadline (it catches up when
    /// woken early: `tick` runs what is due).
    private func schedule(_ core: inout Core) {
        guard core.running, let start = core.start else { return }
        core.timer.arm(for: core.simulation.nextDeadline.map { start.advanced(by: $0) }, on: clock) { [weak self] arming in
            self?.timerFired(arming)
        }
    }

    // MARK: - Sending

    /// Sends `frames` in order, under the lock (the in-process bus delivers them before
    /// this returns). A frame the port refuses (closed, interface down, its queue full) is
    /// lost, as on a real bus.
    private func send(_ frames: [CANFrame], _ core: inout Core) {
        for frame in frames { port.send(frame) }
    }
}
