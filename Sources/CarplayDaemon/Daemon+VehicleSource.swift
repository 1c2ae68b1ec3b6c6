import CANKit
import CarIntents
import EventLoops
import LinuxSupport
import SocketCAN
import VehicleKit
import VehicleSimulator

/// Where the daemon's vehicle is: the one decision that is the daemon's, made from the
/// configuration (and the files it names) by `Daemon.vehicleSource`, for a start and a
/// reload alike. Everything after it -- the port, the session, the log line -- follows
/// from the case.
enum VehicleSource: Sendable {
    /// A CAN interface: the vehicle is whatever answers there.
    case canInterface(String)
    /// The embedded simulated vehicle, playing a scenario (timed vehicle-side events and
    /// faults) from `file` if one is configured.
    case embedded(scenario: Scenario?, file: String?)
    /// A recorded candump log on the in-process bus, instead of the vehicle.
    case replay(CandumpReplay, file: String, loop: Bool)

    /// The vehicle as the start-up log line names it.
    func description(interface: String) -> String {
        switch self {
        case .canInterface: "CAN interface \(interface)"
        case let .embedded(_, file): "embedded simulated vehicle on an in-process \(interface)\(file.map { ", playing \($0)" } ?? "")"
        case let .replay(_, file, _): "replaying \(file) on an in-process \(interface)"
        }
    }
}

extension Daemon {
    /// The configured vehicle, its scenario or replay read and checked against the
    /// profile. A scenario and a replay belong to the embedded default: a real bus has a
    /// real car; and a replay takes the simulated vehicle's place.
    static func vehicleSource(_ configuration: DaemonConfiguration, profile: VehicleProfile) -> Result<VehicleSource, DaemonError> {
        if let interface = configuration.canInterface {
            if configuration.scenario != nil {
                return .failure(
                    DaemonError(
                        "--scenario plays the embedded simulated vehicle; on a CAN interface (\(interface)) the vehicle is whatever answers there (run the scenario there with carplay-ecu --scenario)"
                    ))
            }
            if configuration.replay != nil {
                return .failure(
                    DaemonError(
                        "--replay plays a log onto the embedded in-process bus; on a CAN interface (\(interface)) use carplay-ecu --replay or canplayer"))
            }
            return .success(.canInterface(interface))
        }
        if configuration.scenario != nil, configuration.replay != nil {
            return .failure(DaemonError("--scenario and --replay exclude each other: a replay takes the simulated vehicle's place"))
        }
        if let file = configuration.replay {
            guard let bytes = try? FileDescriptor.readFile(atPath: file) else { return .failure(DaemonError("--replay: cannot read \(file)")) }
            do {
                return .success(.replay(try CandumpReplay(parsing: bytes), file: file, loop: configuration.replayLoop))
            } catch {
                return .failure(DaemonError("--replay: \(file): \(error)"))
            }
        }
        guard let file = configuration.scenario else { return .success(.embedded(scenario: nil, file: nil)) }
        guard let bytes = try? FileDescriptor.readFile(atPath: file) else { return .failure(DaemonError("--scenario: cannot read \(file)")) }
        do {
            let scenario = try Scenario(parsing: String(decoding: bytes, as: UTF8.self), source: file, profile: profile)
            return .success(.embedded(scenario: scenario, file: file))
        } catch {
            return .failure(DaemonError("--scenario: \(error)"))
        }
    }

    /// The vehicle side of a session for `source`. On a CAN interface only the profile's
    /// status and acknowledgement frames pass the kernel's filters, and `loop` reads them
    /// (`startLoops`: the loop of the first Varlink connections); an embedded vehicle or a
    /// replay keeps its time on `loop`; the embedded vehicle's
    /// scenario lines go to `log`. (Synchronous: the throwing step stays out of `run`'s
    /// coroutine, see there.)
    static func openVehicle(_ source: VehicleSource, profile: VehicleProfile, faults: FaultPlan, loop: EventLoop, log: Logger? = nil) -> Result<
        VehicleSession.Vehicle, DaemonError
    > {
        switch source {
        // The car in process keeps its time on `loop` too: an event loop thread, never
        // Swift's cooperative pool, and no thread (nor descriptors) of its own.
        case let .replay(replay, _, looping):
            return .success(.replayed(replay, loop: looping, clock: loop))
        case let .embedded(scenario, _):
            var simulation = VehicleSimulation(profile: profile, faults: faults)
            // Nothing reads the embedded vehicle's own log (carplayd logs each intent itself).
            simulation.logLimit = 0
            return .success(
                .inProcess(EmbeddedVehicle(simulation, clock: loop, scenario: scenario, scenarioLog: { line in log?.info("scenario: \(line)") })))
        case let .canInterface(interface):
            var ids = VehicleFrames(profile: profile).statusMessages.values.map(\.message.canID)
            if let ack = profile.acknowledgement, let message = profile.database.message(named: ack.message) { ids.append(message.canID) }
            do {
                let fd = profile.database.messages.contains(where: \.isFD)
                return .success(.bus(try SocketCANPort(interface: interface, fd: fd, acceptedIDs: ids, loop: loop)))
            } catch {
                return .failure(DaemonError("cannot open CAN interface \(interface): \(error)"))
            }
        }
    }
}
