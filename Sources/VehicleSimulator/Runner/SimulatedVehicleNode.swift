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
    /// The simulation and its timer, behind one lock.
    private let runner: MachineRunner<Core>
    /// Frames received while another thread was simulating: that thread simulates them
    /// too before it returns, so a sender never waits (or spins) on a busy vehicle.
    private let inbox = Mutex(Inbox())

    private struct Inbox {
        var frames: [ReceivedFrame] = []
        var busy = false
    }

    /// Everything mutable. The lock is held while the simulation's frames are sent, so
    /// that frames leave in the order the simulation made them (an E2E alive counter that
    /// overtook its predecessor would look like a lost frame).
    private struct Core: RunnableCore {
        var simulation: VehicleSimulation
        let port: any CANPort
        var start: ContinuousClock.Instant?
        var running = false
        /// The port hands frames to the node (once per port) ...
        var attached = false
        /// ... and `run()` waits here until cancelled or the port closes.
        var waiting: CheckedContinuation<Void, Never>?
        var stopRequested = false
        var portClosed = false
        /// Who hears of every command the vehicle applied (`appliedCommands()`).
        var appliedObservers: [Int: AsyncStream<String>.Continuation] = [:]
        var nextObserver = 0

        /// The simulation's time at `now`: since the first `run()` (what fault windows count from).
        func elapsed(at now: ContinuousClock.Instant) -> Duration {
            guard let start else { return .zero }
            return now - start
        }

        /// The simulation's next deadline while running (woken early, `tick` catches up).
        var nextDeadline: ContinuousClock.Instant? {
            guard running, let start else { return nil }
            return simulation.nextDeadline.map { start.advanced(by: $0) }
        }

        /// Runs what is due: the frames are sent under the lock, the observers told.
        mutating func expire(at now: ContinuousClock.Instant) {
            guard running else { return }
            send(simulation.tick(at: elapsed(at: now)))
        }

        /// Sends `frames` in order (the in-process bus delivers them before this returns),
        /// then tells the observers what the vehicle applied. A frame the port refuses
        /// (closed, interface down, its queue full) is lost, as on a real bus.
        mutating func send(_ frames: [CANFrame]) {
            for frame in frames { port.send(frame) }
            guard simulation.tracksApplied else { return }
            let applied = simulation.drainApplied()
            for message in applied { for observer in appliedObservers.values { observer.yield(message) } }
        }
    }

    public init(simulation: VehicleSimulation, port: any CANPort, clock: any MonotonicClock = Timekeeper.loop) {
        self.port = port
        self.clock = clock
        self.runner = MachineRunner(Core(simulation: simulation, port: port), clock: clock)
    }

    public func run() async {
        let now = clock.now
        let begun = runner.withCore { core -> Bool in
            guard !core.running else { return false }
            core.running = true
            core.stopRequested = false
            if core.start == nil { core.start = now }
            return true
        }
        guard begun else { return }
        // Receiving before the first frames: whoever hears them can command at once.
        attach()
        runDue()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let stopNow = runner.withCore { core -> Bool in
                    if core.stopRequested || core.portClosed { return true }
                    core.waiting = continuation
                    return false
                }
                if stopNow { continuation.resume() }
            }
        } onCancel: {
            stopWaiting()
        }
        // Not running, nothing is timed: the runner's timer is cancelled.
        runner.scheduling { $0.running = false }
    }

    /// `run()` in a task of its own that starts on the clock's thread (`Timekeeper.loop`'s,
    /// or an event loop's): a task started on Swift's cooperative pool waits its turn behind
    /// whatever else is queued there, and the car would stay silent meanwhile.
    public func start() -> Task<Void, Never> {
        Task(executorPreference: clock.executor) { await self.run() }
    }

    public func state() -> VehicleState { runner.withCore { $0.simulation.state } }

    public func setFaults(_ plan: FaultPlan) {
        runner.scheduling { $0.simulation.setFaults(plan) }
    }

    public func statistics() -> SimulationStatistics { runner.withCore { $0.simulation.statistics } }

    /// The faults still in force (count-limited rules count down and disappear).
    public func faults() -> FaultPlan { runner.withCore { $0.simulation.faults } }

    /// The log entries since the last call (what the vehicle applied, rejected, ignored).
    public func drainLog() -> [SimulationLogEntry] { runner.withCore { $0.simulation.drainLog() } }

    /// Sets values from outside the command path (see `VehicleSimulation.override`).
    public func override(_ values: [PropertyKey: PropertyValue]) {
        let now = clock.now
        runner.scheduling { core in
            let out = core.simulation.override(values, at: core.elapsed(at: now))
            for frame in out { port.send(frame) }
        }
    }

    /// Plugs the car in, unplugs it, drives or stops it (see `VehicleSimulation.setDriveState`).
    public func setDriveState(_ drive: DriveState) throws(DriveStateError) {
        let now = clock.now
        try runner.scheduling { (core) throws(DriveStateError) in
            let out = try core.simulation.setDriveState(drive, at: core.elapsed(at: now))
            for frame in out { port.send(frame) }
        }
    }

    public func driveState() -> DriveState { runner.withCore { $0.simulation.drive } }

    /// The simulation's time: since the first `run()` (what fault windows count from).
    public func elapsedTime() -> Duration {
        let now = clock.now
        return runner.withCore { $0.elapsed(at: now) }
    }

    // MARK: - Receiving

    /// Asks the port to hand its frames to the node (the first `run()` does).
    private func attach() {
        let first = runner.withCore { core -> Bool in
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
        let now = clock.now
        runner.scheduling { core in
            guard core.running else { return }
            core.send(core.simulation.receive(received.frame, at: core.elapsed(at: now)))
        }
    }

    private func portFinished() {
        let waiting = runner.withCore { core in
            core.portClosed = true
            return core.waiting.take()
        }
        waiting?.resume()
    }

    private func stopWaiting() {
        let waiting = runner.withCore { core in
            core.stopRequested = true
            return core.waiting.take()
        }
        waiting?.resume()
    }

    /// The name of each command message the vehicle applies from now on (a delayed one
    /// when it is applied), in order: what a scenario's `afterCommand` events wait for.
    public func appliedCommands() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = runner.withCore { core in
            defer { core.nextObserver += 1 }
            core.appliedObservers[core.nextObserver] = continuation
            core.simulation.tracksApplied = true
            return core.nextObserver
        }
        continuation.onTermination = { [weak self] _ in _ = self?.runner.withCore { $0.appliedObservers.removeValue(forKey: id) } }
        return stream
    }

    /// Runs what is due by the clock now, on the caller's thread (frames sent before it
    /// returns). The timer does this by itself; a test on a manual clock calls it after
    /// moving the clock, so the vehicle keeps pace with virtual time without a task hop.
    public func runDue() {
        let now = clock.now
        runner.scheduling { $0.expire(at: now) }
    }
}
