import CANBus
import CANKit
import VehicleKit

/// One vehicle being driven: the head unit's port on the vehicle's bus, the controller
/// reading it, and the intent engine over them; on an in-process bus also the node that
/// plays the vehicle there. The one place these are put together: carplayd (the embedded
/// default, a replay and SocketCAN), `carplayctl perform --simulate` and the test rigs
/// all start a session, and differ only in the `Vehicle` they name.
public final class VehicleSession: Sendable {
    /// What the session drives.
    public enum Vehicle: Sendable {
        /// Whatever answers on a port the caller opened (SocketCAN).
        case bus(any CANPort)
        /// A node this process plays on an in-process bus: the simulated vehicle
        /// (VehicleSimulator's `EmbeddedVehicle`), or a recorded drive (`replayed`).
        case inProcess(any InProcessNode)

        /// A recorded drive played onto an in-process bus named `interface` instead of a
        /// simulated vehicle: nothing answers commands, the log's status frames are the car.
        /// `clock` keeps the log's timing.
        public static func replayed(
            _ replay: CandumpReplay, loop: Bool, interface: String = "vcan0", clock: any MonotonicClock = Timekeeper.loop
        ) -> Vehicle {
            .inProcess(ReplayedDrive(bus: VirtualCANBus(interface: interface), replay: replay, loop: loop, clock: clock))
        }
    }

    public let profile: VehicleProfile
    public let controller: VehicleController
    public let engine: IntentEngine
    /// The car by VSS paths (io.carplayd.VSS).
    public let vss: VSSCatalog
    /// What plays the vehicle on the in-process bus; nil on a CAN interface.
    public let inProcessNode: (any InProcessNode)?
    /// The head unit's port (as `headUnitPort` made it).
    public let port: any CANPort
    private let nodeTask: Task<Void, Never>?

    /// Opens the head unit's port (on an in-process bus: before the node runs, since a
    /// port hears only frames sent after it receives), starts the controller reading it,
    /// then the node. `savedCarProfiles` and `persist` are the engine's car profiles,
    /// `restrictedWhileLocked` its intents restricted while the caller's device is locked;
    /// `headUnitPort` lets a test put a faulty port between the controller and the bus.
    /// `clock`: the controller's time (tests pass a manual clock, and give it to the
    /// simulated vehicle too).
    public init(
        profile: VehicleProfile, vehicle: Vehicle, savedCarProfiles: [SavedCarProfile] = [], restrictedWhileLocked: Set<IntentName> = [],
        carIdentifier: String? = nil,
        persist: @escaping @Sendable ([SavedCarProfile]) throws -> Void = { _ in },
        headUnitPort: @Sendable (any CANPort) -> any CANPort = { $0 },
        clock: any MonotonicClock = Timekeeper.loop
    ) {
        self.profile = profile
        vss = VSSCatalog(profile: profile)
        switch vehicle {
        case let .bus(busPort):
            port = headUnitPort(busPort)
            inProcessNode = nil
        case let .inProcess(node):
            port = headUnitPort(node.bus.makePort())
            inProcessNode = node
        }
        controller = VehicleController(profile: profile, port: port, clock: clock)
        controller.start()
        // The controller receives: the node's first frames reach it.
        nodeTask = inProcessNode.map { node in Task(executorPreference: clock.executor) { await node.run() } }
        engine = IntentEngine(
            profile: profile, controller: controller, savedCarProfiles: savedCarProfiles, restrictedWhileLocked: restrictedWhileLocked,
            carIdentifier: carIdentifier, persist: persist)
    }

    /// The interface the session drives ("vcan0" for the in-process bus).
    public var interface: String { port.interface }

    /// The in-process bus (a test may open more ports on it); nil on a CAN interface.
    public var virtualBus: VirtualCANBus? { inProcessNode?.bus }

    public func busHealth() -> BusHealth { port.health() }

    /// Stops reading, stops the in-process node, closes the port.
    public func stop() async {
        controller.stop()
        nodeTask?.cancel()
        await port.close()
    }
}

/// A candump log played onto an in-process bus (`Vehicle.replayed`).
struct ReplayedDrive: InProcessNode {
    let bus: VirtualCANBus
    let replay: CandumpReplay
    let loop: Bool
    let clock: any MonotonicClock

    func run() async {
        _ = await CandumpPlayer(replay: replay, port: bus.makePort(), loop: loop).play(clock: clock)
    }
}
