import CANBus
import CANKit

/// The simulated vehicle on a bus: feeds every frame from `port` to a
/// `VehicleSimulation`, runs its `tick` at `nextDeadline`, and sends what both return.
///
/// `run()` returns when its task is cancelled or the port's frame stream ends; it does
/// not close the port. One `run()` at a time.
public actor SimulatedVehicleNode {
    private var simulation: VehicleSimulation
    private let port: any CANPort
    private let clock: ContinuousClock
    private var start: ContinuousClock.Instant?
    private var timer: Task<Void, Never>?
    private var timerDeadline: Duration?
    private var running = false
    private var sendFailures = 0

    public init(simulation: VehicleSimulation, port: any CANPort, clock: ContinuousClock = .init()) {
        self.simulation = simulation
        self.port = port
        self.clock = clock
    }

    public func run() async {
        guard !running else { return }
        running = true
        if start == nil { start = clock.now }
        await fire()
        for await received in port.frames {
            if Task.isCancelled { break }
            let out = simulation.receive(received.frame, at: elapsed())
            await send(out)
            schedule()
        }
        running = false
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }

    public func state() -> VehicleState { simulation.state }

    public func setFaults(_ plan: FaultPlan) {
        simulation.setFaults(plan)
        schedule()
    }

    public func statistics() -> SimulationStatistics { simulation.statistics }

    /// The faults still in force (count-limited rules count down and disappear).
    public func faults() -> FaultPlan { simulation.faults }

    /// The log entries since the last call (what the vehicle applied, rejected, ignored).
    public func drainLog() -> [SimulationLogEntry] { simulation.drainLog() }

    /// Frames the port refused to send (closed, interface down).
    public func sendFailureCount() -> Int { sendFailures }

    /// Sets values from outside the command path (see `VehicleSimulation.override`).
    public func override(_ values: [PropertyKey: PropertyValue]) async {
        let out = simulation.override(values, at: elapsed())
        await send(out)
        schedule()
    }

    // MARK: - Timer

    private func elapsed() -> Duration {
        guard let start else { return .zero }
        return clock.now - start
    }

    /// Runs `tick` and re-arms the timer.
    private func fire() async {
        guard running else { return }
        timerDeadline = nil
        let out = simulation.tick(at: elapsed())
        await send(out)
        schedule()
    }

    /// Arms one sleeping task for the simulation's next deadline, replacing the armed
    /// one when the deadline moved.
    private func schedule() {
        guard running, let start else { return }
        guard let deadline = simulation.nextDeadline else {
            timer?.cancel()
            timer = nil
            timerDeadline = nil
            return
        }
        if let timerDeadline, timerDeadline == deadline, timer != nil { return }
        timer?.cancel()
        timerDeadline = deadline
        let instant = start.advanced(by: deadline)
        let clock = clock
        timer = Task { [weak self] in
            do {
                try await clock.sleep(until: instant, tolerance: .milliseconds(1))
            } catch {
                return
            }
            guard !Task.isCancelled else { return }
            await self?.fire()
        }
    }

    /// Frames produced but not yet on the bus, in the order the simulation made them.
    private var outbox: [CANFrame] = []
    private var outboxHead = 0
    private var draining = false

    /// Sends frames in the order the simulation produced them. The actor is reentrant:
    /// while one path awaits the bus, a timer tick or the next command may produce
    /// frames too; they queue behind the earlier ones (an E2E alive counter that
    /// overtook its predecessor would look like a lost frame to the receiver).
    private func send(_ frames: [CANFrame]) async {
        // Fast path: nothing queued and a port that sends without suspending (the
        // in-process bus): no reentrancy window, so the order holds without the outbox.
        if !draining, let first = frames.first, let result = port.sendImmediately(first) {
            if case .failure = result { sendFailures += 1 }
            for frame in frames.dropFirst() {
                if case .failure? = port.sendImmediately(frame) { sendFailures += 1 }
            }
            return
        }
        outbox.append(contentsOf: frames)
        guard !draining else { return }
        draining = true
        while outboxHead < outbox.count {
            let frame = outbox[outboxHead]
            outboxHead += 1
            do {
                try await port.send(frame)
            } catch {
                sendFailures += 1
            }
        }
        outbox.removeAll(keepingCapacity: true)
        outboxHead = 0
        draining = false
    }
}
