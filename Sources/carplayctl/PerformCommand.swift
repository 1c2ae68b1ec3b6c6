import CANBus
import CANKit
import CarIntents
import CarplayJSON
import LinuxSupport
import VehicleKit
import VehicleSimulator

/// `carplayctl perform --simulate PROFILE_DIR 'INTENT_JSON' [--state 'JSON']`: one
/// intent against an in-process simulated vehicle, without a daemon.
enum PerformCommand {
    static let usage = """
        usage: carplayctl perform --simulate PROFILE_DIR 'INTENT_JSON' [--state 'STATE_JSON'] [--faults 'FAULT_JSON']
                                  [--car-profiles 'SAVED_JSON']

          Runs one intent against the simulated vehicle of PROFILE_DIR on an in-process
          virtual CAN bus and prints one JSON object:
            {"resolutions":{PARAMETER:{"kind":...}},"response":{"code":"success",...},
             "frames":["(1700000000.000100) vcan0 3A0#...",...],"state":{...}}
          the resolution of each parameter, the response (code and intent-specific
          fields), every frame sent and received in candump -L form, and the vehicle
          state afterwards. The same object is what the daemon's Perform returns.

          INTENT_JSON   {"intent":"SetClimateSettingsInCar","parameters":{"temperature":
                        {"value":21.5,"unit":"celsius"},"climateZone":"driver"}}
          --state       start the vehicle from these property values, e.g.
                        '{"climate.temperature.left":20,"climate.fanSpeed":3}'
          --faults      the simulated vehicle's fault plan, e.g. '{"rules":[{"kind":"reject"}]}'
                        (kinds: drop, delay (ms), reject (result), wrongValue, badCRC,
                        repeatCounter, silence, busOff; scope: property, message, count,
                        fromMs, untilMs; docs/SIMULATION.md, "Fault plan")

          --car-profiles  saved car profiles to start with (for SetProfileInCar), e.g.
                        '[{"slot":2,"name":"Alex","settings":{"climate.fanSpeed":5}}]'

          Against carplayd the same JSON goes through `carplayctl call Perform 'INTENT_JSON'`
          (or the intent's own verb: climate, seat, ...).

          exit: 0 success, 1 the intent failed or did not resolve (or the profile does not
                load), 2 usage error
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        var rest = arguments
        var profileDirectory: String?
        var stateText: String?
        var faultsText: String?
        var carProfilesText: String?
        var positional: [String] = []
        while !rest.isEmpty {
            let argument = rest.removeFirst()
            /// The option's value: the next argument.
            func value(_ what: String) throws -> String {
                guard !rest.isEmpty else { throw UsageError("\(argument) needs \(what)") }
                return rest.removeFirst()
            }
            switch argument {
            case "--simulate": profileDirectory = try value("a profile directory")
            case "--state": stateText = try value("a JSON object")
            case "--car-profiles": carProfilesText = try value("a JSON array")
            case "--faults": faultsText = try value("a JSON fault plan")
            default:
                if argument.hasPrefix("--") { throw UsageError("unknown option \(argument)") }
                positional.append(argument)
            }
        }
        guard let profileDirectory else {
            throw UsageError("give --simulate PROFILE_DIR; against carplayd, send the intent with carplayctl call Perform 'INTENT_JSON'")
        }
        guard positional.count == 1 else { throw UsageError("give one intent as JSON") }
        let profile: VehicleProfile
        do {
            profile = try ProfileCommand.load(profileDirectory)
        } catch {
            throw OperationFailure("\(error)")
        }
        let intent: Intent
        do {
            intent = try Intent(parsing: Array(positional[0].utf8))
        } catch {
            throw UsageError("intent: \(error)")
        }
        var state = VehicleSimulation.defaultState(for: profile)
        if let stateText {
            do {
                state.merge(try VehicleState(json: JSONNode(parsing: Array(stateText.utf8), file: "--state")))
            } catch {
                throw UsageError("\(error)")
            }
        }
        var faults = FaultPlan.none
        if let faultsText {
            do {
                faults = try FaultPlan(parsing: faultsText, source: "--faults")
            } catch {
                throw UsageError("\(error)")
            }
        }

        var saved: [SavedCarProfile] = []
        if let carProfilesText {
            do {
                saved = try SavedCarProfile.list(parsing: Array(carProfilesText.utf8), file: "--car-profiles")
            } catch {
                throw UsageError("\(error)")
            }
        }
        let embedded = EmbeddedVehicle(VehicleSimulation(profile: profile, state: state, faults: faults))
        let session = VehicleSession(profile: profile, vehicle: .inProcess(embedded), savedCarProfiles: saved)
        // The whole state first, so relative settings and the printed state are complete.
        guard await session.controller.waitUntilComplete(timeout: .seconds(3)) else {
            await session.stop()
            // Why: a status frame the simulated car could not build names its message, the
            // property and the value (an extension whose signal cannot carry the default).
            var reasons: [String] = []
            for entry in embedded.vehicle.drainLog() where entry.detail.hasPrefix("cannot build frame") {
                let reason = "\(entry.message): \(entry.detail)"
                if !reasons.contains(reason) { reasons.append(reason) }
            }
            let why = reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ") + " (give a value it can carry with --state)"
            throw OperationFailure("the simulated vehicle did not send all its status messages\(why)")
        }
        let result = await session.engine.perform(intent)
        print(result.json.serialized(sortedKeys: true))
        await session.stop()
        return result.response.code == .success ? ExitCode.success : ExitCode.failure
    }
}
