import CANBus
import CANKit
import Foundation
import TestSupport
import Testing
import VehicleSimulator

@testable import CarIntents
@testable import VehicleKit

/// A bus with GMLAN's group signals and validity bits (Tests/Fixtures/gm-lowspeed, over
/// the real GM Global A low-speed DBC), end to end: the simulated car plays them on its
/// side of the bus, the head unit confirms and reads through them.
@Suite struct GroupSignalCarTests {
    static func profile() throws -> VehicleProfile { try ShippedProfiles.load("gm-lowspeed", in: "Tests/Fixtures") }

    /// The lock request goes out on a message with group signals and is confirmed; the
    /// fuel level is read beside its group, behind its validity bit.
    @Test func intentsOnABusWithGroupSignals() async throws {
        let rig = try await Rig.start(profile: try Self.profile())
        try await stopping(rig) { rig in
            for locked in [true, false] {
                let lock = try await rig.perform(#"{"intent":"SetCarLockStatus","parameters":{"locked":\#(locked)}}"#)
                #expect(lock.response.code == .success, "\(lock.response)")
                #expect(lock.state[.locked] == .bool(locked))
            }
            let power = try await rig.perform(#"{"intent":"GetCarPowerLevelStatus","parameters":{}}"#)
            #expect(power.response.code == .success, "\(power.response)")
            #expect(power.state[.fuelPercent] != nil)
        }
    }

    /// A level the validity bit says is not valid is forgotten, not kept stale, and the
    /// head unit says why.
    @Test func aValueFlaggedInvalidIsForgottenWithTheReason() throws {
        let profile = try Self.profile()
        var unit = HeadUnit(profile: profile)
        var counters: [String: UInt8] = [:]
        let frame = try unit.frames.statusFrame("Fuel_Information", state: VehicleState([.fuelPercent: .number(50)]), counters: &counters)
        func received(_ frame: CANFrame) -> ReceivedFrame {
            ReceivedFrame(frame: frame, timestamp: CandumpTimestamp(seconds: 0, microseconds: 0), interface: "vcan0")
        }
        _ = unit.receive(received(frame), at: .now)
        #expect(unit.state[.fuelPercent] != nil)
        #expect(unit.unreadable.isEmpty)

        var flagged = frame.data
        flagged[0] |= 1
        let events = unit.receive(received(try CANFrame(id: frame.id, data: flagged)), at: .now)
        #expect(unit.state[.fuelPercent] == nil)
        #expect(unit.unreadable == [.fuelPercent: "FlLvlPctV = 1 says the value is not valid (valid: 0)"])
        #expect(events.contains { if case let .changed(change) = $0 { change.keys == [.fuelPercent] } else { false } })

        _ = unit.receive(received(frame), at: .now)
        #expect(unit.state[.fuelPercent] != nil)
        #expect(unit.unreadable.isEmpty, "a valid reading clears the reason")
    }
}

/// A status read from the pages of a multiplexed message, end to end: the simulated car
/// sends every page, the head unit reads each property from its own.
@Suite struct MultiplexedStatusCarTests {
    @Test func thePowerLevelFromTwoPages() async throws {
        let folder = TestPaths.repository("VehicleProfiles/sedan")
        let json = try String(contentsOf: folder.appendingPathComponent("profile.json"), encoding: .utf8)
        var dbc = try String(contentsOf: folder.appendingPathComponent("sedan.dbc"), encoding: .utf8)
        let plain = " SG_ FuelLevel : 16|8@1+ (0.5,0) [0|100] \"%\" HeadUnit\n SG_ DistanceRemaining : 24|16@1+ (1,0) [0|2000] \"km\" HeadUnit"
        let pages =
            " SG_ Page M : 12|4@1+ (1,0) [0|15] \"\" HeadUnit\n SG_ FuelLevel m1 : 16|8@1+ (0.5,0) [0|100] \"%\" HeadUnit\n"
            + " SG_ DistanceRemaining m2 : 16|16@1+ (1,0) [0|2000] \"km\" HeadUnit"
        let range = try #require(dbc.range(of: plain))
        dbc.replaceSubrange(range, with: pages)
        let files = ["sedan/profile.json": Array(json.utf8), "sedan/sedan.dbc": Array(dbc.utf8)]
        let profile = try ProfileLoader.load(directory: "sedan") { files[$0] }
        let rig = try await Rig.start(profile: profile, state: [.fuelPercent: .number(40), .distanceRemaining: .number(420)])
        try await stopping(rig) { rig in
            let power = try await rig.perform(#"{"intent":"GetCarPowerLevelStatus","parameters":{}}"#)
            #expect(power.response.code == .success, "\(power.response)")
            #expect(power.state[.fuelPercent] == .number(40))
            #expect(power.state[.distanceRemaining] == .number(420))
        }
    }
}

/// Issue 25, item 4: one property, several signals. The GM remote-climate request sends
/// the set point on its left and right request signals, with the "HMI active" bit beside
/// it, and the car confirms through its own status.
@Suite struct FanOutCommandEngineTests {
    @Test func theSetPointGoesToBothRequestsWithItsCompanion() async throws {
        let rig = try await Rig.start(profile: try GroupSignalCarTests.profile())
        try await stopping(rig) { rig in
            let result = try await rig.perform(
                #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":23,"unit":"celsius"},"climateZone":"driver"}}"#)
            #expect(result.response.code == .success, "\(result.response)")
            #expect(rig.vehicle.state()[.temperature(zone: "front")] == .number(23))
            let message = try #require(rig.engine.profile.database.message(named: "Remote_Climate_Control_Req_LS"))
            let sent = result.frames.filter { $0.frame.id == message.canID }
            #expect(sent.count == 1, "\(result.frames)")
            let pairs = try message.codec.decode(try #require(sent.first).frame.data)
            let decoded = Dictionary(pairs.map { ($0.name, $0.value.doubleValue) }, uniquingKeysWith: { first, _ in first })
            #expect(decoded["RmClmCtrlLtSTempStReq"] == 16, "(23 - 15) / 0.5")
            #expect(decoded["RmClmCtrlRtSTempStReq"] == 16)
            #expect(decoded["RmClmCtrlHMIActIndReq"] == 1)
        }
    }
}
