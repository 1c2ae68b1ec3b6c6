import Foundation
import Testing

/// `carplayctl profile check DIR` on the shipped profiles and on a broken copy.
@Suite struct ProfileCheckTests {
    @Test(arguments: ["sedan", "suv"])
    func shippedProfilePasses(_ vehicle: String) async throws {
        let directory = CarplayctlTests.repositoryRoot.appendingPathComponent("VehicleProfiles/\(vehicle)").path
        let result = try await CarplayctlTests.runOffThePool(["profile", "check", directory])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "no DBC warnings: \(result.stderr)")
        #expect(result.stdout.contains("bound properties:"))
        #expect(result.stdout.contains(vehicle == "suv" ? "29-bit IDs, 5 CAN FD" : "11-bit IDs, 0 CAN FD"))
    }

    /// A read-only lock is reported, not a car command (VW MQB sees the lock through the
    /// gateway); the sedan's lock is a command.
    @Test func readOnlyPropertiesAreNotCarCommands() async throws {
        let vw = CarplayctlTests.repositoryRoot.appendingPathComponent("VehicleProfiles/vw-mqb").path
        let read = try await CarplayctlTests.runOffThePool(["profile", "check", vw])
        #expect(read.status == 0, "\(read.stderr)")
        let commands = read.stdout.split(separator: "\n").first { $0.hasPrefix("car commands:") } ?? ""
        #expect(!commands.contains("lock"), "\(commands)")
        #expect(read.stdout.contains("reported only: lock"), "\(read.stdout)")
        let sedan = CarplayctlTests.repositoryRoot.appendingPathComponent("VehicleProfiles/sedan").path
        let commanded = try await CarplayctlTests.runOffThePool(["profile", "check", sedan])
        #expect(commanded.stdout.contains("car commands: lock"), "\(commanded.stdout)")
    }

    /// A simulated car that cannot build a status frame: perform says which message, which
    /// signal and which value, not only that the car stayed silent (issue 35).
    @Test func performNamesTheStatusFrameTheCarCouldNotBuild() async throws {
        let hyundai = CarplayctlTests.repositoryRoot.appendingPathComponent("VehicleProfiles/hyundai-ccan").path
        let result = try await CarplayctlTests.runOffThePool([
            "perform", "--simulate", hyundai, "--state", #"{"extension.outsideTemperature": 500}"#,
            #"{"intent":"GetCarPowerLevelStatus","parameters":{}}"#,
        ])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("DATC11: cannot build frame"), "\(result.stderr)")
        #expect(result.stderr.contains("CR_Datc_OutTempC") && result.stderr.contains("500"), "\(result.stderr)")
        #expect(!result.stderr.contains("usage:"))
    }

    /// GMLAN's DBC has overlapping group signals in 177 messages: three warnings and one
    /// line for the rest, not 177 lines before the summary.
    @Test func manyOverlapWarningsAreSummarized() async throws {
        let directory = CarplayctlTests.repositoryRoot.appendingPathComponent("VehicleProfiles/gm-global-a-lowspeed").path
        let result = try await CarplayctlTests.runOffThePool(["profile", "check", directory])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 4, "\(result.stderr)")
        #expect(!result.stderr.contains("RmClmCtrlRcrcSetReq"), "recirculation is no CRC")
        #expect(lines.last?.hasPrefix("... and 174 more messages with overlapping signals") == true, "\(result.stderr)")
    }

    /// A bound message whose CRC and counter the profile does not declare: a warning
    /// naming the message and its signals (the Tesla's checksum went out as 0 unwarned).
    @Test func anUnprotectedChecksumIsAWarning() async throws {
        let source = CarplayctlTests.repositoryRoot.appendingPathComponent("VehicleProfiles/sedan")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carplayctl-profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var json = try String(contentsOf: source.appendingPathComponent("profile.json"), encoding: .utf8)
        let protected = try #require(json.range(of: #"(?s)"SeatStatus": \{[^}]*"protection": \{[^}]*\}"#, options: .regularExpression))
        json.replaceSubrange(protected, with: #""SeatStatus": {"cycleTimeMs": 100"#)
        try json.write(to: directory.appendingPathComponent("profile.json"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: source.appendingPathComponent("sedan.dbc"), to: directory.appendingPathComponent("sedan.dbc"))
        let result = try await CarplayctlTests.runOffThePool(["profile", "check", directory.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: message SeatStatus has"), "\(result.stderr)")
        #expect(result.stderr.contains("no messages.SeatStatus.protection"), "\(result.stderr)")
        #expect(result.stdout.contains("SeatStatus: 0x"), "\(result.stdout)")
        #expect(result.stdout.contains("every 100 ms (profile)"), "\(result.stdout)")
    }

    @Test func brokenProfileExitsOneWithPathAndNoUsage() async throws {
        let source = CarplayctlTests.repositoryRoot.appendingPathComponent("VehicleProfiles/sedan")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carplayctl-profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = try String(contentsOf: source.appendingPathComponent("profile.json"), encoding: .utf8)
        let broken = json.replacingOccurrences(of: #""signal": "HeatFrontLeft", "idle""#, with: #""signal": "SeatHeatFL", "idle""#)
        #expect(broken != json)
        try broken.write(to: directory.appendingPathComponent("profile.json"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: source.appendingPathComponent("sedan.dbc"), to: directory.appendingPathComponent("sedan.dbc"))
        let result = try await CarplayctlTests.runOffThePool(["profile", "check", directory.path])
        #expect(result.status == 1)
        #expect(!result.stderr.contains("usage:") && !result.stderr.contains("--help"), "\(result.stderr)")
        #expect(
            result.stderr.contains(
                #"/profile.json: bindings["seat.frontLeft.heating"].command.signal: no signal "SeatHeatFL" in message "SeatCommand" of sedan.dbc"#),
            "\(result.stderr)")
    }

    @Test func unknownSubverbIsAUsageError() async throws {
        let result = try await CarplayctlTests.runOffThePool(["profile", "frobnicate"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown profile command 'frobnicate'"))
    }
}
