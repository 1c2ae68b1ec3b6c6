import CANBus
import CarIntents
import LinuxSupport
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
    private let vehicleTask: Task<Void, Never>?

    private init(profile: VehicleProfile, profileDirectory: String, engine: IntentEngine, controller: VehicleController, interface: String, isEmbedded: Bool, vehicleTask: Task<Void, Never>?) {
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
        let simulation = VehicleSimulation(profile: profile, faults: faults)
        // The head unit's port first: a port hears only frames sent after it opened.
        let controller = VehicleController(profile: profile, port: await bus.makePort())
        await controller.start()
        let vehicle = SimulatedVehicleNode(simulation: simulation, port: await bus.makePort())
        let vehicleTask = Task { await vehicle.run() }
        let saved = store.load(profile: profile.identifier)
        let engine = IntentEngine(profile: profile, controller: controller, savedProfiles: saved) { profiles in
            try store.save(profiles, profile: profile.identifier)
        }
        return VehicleRuntime(
            profile: profile, profileDirectory: profileDirectory, engine: engine, controller: controller,
            interface: "vcan0", isEmbedded: true, vehicleTask: vehicleTask)
    }

    public func stop() async {
        await controller.stop()
        vehicleTask?.cancel()
    }
}

/// Saved car profiles, one JSON file per vehicle in the state directory, replaced
/// atomically so a crash leaves the old or the new file.
public struct CarProfileStore: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    public func path(profile: String) -> String { directory + "/car-profiles-\(profile).json" }

    public func load(profile: String) -> [SavedCarProfile] {
        guard let bytes = try? FileDescriptor.readFile(atPath: path(profile: profile)) else { return [] }
        return (try? JSONCoding.decode([SavedCarProfile].self, from: bytes)) ?? []
    }

    public func save(_ profiles: [SavedCarProfile], profile: String) throws {
        try FileSystem.makeDirectories(directory, mode: 0o700)
        let bytes = try JSONCoding.encode(profiles)
        try FileSystem.writeAtomically(bytes, to: path(profile: profile), mode: 0o600)
    }
}
