import CANKit
import Foundation
import TestSupport
import Testing

@testable import VehicleKit

/// Messages whose signals overlap: GMLAN's "group" signals (a `...Group` container over a
/// value and its validity bit `...V`), on the real GM Global A low-speed DBC
/// (VehicleProfiles/gm-global-a-lowspeed). Reading a status never needs the encoder; a frame writes
/// the signals the profile names, and only those may not share a bit.
@Suite struct OverlappingSignalTests {
    static let gmDBC = "gm_global_a_lowspeed_1818125.dbc"

    /// Tests/Fixtures/gm-lowspeed: a set point and the fuel level read beside group
    /// signals, the door-lock request sent on a message with group signals.
    static func gm() throws -> ProfileFixture {
        try ProfileFixture(fixture: "gm-lowspeed", dbc: "../../../VehicleProfiles/gm-global-a-lowspeed/\(gmDBC)")
    }

    /// Issue 25, 10c: a read-only temperature in a message with group signals was refused
    /// as "16 °C cannot be carried by signal \"ClmtCtrlTrgtTemp\" ...", the overlap of two
    /// other signals of the message named last. Reading it needs no encoder.
    @Test func aStatusInAMessageWithGroupSignalsIsNoRangeProblem() throws {
        var gm = try Self.gm()
        // The temperature read-only, as it was bound when this was found: its command
        // (the fixture's first) goes.
        let start = try #require(gm.json.range(of: #""command": {"#))
        let end = try #require(gm.json.range(of: #""status": {"message": "Climate_Control_General_Status""#))
        gm.json.replaceSubrange(start.lowerBound..<end.lowerBound, with: "")
        let profile = try gm.load()
        #expect(profile.isReadOnly(.temperature(zone: "front")))
        #expect(profile.bindings[.temperature(zone: "front")]?.status == SignalReference(message: "Climate_Control_General_Status", signal: "ClmtCtrlTrgtTemp"))
        #expect(profile.isReadOnly(.fuelPercent))
    }

    /// Issue 25, 10c: written signals that collide are reported as what they are, at the
    /// path that writes the second one, never as a range the signal cannot carry.
    @Test func anOverlapOfWrittenSignalsLeadsTheError() throws {
        var sedan = try ProfileFixture("sedan")
        // A container over both temperature setpoints, as GMLAN groups a value and its validity.
        try sedan.dbc(
            " SG_ TargetTempLeft : 16|8@1+ (0.5,10) [10|42] \"degC\" ClimateECU",
            " SG_ TempGroup : 16|16@1+ (1,0) [0|0] \"\" ClimateECU\n SG_ TargetTempLeft : 16|8@1+ (0.5,10) [10|42] \"degC\" ClimateECU")
        // Nobody writes the container: it is left out of the frames.
        #expect(throws: Never.self) { try sedan.load() }
        // Writing it too is the error, leading with the overlap.
        try sedan.json(
            "\"ClimateCommand\": {\"protection\"", "\"ClimateCommand\": {\"defaults\": {\"TempGroup\": 0}, \"protection\"")
        sedan.expectError(
            path: "messages[\"ClimateCommand\"].defaults[\"TempGroup\"]", "\"TempGroup\" shares bits with signal \"TargetTempLeft\"",
            "bindings[\"climate.temperature.left\"].command.signal")
        do {
            _ = try sedan.load()
        } catch {
            #expect(!error.reason.contains("cannot be carried"), "\(error)")
        }
    }
    @Test func theGMBusGroupsItsSignals() throws {
        let database = try DBCDatabase(parsing: TestPaths.bytes(TestPaths.realDBC(Self.gmDBC)), source: Self.gmDBC)
        #expect(database.messages.count == 367)
        #expect(database.messages.filter(\.codec.hasOverlappingSignals).count == 177)
    }

