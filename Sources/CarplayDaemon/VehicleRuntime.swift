import CANBus
import CANKit
import CarIntents
import CarplayJSON
import LinuxSupport
import SocketCAN
import VehicleKit

/// One vehicle being driven: its profile, the bus, the controller and the intent
/// engine. The embedded default also runs the simulated vehicle on the same
/// in-process bus. A reload builds a new runtime and retires the old one.
public final class VehicleRuntime: Sendable {
    public let profile: VehicleProfile
    public let profileDirectory: String
    public let engine: IntentEngine
    public let controller: VehicleController
    /// "vcan0" for the embedded bus.
    public let interface: String
    public let isEmbedded: Bool
    /// The embedded simulated vehicle (nil on a CAN interface).
    public let simulator: SimulatedVehicleNode?
    private let vehicleTask: Task<Void, Never>?
    private let port: any CANPort

    private init(profile: VehicleProfile, profileDirectory: String, engine: IntentEngine, controller: VehicleController, interface: String, isEmbedded: Bool, simulator: SimulatedVehicleNode? = nil, vehicleTask: Task<Void, Never>?, port: any CANPort) {
        self.port = port
        self.simulator = simulator
        self.profile = profile
        self.profileDirectory = profileDirectory
        self.engine = engine
        self.controller = controller
        self.interface = interface
        self.isEmbedded = isEmbedded
        self.vehicleTask = vehicleTask
    }

    /// The embedded default: an in-process bus with the simulated vehicle attached.
    public static func embedded(profile: VehicleProfile, profileDirectory: String, store: CarProfileStore, faults: FaultPlan = .none) async -> VehicleRuntime {
        let bus = VirtualCANBus(interface: "vcan0")
        var simulation = VehicleSimulation(profile: profile, faults: faults)
        // Nothing reads the embedded vehicle's own log (carplayd logs each intent itself).
        simulation.logLimit = 0
        // The head unit's port first: a port hears only frames sent after it opened.
        let port = await bus.makePort()
        let controller = VehicleController(profile: profile, port: port)
        await controller.start()
        let vehicle = SimulatedVehicleNode(simulation: simulation, port: await bus.makePort())
        let vehicleTask = Task { await vehicle.run() }
        let saved = store.load(profile: profile.identifier)
        let engine = IntentEngine(profile: profile, controller: controller, savedProfiles: saved) { profiles in
            try store.save(profiles, profile: profile.identifier)
        }
        return VehicleRuntime(
            profile: profile, profileDirectory: profileDirectory, engine: engine, controller: controller,
            interface: "vcan0", isEmbedded: true, simulator: vehicle, vehicleTask: vehicleTask, port: port)
    }

    /// A real (or vcan) CAN interface: the vehicle is whatever answers on the bus.
    /// Only the profile's status and acknowledgement frames pass the kernel filters.
    public static func socketCAN(profile: VehicleProfile, profileDirectory: String, interface: String, store: CarProfileStore) async -> Result<VehicleRuntime, DaemonError> {
        let frames = VehicleFrames(profile: profile)
        var ids = frames.statusMessages.values.map(\.message.canID)
        if let ack = profile.acknowledgement, let message = profile.database.message(named: ack.message) { ids.append(message.canID) }
        let usesFD = profile.database.messages.contains(where: \.isFD)
        let port: SocketCANPort
        do {
            port = try SocketCANPort(interface: interface, fd: usesFD, acceptedIDs: ids)
        } catch {
            return .failure(DaemonError("cannot open CAN interface \(interface): \(error)"))
        }
        let controller = VehicleController(profile: profile, port: port)
        await controller.start()
        let saved = store.load(profile: profile.identifier)
        let engine = IntentEngine(profile: profile, controller: controller, savedProfiles: saved) { profiles in
            try store.save(profiles, profile: profile.identifier)
        }
        return .success(VehicleRuntime(
            profile: profile, profileDirectory: profileDirectory, engine: engine, controller: controller,
            interface: interface, isEmbedded: false, vehicleTask: nil, port: port))
    }

    public func busHealth() async -> BusHealth { await port.health() }

    public func stop() async {
        await controller.stop()
        vehicleTask?.cancel()
        await port.close()
    }
}

/// Saved car profiles, one JSON file per vehicle in the state directory, replaced
/// atomically so a crash leaves the old or the new file.
public struct CarProfileStore: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    public func path(profile: String) -> String { directory + "/car-profiles-\(profile).json" }

    public func load(profile: String) -> [SavedCarProfile] {
        let file = path(profile: profile)
        guard let bytes = try? FileDescriptor.readFile(atPath: file) else { return [] }
        return (try? SavedCarProfile.list(parsing: bytes, file: file)) ?? []
    }

    public func save(_ profiles: [SavedCarProfile], profile: String) throws {
        try FileSystem.makeDirectories(directory, mode: 0o700)
        let bytes = JSONValue.array(profiles.map(\.jsonValue)).serializedBytes() + [0x0A]
        try FileSystem.writeAtomically(bytes, to: path(profile: profile), mode: 0o600)
    }
}
