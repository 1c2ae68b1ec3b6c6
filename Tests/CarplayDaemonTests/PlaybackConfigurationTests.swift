import Foundation
import TestSupport
import Testing
import VehicleKit

@testable import CarplayDaemon

/// `--scenario`, `--replay`, `--replay-loop` and their config keys; both refused on a CAN interface.
@Suite struct PlaybackConfigurationTests {
    @Test func optionsAndConfigKeys() throws {
        let files = ["/c": Array("scenario = /s/commute.json\nreplay-loop = yes\n".utf8)]
        let fromFile = try DaemonConfiguration.parse(arguments: ["--config", "/c"], environment: [:]) { files[$0] }
        #expect(fromFile.scenario == "/s/commute.json" && fromFile.replayLoop)
        let fromLine = try DaemonConfiguration.parse(arguments: ["--replay", "/l/drive.log", "--replay-loop"], environment: [:]) { _ in nil }
        #expect(fromLine.replay == "/l/drive.log" && fromLine.replayLoop && fromLine.scenario == nil)
        #expect {
            try DaemonConfiguration.parse(arguments: ["--config", "/c"], environment: [:]) { ["/c": Array("replay-loop = sometimes\n".utf8)][$0] }
        } throws: { "\($0)" == "/c:1: replay-loop must be on or off (or true/false, yes/no), not sometimes" }
    }

    /// Every boolean setting reads the same words (they were on/off for one key and
    /// true/yes for another).
    @Test func booleansReadTheSameWords() throws {
        for (word, expected) in ["on": true, "yes": true, "true": true, "off": false, "no": false, "false": false] {
            let files = ["/c": Array("replay-loop = \(word)\nsimulator-control = \(word)\n".utf8)]
            let configuration = try DaemonConfiguration.parse(arguments: ["--config", "/c"], environment: [:]) { files[$0] }
            #expect(configuration.replayLoop == expected && configuration.simulatorControl == expected, "\(word)")
        }
    }

    /// Every setting of the table is a config key that the parser takes, and no two share
    /// a key or an option.
    @Test func theTableIsTheOnlyListOfSettings() throws {
        #expect(Set(Setting.all.map(\.key)).count == Setting.all.count)
        let options = Setting.all.flatMap { $0.options.map(\.name) }
        #expect(Set(options).count == options.count)
        #expect(Setting.commandLine.count == options.count)
        do {
            _ = try DaemonConfiguration.parse(arguments: ["--config", "/c"], environment: [:]) { _ in Array("colour = blue\n".utf8) }
            Issue.record("an unknown key is refused")
        } catch {
            #expect("\(error)".contains("known: \(Setting.all.map(\.key).joined(separator: ", "))"))
        }
    }

    func vehicleSource(_ arguments: [String], scenario text: String? = nil) throws -> Result<VehicleSource, DaemonError> {
        var arguments = arguments
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UInt32.random(in: 0...UInt32.max)).json")
        if let text {
            try text.write(to: file, atomically: true, encoding: .utf8)
            arguments += ["--scenario", file.path]
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let configuration = try DaemonConfiguration.parse(arguments: arguments, environment: [:]) { _ in nil }
        let (_, profile) = try Daemon.loadProfile(TestPaths.repository("VehicleProfiles/sedan").path)
        return Daemon.vehicleSource(configuration, profile: profile)
    }

    @Test func scenarioIsCheckedAgainstTheProfile() throws {
        let good = try vehicleSource([], scenario: #"{"events": [{"at": 1, "set": {"lock.locked": true}}]}"#)
        guard case let .embedded(scenario, file)? = try? good.get() else {
            Issue.record("not the embedded vehicle: \(good)")
            return
        }
        #expect(scenario?.events.count == 1 && file != nil)
        let bad = try vehicleSource([], scenario: #"{"events": [{"at": 1, "set": {"seat.rearLeft.massage": 2}}]}"#)
        guard case let .failure(error) = bad else { Issue.record("accepted"); return }
        #expect(error.description.hasPrefix("--scenario: "))
        #expect(
            error.description.hasSuffix(
                #": events[0].set["seat.rearLeft.massage"]: \#(try Daemon.loadProfile(TestPaths.repository("VehicleProfiles/sedan").path).1.displayName) has no seat.rearLeft.massage"#
            ))
    }

    @Test func refusedOnACANInterface() throws {
        let scenario = try vehicleSource(["--can", "can0"], scenario: #"{"events": []}"#)
        guard case let .failure(error) = scenario else { Issue.record("accepted"); return }
        #expect(error.description.hasPrefix("--scenario plays the embedded simulated vehicle; on a CAN interface (can0)"))
        let replay = try vehicleSource(["--can", "can0", "--replay", "/nonexistent.log"])
        guard case let .failure(replayError) = replay else { Issue.record("accepted"); return }
        #expect(replayError.description.hasPrefix("--replay plays a log onto the embedded in-process bus"))
        let both = try vehicleSource(["--replay", "/nonexistent.log"], scenario: #"{"events": []}"#)
        guard case let .failure(bothError) = both else { Issue.record("accepted"); return }
        #expect(bothError.description.hasPrefix("--scenario and --replay exclude each other"))
    }

    /// The one decision, made once: the CAN interface, the embedded vehicle, or a replay,
    /// and the start-up line says which.
    @Test func oneSourceFromTheConfiguration() throws {
        guard case let .canInterface(name)? = try? vehicleSource(["--can", "can1"]).get() else { Issue.record("not the CAN interface"); return }
        #expect(name == "can1")
        #expect(VehicleSource.canInterface("can1").description(interface: "can1") == "CAN interface can1")
        guard case let .embedded(scenario, file)? = try? vehicleSource([]).get() else { Issue.record("not the embedded vehicle"); return }
        #expect(scenario == nil && file == nil)
        #expect(VehicleSource.embedded(scenario: nil, file: nil).description(interface: "vcan0") == "embedded simulated vehicle on an in-process vcan0")
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UInt32.random(in: 0...UInt32.max)).log")
        try "(1.000000) vcan0 123#00\n".write(to: log, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: log) }
        guard case let .replay(_, path, loop)? = try? vehicleSource(["--replay", log.path, "--replay-loop"]).get() else {
            Issue.record("not a replay")
            return
        }
        #expect(path == log.path && loop)
        let unreadable = try vehicleSource(["--replay", "/nonexistent.log"])
        guard case let .failure(error) = unreadable else { Issue.record("accepted"); return }
        #expect(error.description == "--replay: cannot read /nonexistent.log")
    }
}
