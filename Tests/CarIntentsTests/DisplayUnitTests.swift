import CANKit
import Foundation
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents

/// Issue 25, item 9: a unit that follows a status signal. The car's set point signal
/// carries the temperature in the unit it displays; `Status.Unit` says which
/// (`extension.temperatureUnit`). `"unit": "display"` reads and sends in that unit.
enum DisplayUnitCar {
    static let dbc = """
        VERSION ""
        BU_: HU ECU
        BO_ 256 Request: 8 HU
         SG_ SetTemp : 0|8@1+ (0.5,0) [0|127.5] "" ECU
        BO_ 512 Status: 8 ECU
         SG_ SetTemp : 0|8@1+ (0.5,0) [0|127.5] "" HU
         SG_ Unit : 8|1@1+ (1,0) [0|1] "" HU
        VAL_ 512 Unit 0 "C" 1 "F" ;

        """

    static func json(unitBinding: Bool = true) -> String {
        """
        {
          "schema": 2, "name": "Display Unit Car", "carNames": ["Units"], "driverSide": "left", "dbc": "units.dbc",
          "climate": {"zones": [{"id": "cabin", "seats": ["frontLeft", "frontRight"]}],
                      "temperature": {"celsius": {"min": 16, "max": 28, "step": 0.5}, "fahrenheit": {"min": 61, "max": 82, "step": 1}}},
          "policies": {"confirmationTimeoutMs": 2000},
          "messages": {"Status": {"cycleTimeMs": 100}},
          "bindings": {
            "climate.temperature.cabin": {"command": {"kind": "setpoint", "message": "Request", "signal": "SetTemp", "idle": 0, "unit": "display"},
                                          "status": {"message": "Status", "signal": "SetTemp", "unit": "display"}}\(unitBinding ? "," : "")
            \(unitBinding ? #""extension.temperatureUnit": {"status": {"message": "Status", "signal": "Unit", "values": {"celsius": "C", "fahrenheit": "F"}}}"# : "")
          }
        }
        """
    }

    static func load(json: String = json()) throws(ProfileError) -> VehicleProfile {
        let files = ["units/profile.json": Array(json.utf8), "units/units.dbc": Array(dbc.utf8)]
        return try ProfileLoader.load(directory: "units") { files[$0] }
    }
}

@Suite struct DisplayUnitTests {
    static let cabin = PropertyKey.temperature(zone: "cabin")
    static let fahrenheit = PropertyValue.enumeration("fahrenheit")
    static let celsius = PropertyValue.enumeration("celsius")

    /// The status is read in the unit the same frame says; the command is sent in the
    /// unit the car shows.
    @Test func readAndSentInTheDisplayedUnit() throws {
        let frames = VehicleFrames(profile: try DisplayUnitCar.load())
        var counters: [String: UInt8] = [:]
        var checkers: [String: FrameChecker] = [:]
        for unit in [Self.celsius, Self.fahrenheit] {
            let status = try frames.statusFrame("Status", state: VehicleState([Self.cabin: .number(22), .temperatureUnit: unit]), counters: &counters)
            #expect(status.data[0] == (unit == Self.celsius ? 44 : 143), "22 °C, or 71.6 °F in 0.5 steps")
            guard case let .status(_, values, _) = frames.decodeFromVehicle(status, checkers: &checkers) else {
                Issue.record("a status frame")
                return
            }
            #expect(values[.temperatureUnit] == unit)
            let read = try #require(values[Self.cabin]?.doubleValue)
            #expect(abs(read - 22) < 0.3, "\(read)")
            let command = try frames.commandFrames(for: [Self.cabin: .number(22)], context: VehicleState([.temperatureUnit: unit]), counters: &counters)
            #expect(command.first?.data[0] == status.data[0])
        }
        // Before the car says its unit, nothing is sent.
        #expect(throws: VehicleFramesError.self) { _ = try frames.commandFrames(for: [Self.cabin: .number(22)], counters: &counters) }
        #expect(frames.reportedValue(.number(22), for: Self.cabin) == nil)
    }

    @Test func displayNeedsTheUnitBound() {
        do {
            _ = try DisplayUnitCar.load(json: DisplayUnitCar.json(unitBinding: false))
            Issue.record("loaded without extension.temperatureUnit")
        } catch {
            #expect(error.path == #"bindings["climate.temperature.cabin"].command.unit"#, "\(error)")
            #expect(error.reason.contains("extension.temperatureUnit must be bound"), "\(error)")
        }
    }

    /// End to end: the car shows °F; a set point in °C is sent in °F and confirmed.
    @Test func confirmedWhileTheCarShowsFahrenheit() async throws {
        let rig = try await Rig.start(profile: try DisplayUnitCar.load(), state: [.temperatureUnit: Self.fahrenheit])
        try await stopping(rig) { rig in
            let result = try await rig.perform(
                #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":23,"unit":"celsius"},"climateZone":"driver"}}"#)
            #expect(result.response.code == .success, "\(result.response)")
            let sent = try #require(result.frames.first { $0.frame.id == CANID(standard: 0x100) })
            #expect(sent.frame.data[0] == 147, "23 °C = 73.4 °F, raw 146.8 -> 147")
        }
    }
}
