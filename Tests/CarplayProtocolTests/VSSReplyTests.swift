import CarplayJSON
import Testing
import VehicleKit

@testable import CarplayProtocol

/// io.carplayd.VSS's replies: what the daemon writes reads back the same.
@Suite struct VSSReplyTests {
    @Test func describeRoundTripsEveryMember() throws {
        let catalog = VSSCatalog.everything
        let written = VSSDescribeReply(release: VSSCatalog.release, signals: catalog.signals)
        let read = try VSSDescribeReply(written.json)
        #expect(read.release == VSSCatalog.release)
        #expect(read.signals == written.signals)
        #expect(read.signals.count == catalog.signals.count)
        // Optional members are absent where VSS gives none, and read back absent.
        #expect(read.signals.contains { $0.unit == nil } && read.signals.contains { $0.allowed != nil })
    }

    @Test func describeGivesEachKeysPaths() throws {
        let read = try VSSDescribeReply(VSSDescribeReply(release: "5.1", signals: VSSCatalog.everything.signals).json)
        #expect(read.pathsByKey["lock.locked"]?.contains("Vehicle.Cabin.Door.Row1.DriverSide.IsLocked") == true)
        #expect(read.pathsByKey["climate.temperature.frontLeft"] == ["Vehicle.Cabin.HVAC.Station.Row1.Driver.Temperature"])
    }

    @Test func anUnknownDatatypeNamesItsPath() {
        let signal: JSONValue = [
            "path": "Vehicle.X", "datatype": "double", "entryType": "sensor", "description": "", "overlay": false, "keys": [],
        ]
        do {
            _ = try VSSDescribeReply(["release": "5.1", "signals": [signal]])
            Issue.record("a datatype carplayd does not serve was read")
        } catch {
            #expect(error.path == "signals[0].datatype", "\(error)")
        }
    }

    @Test func getAndActuateRoundTrip() throws {
        let values: [String: JSONValue] = ["Vehicle.Cabin.HVAC.Station.Row1.Driver.Temperature": .number(21.5)]
        let get = try VSSGetReply(VSSGetReply(values: values, reachable: true).json)
        #expect(get.values == values && get.reachable)
        let actuate = try VSSActuateReply(VSSActuateReply(values: values, elapsedSeconds: 0.005).json)
        #expect(actuate.values == values && actuate.elapsedSeconds == 0.005)
        #expect(try VSSMonitorReply(VSSMonitorReply(values: values).json).values == values)
    }
}
