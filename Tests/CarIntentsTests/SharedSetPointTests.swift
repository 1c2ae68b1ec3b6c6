import CANKit
import Foundation
import TestSupport
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents

/// Issue 25, item 3: a car with one set temperature for two zones. The sedan, with both
/// zones bound to `TargetTempLeft` (command and status) and no idle value: a frame always
/// carries a set point, so the zone an intent does not name carries its current value
/// over the same signal. It once won over the target: "timeout ... the vehicle reports
/// climate.temperature.left = 21.0".
enum SharedSetPointCar {
    static func load() throws -> VehicleProfile {
        let folder = TestPaths.repository("VehicleProfiles/sedan")
        var json = try String(contentsOf: folder.appendingPathComponent("profile.json"), encoding: .utf8)
        let dbc = try Data(contentsOf: folder.appendingPathComponent("sedan.dbc"))
        for (old, new) in [
            (#""signal": "TargetTempLeft", "idle": "NoRequest"}"#, #""signal": "TargetTempLeft"}"#),
            (#""signal": "TargetTempRight", "idle": "NoRequest"}"#, #""signal": "TargetTempLeft"}"#),
            (#""status": {"message": "ClimateStatus", "signal": "TargetTempRight"}"#, #""status": {"message": "ClimateStatus", "signal": "TargetTempLeft"}"#),
        ] {
            let range = try #require(json.range(of: old), "sedan profile lacks \(old)")
            json.replaceSubrange(range, with: new)
        }
        let files = ["shared/profile.json": Array(json.utf8), "shared/sedan.dbc": Array(dbc)]
        return try ProfileLoader.load(directory: "shared") { files[$0] }
    }
}

@Suite struct SharedSetPointTests {
    static let left = PropertyKey.temperature(zone: "left")
    static let right = PropertyKey.temperature(zone: "right")

    /// The target is written, not the other zone's current value.
    @Test func theTargetWinsOverTheOtherZonesCurrentValue() throws {
        let frames = VehicleFrames(profile: try SharedSetPointCar.load())
        var counters: [String: UInt8] = [:]
        let sent = try frames.commandFrames(
            for: [Self.left: .number(24)], context: VehicleState([Self.left: .number(21), Self.right: .number(21)]), counters: &counters)
        #expect(sent.count == 1)
        #expect(sent.first?.data[2] == 28, "TargetTempLeft = (24 - 10) / 0.5")
    }

    /// Two zones with different targets cannot both be carried by one signal.
    @Test func twoDifferentTargetsOnOneSignalAreRefused() throws {
        let frames = VehicleFrames(profile: try SharedSetPointCar.load())
        var counters: [String: UInt8] = [:]
        #expect(throws: VehicleFramesError.self) {
            _ = try frames.commandFrames(for: [Self.left: .number(24), Self.right: .number(20)], counters: &counters)
        }
        let same = try frames.commandFrames(for: [Self.left: .number(24), Self.right: .number(24)], counters: &counters)
        #expect(same.first?.data[2] == 28, "the same value for both is one set point")
    }

    /// End to end on the simulated vehicle: the driver's zone is set and confirmed, and
    /// the car reports the one set point for both zones.
    @Test func setAndConfirmedForTheDriversZone() async throws {
        var profile = try SharedSetPointCar.load()
        profile.policies.confirmationTimeout = .seconds(2)
        let rig = try await Rig.start(profile: profile, state: [Self.left: .number(21), Self.right: .number(21)])
        try await stopping(rig) { rig in
            let result = try await rig.perform(
                #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":24,"unit":"celsius"},"climateZone":"driver"}}"#)
            #expect(result.response.code == .success, "\(result.response)")
            let state = rig.vehicle.state()
            #expect(state[Self.left] == .number(24) && state[Self.right] == .number(24), "\(state)")
        }
    }
}
