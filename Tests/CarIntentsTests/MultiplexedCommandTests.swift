import CANKit
import Foundation
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents

/// Issue 25, item 9: a multiplexed command message. `Request` carries the fan level on
/// page 1 and the A/C on page 2 of its selector `Page`: a command goes out once per page
/// its signals are on, each frame with its page's selector, and the simulated car reads
/// each page.
enum PagedCar {
    static let dbc = """
        VERSION ""
        BU_: HU ECU
        BO_ 256 Request: 8 HU
         SG_ Page M : 0|8@1+ (1,0) [0|255] "" ECU
         SG_ FanLevel m1 : 8|4@1+ (1,0) [0|15] "" ECU
         SG_ AC m2 : 8|2@1+ (1,0) [0|3] "" ECU
        BO_ 512 Status: 8 ECU
         SG_ FanLevel : 0|4@1+ (1,0) [0|15] "" HU
         SG_ AC : 4|1@1+ (1,0) [0|1] "" HU
        VAL_ 256 AC 0 "Off" 1 "On" 3 "NoRequest" ;

        """

    static func json() -> String {
        """
        {
          "schema": 2, "name": "Paged Car", "carNames": ["Paged"], "driverSide": "left", "dbc": "paged.dbc",
          "climate": {"fanSpeedLevels": 7, "airConditioner": true},
          "policies": {"confirmationTimeoutMs": 2000},
          "messages": {"Status": {"cycleTimeMs": 100}},
          "bindings": {
            "climate.fanSpeed": {"command": {"kind": "setpoint", "message": "Request", "signal": "FanLevel", "idle": 0},
                                 "status": {"message": "Status", "signal": "FanLevel"}},
            "climate.fan": {"status": {"message": "Status", "signal": "FanLevel", "values": {"false": 0}, "otherwise": true}},
            "climate.airConditioner": {"command": {"kind": "setpoint", "message": "Request", "signal": "AC", "idle": "NoRequest",
                                                   "values": {"false": "Off", "true": "On"}},
                                       "status": {"message": "Status", "signal": "AC"}}
          }
        }
        """
    }

    static func load(json: String = json()) throws(ProfileError) -> VehicleProfile {
        let files = ["paged/profile.json": Array(json.utf8), "paged/paged.dbc": Array(dbc.utf8)]
        return try ProfileLoader.load(directory: "paged") { files[$0] }
    }
}

@Suite struct MultiplexedCommandTests {
    @Test func oneFramePerPageWithItsSelector() throws {
        let profile = try PagedCar.load()
        let frames = VehicleFrames(profile: profile)
        var counters: [String: UInt8] = [:]
        let sent = try frames.commandFrames(for: [.fanSpeed: .integer(5), .airConditioner: .bool(true)], counters: &counters)
        // In the order the profile names the signals (by property: the A/C first).
        #expect(sent.map { Array($0.data.prefix(2)) } == [[2, 1], [1, 5]], "page 2: A/C on; page 1: fan level 5")
        let fanOnly = try frames.commandFrames(for: [.fanSpeed: .integer(2)], counters: &counters)
        #expect(fanOnly.map { Array($0.data.prefix(2)) } == [[1, 2]], "only the page its signal is on")
    }

    @Test func theSelectorIsNoCommandSignal() {
        let json = PagedCar.json().replacingOccurrences(of: #""signal": "FanLevel", "idle": 0"#, with: #""signal": "Page", "idle": 0"#)
        do {
            _ = try PagedCar.load(json: json)
            Issue.record("the selector was taken as a command signal")
        } catch {
            #expect(error.path == #"bindings["climate.fanSpeed"].command.signal"#, "\(error)")
            #expect(error.reason.contains(#"signal "Page" selects the pages of message "Request" (a multiplexer)"#), "\(error)")
        }
    }

    /// End to end on the simulated car, in virtual time.
    @Test func setAndConfirmedOnBothPages() async throws {
        let rig = try await Rig.start(profile: try PagedCar.load())
        try await stopping(rig) { rig in
            let result = try await rig.perform(
                #"{"intent":"SetClimateSettingsInCar","parameters":{"fanSpeedIndex":6,"enableAirConditioner":false}}"#)
            #expect(result.response.code == .success, "\(result.response)")
            let state = rig.vehicle.state()
            #expect(state[.fanSpeed] == .integer(6) && state[.airConditioner] == .bool(false), "\(state)")
        }
    }
}
