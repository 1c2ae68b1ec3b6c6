import CANKit
import LinuxSupport
import VehicleKit
import VehicleSimulator

/// What the embedded vehicle plays besides answering commands: a scenario (timed
/// vehicle-side events and faults) or, instead of the vehicle, a recorded candump log.
struct Playback: Sendable {
    var scenario: Scenario?
    var replay: CandumpReplay?
    var replayLoop = false

    static let none = Playback()
}

extension Daemon {
    /// The configured scenario and replay, read and checked against the profile. Both
    /// belong to the embedded default: a real bus has a real car.
    static func playback(_ configuration: DaemonConfiguration, profile: VehicleProfile) -> Result<Playback, DaemonError> {
        var playback = Playback.none
        if configuration.canInterface != nil {
            if configuration.scenario != nil {
                return .failure(
                    DaemonError(
                        "--scenario plays the embedded simulated vehicle; on a CAN interface (\(configuration.canInterface!)) the vehicle is whatever answers there (run the scenario there with carplay-ecu --scenario)"
                    ))
            }
            if configuration.replay != nil {
                return .failure(
                    DaemonError(
                        "--replay plays a log onto the embedded in-process bus; on a CAN interface (\(configuration.canInterface!)) use carplay-ecu --replay or canplayer"
                    ))
            }
            return .success(playback)
        }
        if configuration.scenario != nil, configuration.replay != nil {
            return .failure(DaemonError("--scenario and --replay exclude each other: a replay takes the simulated vehicle's place"))
        }
        if let file = configuration.scenario {
            guard let bytes = try? FileDescriptor.readFile(atPath: file) else { return .failure(DaemonError("--scenario: cannot read \(file)")) }
            do {
                playback.scenario = try Scenario(parsing: String(decoding: bytes, as: UTF8.self), source: file, profile: profile)
            } catch {
                return .failure(DaemonError("--scenario: \(error)"))
            }
        }
        if let file = configuration.replay {
            guard let bytes = try? FileDescriptor.readFile(atPath: file) else { return .failure(DaemonError("--replay: cannot read \(file)")) }
            do {
                playback.replay = try CandumpReplay(parsing: bytes)
            } catch {
                return .failure(DaemonError("--replay: \(file): \(error)"))
            }
            playback.replayLoop = configuration.replayLoop
        }
        return .success(playback)
    }
}
