import CarIntents
import CarplayJSON
import Foundation
import LinuxSupport
import TestSupport
import Testing
import VehicleKit

@testable import CarplayProtocol

/// Describe: what the daemon writes from a profile reads back as the same description.
@Suite struct DescribeReplyTests {
    static let shipped = [
        "sedan", "suv", "ford-cgea", "gm-global-a-lowspeed", "hyundai-ccan", "hyundai-kia-generic", "hyundai-mcan", "tesla-model-s",
        "toyota-2017", "vw-mqb",
    ]

    static func profile(_ name: String) throws -> VehicleProfile {
        try ProfileLoader.load(directory: TestPaths.repository("VehicleProfiles/\(name)").path) { path in
            try? FileDescriptor.readFile(atPath: path)
        }
    }

    @Test(arguments: shipped)
    func everyShippedProfileRoundTrips(_ name: String) throws {
        let profile = try Self.profile(name)
        let written = DescribeReply(profile)
        let read = try DescribeReply(written.json)
        #expect(read.vehicle == VehicleDescription(profile))
        #expect(read.vehicle.properties == profile.bindings.keys.map(\.rawValue).sorted())
    }

    @Test func theSedanGivesWhatTheDashDraws() throws {
        let vehicle = try DescribeReply(DescribeReply(Self.profile("sedan")).json).vehicle
        #expect(vehicle.name == "Example Sedan" && vehicle.driverSide == .left && vehicle.defrosters == [.front, .rear])
        let climate = try #require(vehicle.climate)
        #expect(climate.zones.map(\.id) == ["left", "right"] && climate.zones[0].seats == [.frontLeft, .rearLeft])
        #expect(climate.fanSpeedLevels == 7 && climate.celsius?.step == 0.5)
        #expect(vehicle.seats.first?.seat == .frontLeft && vehicle.seats.first?.heating == 3)
        #expect(vehicle.radio?.stations.first?.name == "Jazz FM")
    }

    @Test func aCarWithoutClimateOrRadioHasNone() throws {
        let vehicle = try DescribeReply(DescribeReply(Self.profile("tesla-model-s")).json).vehicle
        #expect(vehicle.radio == nil)
        #expect(vehicle.json.objectValue?["radio"] == nil)
    }

    @Test func aBrokenMemberNamesItsPath() throws {
        guard case var .object(vehicle) = VehicleDescription(try Self.profile("sedan")).json else {
            Issue.record("the description is not an object")
            return
        }
        vehicle["seats"] = [["heating": 1, "cooling": 0, "massage": 0]]
        #expect(throws: JSONContentError(file: "io.carplayd.Vehicle.Describe", path: "vehicle.seats[0].seat", reason: "missing required key \"seat\"")) {
            try DescribeReply(["vehicle": .object(vehicle)])
        }
    }
}
