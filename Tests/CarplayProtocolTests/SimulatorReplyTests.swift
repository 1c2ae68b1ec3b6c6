import CarplayJSON
import Testing
import VehicleKit

@testable import CarplayProtocol

/// io.carplayd.Simulator's replies: what SimulatorControl writes reads back the same.
@Suite struct SimulatorReplyTests {
    @Test func getVehicleRoundTrips() throws {
        let drive = DriveState(connector: .ccs2, speedKmh: 12.5)
        let plan: JSONValue = ["rules": [["kind": "reject", "message": "ClimateCommand"]]]
        let written = GetVehicleReply(
            state: VehicleState([.locked: .bool(true), .fanSpeed: .integer(3)]), faultPlan: plan, statistics: ["commandsReceived": 4], drive: drive)
        let read = try GetVehicleReply(written.json)
        #expect(read.state == ["lock.locked": true, "climate.fanSpeed": 3])
        #expect(read.faultRules == [["kind": "reject", "message": "ClimateCommand"]])
        #expect(read.statistics == ["commandsReceived": 4] && read.drive == drive)
    }

    @Test func theDriveStateAndTheAppliedValuesRoundTrip() throws {
        for drive in [DriveState(connector: nil, speedKmh: 0), DriveState(connector: .tesla, speedKmh: 88)] {
            #expect(try SetDriveStateReply(SetDriveStateReply(drive: drive).json).drive == drive)
        }
        let values = try SetVehicleStateReply(SetVehicleStateReply(values: VehicleState([.temperature(zone: "left"): .number(21.5)])).json)
        #expect(values.values == ["climate.temperature.left": 21.5])
        #expect(SetFaultsReply().json.isEmpty)
    }
}
