import CANBus
import VehicleKit

/// The simulated vehicle on an in-process bus of its own, with a scenario played on it if
/// one is given: carplayd's embedded default, the vehicle of `carplayctl perform
/// --simulate` and of the test rigs. A `VehicleSession` drives it as `.inProcess`: the
/// session opens the head unit's port on `bus`, then runs it.
public struct EmbeddedVehicle: InProcessNode {
    public let bus: VirtualCANBus
    /// The vehicle itself: its state, faults and drive state (what io.carplayd.Simulator serves).
    public let vehicle: SimulatedVehicleNode
    private let scenario: ScenarioRunner?

    /// `clock` is the simulation's time: the session's (tests pass a manual clock to
    /// both). A `scenario` is played from the start of `run()`; `scenarioLog` gets its lines.
    public init(
        _ simulation: VehicleSimulation, interface: String = "vcan0", clock: any MonotonicClock = Timekeeper.loop, scenario: Scenario? = nil,
        scenarioLog: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        bus = VirtualCANBus(interface: interface)
        let vehicle = SimulatedVehicleNode(simulation: simulation, port: bus.makePort(), clock: clock)
        self.vehicle = vehicle
        self.scenario = scenario.map { ScenarioRunner(scenario: $0, node: vehicle, log: scenarioLog) }
    }

    /// Runs the vehicle, and its scenario beside it, until the task is cancelled (the
    /// scenario may finish before).
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await vehicle.run() }
            if let scenario { group.addTask { await scenario.run() } }
        }
    }
}