    /// The simulated car writes a bound status beside group signals (the group and its
    /// validity bit, which nothing names, are left out), and the head unit reads it.
    @Test func aStatusBesideGroupSignalsIsSentAndRead() throws {
        let profile = try Self.gm().load()
        let frames = VehicleFrames(profile: profile)
        let state = VehicleState([.fuelPercent: .number(50), .temperature(zone: "front"): .number(21.5)])
        var counters: [String: UInt8] = [:]
        var checkers: [String: FrameChecker] = [:]
        for (message, key) in [("Fuel_Information", PropertyKey.fuelPercent), ("Climate_Control_General_Status", .temperature(zone: "front"))] {
            let frame = try frames.statusFrame(message, state: state, counters: &counters)
            guard case let .status(_, values, _) = frames.decodeFromVehicle(frame, checkers: &checkers) else {
                Issue.record("\(message) is not read as a status")
                continue
            }
            let expected = try #require(frames.reportedValue(state[key]!, for: key))
            #expect(values[key] == expected)
        }
        let fuel = try frames.statusFrame("Fuel_Information", state: state, counters: &counters)
        let decoded = try Self.signals(fuel, "Fuel_Information", profile)
        // FlLvlPct (byte 1) carries 50 %; its validity bit FlLvlPctV (bit 0 of byte 0) says
        // valid; the group over both, named by nothing, is left out.
        #expect(decoded["FlLvlPctV"] == .integer(0))
        // The group reads both by position: V as its top bit, then the value's byte.
        #expect(decoded["FlLvlPctGroup"] == .integer(Int128(fuel.data[1])))
        #expect(decoded["FlLvlPct"]?.doubleValue == frames.reportedValue(.number(50), for: .fuelPercent)?.doubleValue)
    }

    /// A command message with group signals: the frame writes the bound request and the
    /// defaults; the container over them, named by nothing, is left out.
    @Test func aCommandBesideGroupSignalsWritesWhatTheProfileNames() throws {
        var gm = try Self.gm()
        try gm.json(
            #""Column_Lock_Status_2": {"cycleTimeMs": 1000}"#,
            #""Column_Lock_Status_2": {"cycleTimeMs": 1000}, "Door_Lock_Command": {"defaults": {"CLRAF_DD": 1}}"#)
        let profile = try gm.load()
        let frames = VehicleFrames(profile: profile)
        var counters: [String: UInt8] = [:]
        let sent = try frames.commandFrames(for: [.locked: .bool(true)], counters: &counters)
        try #require(sent.count == 1)
        let decoded = try Self.signals(sent[0], "Door_Lock_Command", profile)
        #expect(decoded["CLRAF_Unl_Lk"] == .integer(2))
        #expect(decoded["CLRAF_DD"] == .integer(1))
        #expect(decoded["CLRAF_PD"] == .integer(0))
        // The simulated car, on the other side, reads the request.
        var checkers: [String: FrameChecker] = [:]
        var latches: [String: [Int128]] = [:]
        guard case let .command(command) = frames.decodeFromHeadUnit(sent[0], checkers: &checkers, latches: &latches) else {
            Issue.record("the lock command is not read")
            return
        }
        #expect(command.changes == [.locked: .bool(true)])
    }

    /// Written signals that share a bit: refused, naming both signals and where each is named.
    @Test func writtenSignalsThatShareABitAreRefused() throws {
        var gm = try Self.gm()
        try gm.json(
            #""Column_Lock_Status_2": {"cycleTimeMs": 1000}"#,
            #""Column_Lock_Status_2": {"cycleTimeMs": 1000}, "Door_Lock_Command": {"defaults": {"CntrlLckRqwExtActFun": 0}}"#)
        gm.expectError(
            path: #"messages["Door_Lock_Command"].defaults["CntrlLckRqwExtActFun"]"#,
            #"signal "CntrlLckRqwExtActFun" shares bits with signal "CLRAF_Unl_Lk" (bindings["lock.locked"].command.signal) in message "Door_Lock_Command""#,
            "the head unit would write both")
    }

    static func signals(_ frame: CANFrame, _ message: String, _ profile: VehicleProfile) throws -> [String: SignalValue] {
        let codec = try #require(profile.database.message(named: message)).codec
        return Dictionary(uniqueKeysWithValues: try codec.decode(frame.data).map { ($0.name, $0.value) })
    }
}
