import CANBus
import CarIntents
import EventLoops
import LinuxSupport
import SimulatorControl
import VehicleKit
import VehicleSimulator

/// Everything a configuration starts, before anything is served: the profile, the
/// vehicle and its session, who may call. Made by `prepare`, for start-up and for reload.
struct Prepared {
    let directory: String
    let profile: VehicleProfile
    let source: VehicleSource
    let session: VehicleSession
    let allowedUsers: Set<UInt32>
    let allowedGroups: Set<UInt32>
    let deviceLock: DeviceLock
    let simulatorAccess: SimulatorAccess?
}

/// Why a configuration could not be prepared: at start-up the exit code, on reload what
/// keeps running instead.
struct PreparationError: Error, CustomStringConvertible {
    enum Stage { case profile, faults, vehicleSource, vehicle }
    let stage: Stage
    let message: String

    var description: String { stage == .faults ? "--simulator-faults: \(message)" : message }
    /// 2 for what the configuration says wrong, 1 for what failed when it was opened.
    var exitCode: Int32 { stage == .vehicle ? 1 : 2 }
    /// What a reload keeps when the new configuration cannot be prepared.
    var kept: String { stage == .profile ? "the running profile" : "the running vehicle" }
}

extension Daemon {
    /// Prepares `configuration` with the bus read on `canLoop`. Synchronous, so its
    /// typed throws stay out of `run()`'s coroutine (the release compiler, 6.3.1, crashes
    /// splitting one that has them).
    func prepare(_ configuration: DaemonConfiguration, canLoop: EventLoop) -> Result<Prepared, PreparationError> {
        Result { () throws(PreparationError) in try prepared(configuration, canLoop: canLoop) }
    }

    private func prepared(_ configuration: DaemonConfiguration, canLoop: EventLoop) throws(PreparationError) -> Prepared {
        func step<T>(_ stage: PreparationError.Stage, _ result: Result<T, DaemonError>) throws(PreparationError) -> T {
            switch result {
            case let .success(value): return value
            case let .failure(error): throw PreparationError(stage: stage, message: error.description)
            }
        }
        let (directory, profile) = try step(.profile, Self.loadProfileResult(configuration.profile))
        let faults = try step(.faults, Self.faultPlan(configuration.simulatorFaults))
        if let text = configuration.simulatorFaults { log.warning("the simulated vehicle runs with faults: \(text)") }
        let source = try step(.vehicleSource, Self.vehicleSource(configuration, profile: profile))
        let vehicle = try step(.vehicle, Self.openVehicle(source, profile: profile, faults: faults, loop: canLoop, log: log))
        let store = CarProfileStore(directory: configuration.stateDirectory)
        let session = Self.startSession(configuration, profile: profile, vehicle: vehicle, store: store, clock: canLoop)
        let (users, groups) = resolveAccounts(configuration)
        return Prepared(
            directory: directory, profile: profile, source: source, session: session, allowedUsers: users, allowedGroups: groups,
            deviceLock: deviceLock(configuration), simulatorAccess: simulatorAccess(configuration))
    }
}
