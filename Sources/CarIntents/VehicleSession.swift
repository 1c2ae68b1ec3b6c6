import CANBus
import VehicleKit

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

    /// Opens the head unit's port (on a simulated vehicle: before the vehicle's, since a
    /// port hears only frames sent after it opened), starts the controller reading it,
    /// then the vehicle. `savedProfiles` and `persist` are the engine's car profiles,
    /// `restrictedWhileLocked` its intents restricted while the caller's device is locked;
    /// `headUnitPort` lets a test put a faulty port between the controller and the bus.
    public init(
        profile: VehicleProfile, vehicle: Vehicle, savedProfiles: [SavedCarProfile] = [], restrictedWhileLocked: Set<IntentName> = [],
        carIdentifier: String? = nil,
        persist: @escaping @Sendable ([SavedCarProfile]) throws -> Void = { _ in },
        headUnitPort: @Sendable (any CANPort) -> any CANPort = { $0 }
    ) async {
        self.profile = profile
        switch vehicle {
        case let .simulated(simulation, interface):
            let bus = VirtualCANBus(interface: interface)
            port = headUnitPort(bus.makePort())
            controller = VehicleController(profile: profile, port: port)
            await controller.start()
            let node = SimulatedVehicleNode(simulation: simulation, port: bus.makePort())
            self.vehicle = node
            virtualBus = bus
            vehicleTask = Task { await node.run() }
        case let .bus(busPort):
            port = headUnitPort(busPort)
            controller = VehicleController(profile: profile, port: port)
            await controller.start()
            self.vehicle = nil
            virtualBus = nil
            vehicleTask = nil
        }
        engine = IntentEngine(
            profile: profile, controller: controller, savedProfiles: savedProfiles, restrictedWhileLocked: restrictedWhileLocked,
            carIdentifier: carIdentifier, persist: persist)
    }

    /// The interface the session drives ("vcan0" for the in-process bus).
    public var interface: String { port.interface }

    public var isSimulated: Bool { vehicle != nil }

    public func busHealth() async -> BusHealth { await port.health() }

    /// Stops reading, stops the simulated vehicle, closes the port.
    public func stop() async {
        controller.stop()
        vehicleTask?.cancel()
        await port.close()
    }
}
