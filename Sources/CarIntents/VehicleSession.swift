import CANBus
import CANKit
import VehicleKit
import VehicleSimulator

/// One vehicle being driven: the head unit's port on the vehicle's bus, the controller
/// reading it, and the intent engine over them; for a simulated vehicle also the
/// vehicle itself, on an in-process bus. The one place these are put together:
/// carplayd (the embedded default and SocketCAN), `carplayctl perform --simulate` and
/// the test rigs all start a session, and differ only in the `Vehicle` they name.
public final class VehicleSession: Sendable {
    /// What the session drives.
    public enum Vehicle: Sendable {
        /// A simulated vehicle on an in-process bus named `interface`.
        case simulated(VehicleSimulation, interface: String = "vcan0")
        /// Whatever answers on a port the caller opened (SocketCAN).
        case bus(any CANPort)
        /// A recorded drive played onto an in-process bus named `interface` instead of a
        /// simulated vehicle: nothing answers commands, the log's status frames are the car.
        case replayed(CandumpReplay, loop: Bool, interface: String = "vcan0")
    }

    public let profile: VehicleProfile
    public let controller: VehicleController
    public let engine: IntentEngine
    /// The simulated vehicle; nil on a CAN interface.
    public let vehicle: SimulatedVehicleNode?
    /// The in-process bus of a simulated vehicle (a test may open more ports on it).
    public let virtualBus: VirtualCANBus?
    /// The head unit's port (as `headUnitPort` made it).
    public let port: any CANPort
    private let vehicleTask: Task<Void, Never>?
    /// The scenario played on the simulated vehicle, if any.
    private let scenarioTask: Task<Void, Never>?
    /// Whether the bus carries a replayed log (`.replayed`).
    public let isReplay: Bool

    /// Opens the head unit's port (on a simulated vehicle: before the vehicle's, since a
    /// port hears only frames sent after it opened), starts the controller reading it,
    /// then the vehicle. `savedProfiles` and `persist` are the engine's car profiles,
    /// `restrictedWhileLocked` its intents restricted while the caller's device is locked;
    /// `headUnitPort` lets a test put a faulty port between the controller and the bus.
    /// A `scenario` is played on a simulated vehicle from its start (ignored otherwise);
    /// `scenarioLog` gets its lines. `clock`: the time of the controller and the simulated
    /// vehicle (tests pass a manual clock).
    public init(
        profile: VehicleProfile, vehicle: Vehicle, savedProfiles: [SavedCarProfile] = [], restrictedWhileLocked: Set<IntentName> = [],
        carIdentifier: String? = nil,
        persist: @escaping @Sendable ([SavedCarProfile]) throws -> Void = { _ in },
        headUnitPort: @Sendable (any CANPort) -> any CANPort = { $0 },
        scenario: Scenario? = nil, scenarioLog: @escaping @Sendable (String) -> Void = { _ in },
        clock: any MonotonicClock = ContinuousClock()
    ) async {
        self.profile = profile
        var scenarioTask: Task<Void, Never>?
        // The head unit's port first (a port hears only what is sent once it receives),
        // on the in-process bus unless the caller opened one.
        let bus: VirtualCANBus?
        switch vehicle {
        case let .simulated(_, interface), let .replayed(_, _, interface): bus = VirtualCANBus(interface: interface)
        case .bus: bus = nil
        }
        switch vehicle {
        case let .bus(busPort): port = headUnitPort(busPort)
        case .simulated, .replayed: port = headUnitPort(bus!.makePort())
        }
        controller = VehicleController(profile: profile, port: port, clock: clock)
        controller.start()
        virtualBus = bus
        switch vehicle {
        case let .simulated(simulation, _):
            let node = SimulatedVehicleNode(simulation: simulation, port: bus!.makePort(), clock: clock)
            self.vehicle = node
            vehicleTask = Task { await node.run() }
            if let scenario {
                let runner = ScenarioRunner(scenario: scenario, node: node, log: scenarioLog)
                scenarioTask = Task { await runner.run() }
            }
            isReplay = false
        case let .replayed(replay, loop, _):
            let player = CandumpPlayer(replay: replay, port: bus!.makePort(), loop: loop)
            self.vehicle = nil
            vehicleTask = Task { _ = await player.play() }
            isReplay = true
        case .bus:
            self.vehicle = nil
            vehicleTask = nil
            isReplay = false
        }
        self.scenarioTask = scenarioTask
        engine = IntentEngine(
            profile: profile, controller: controller, savedProfiles: savedProfiles, restrictedWhileLocked: restrictedWhileLocked,
            carIdentifier: carIdentifier, persist: persist)
    }

    /// The interface the session drives ("vcan0" for the in-process bus).
    public var interface: String { port.interface }

    public var isSimulated: Bool { vehicle != nil }

    public func busHealth() -> BusHealth { port.health() }

    /// Stops reading, stops the simulated vehicle, closes the port.
    public func stop() async {
        controller.stop()
        scenarioTask?.cancel()
        vehicleTask?.cancel()
        await port.close()
    }
}
