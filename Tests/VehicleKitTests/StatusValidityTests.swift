import CANKit
import Foundation
import TestSupport
import Testing

@testable import VehicleKit

/// `status.valid`: a status value trusted only while its qualifier (GMLAN's validity bit
/// `FlLvlPctV`, 0 = valid) says so, on Tests/Fixtures/gm-lowspeed.
@Suite struct StatusValidityTests {
    static func fuelFrame(_ frames: VehicleFrames, _ state: VehicleState) throws -> CANFrame {
        var counters: [String: UInt8] = [:]
        return try frames.statusFrame("Fuel_Information", state: state, counters: &counters)
    }

    static func read(_ frames: VehicleFrames, _ frame: CANFrame) -> (values: [PropertyKey: PropertyValue], unreadable: [PropertyKey: String])? {
        var checkers: [String: FrameChecker] = [:]
        guard case let .status(_, values, unreadable) = frames.decodeFromVehicle(frame, checkers: &checkers) else { return nil }
        return (values, unreadable)
    }

    @Test func theQualifierIsLoaded() throws {
        let profile = try OverlappingSignalTests.gm().load()
        #expect(
            profile.bindings[.fuelPercent]?.validity
                == StatusValidity(signal: SignalReference(message: "Fuel_Information", signal: "FlLvlPctV"), valid: [.raw(0)]))
    }

    /// The simulated car says valid while it knows the level, invalid before; the head
    /// unit reads the level only while the bit says valid, and otherwise says why not.
    @Test func aValueIsReadOnlyWhileItsQualifierSaysValid() throws {
        let frames = VehicleFrames(profile: try OverlappingSignalTests.gm().load())
        let known = try Self.fuelFrame(frames, VehicleState([.fuelPercent: .number(50)]))
        #expect(known.data[0] & 1 == 0, "FlLvlPctV = 0: valid")
        let read = try #require(Self.read(frames, known))
        #expect(read.values[.fuelPercent] == frames.reportedValue(.number(50), for: .fuelPercent))
        #expect(read.unreadable.isEmpty)

        // The same level with the bit set: not trusted.
        var flagged = known.data
        flagged[0] |= 1
        let untrusted = try #require(Self.read(frames, try CANFrame(id: known.id, data: flagged)))
        #expect(untrusted.values[.fuelPercent] == nil)
        #expect(untrusted.unreadable == [.fuelPercent: "FlLvlPctV = 1 says the value is not valid (valid: 0)"])

        // A car that does not know its level says so.
        let unknown = try Self.fuelFrame(frames, VehicleState())
        #expect(unknown.data[0] & 1 == 1, "FlLvlPctV = 1 while the level is unknown")
        #expect(Self.read(frames, unknown)?.unreadable[.fuelPercent] != nil)
    }

    @Test func theQualifierIsAnotherSignalOfTheMessage() throws {
        var gm = try OverlappingSignalTests.gm()
        try gm.json(#""signal": "FlLvlPctV", "values": [0]"#, #""signal": "FlLvlPct", "values": [0]"#)
        gm.expectError(path: #"bindings["power.fuelPercent"].status.valid.signal"#, #""FlLvlPct" is the status signal itself"#)

        gm = try OverlappingSignalTests.gm()
        try gm.json(#""signal": "FlLvlPctV", "values": [0]"#, #""signal": "FlLvlPctGroup", "values": [0]"#)
        gm.expectError(
            path: #"bindings["power.fuelPercent"].status.valid.signal"#,
            #"signal "FlLvlPctGroup" shares bits with the status signal "FlLvlPct""#)

        gm = try OverlappingSignalTests.gm()
        try gm.json(#""signal": "FlLvlPctV", "values": [0]"#, #""signal": "BatVltV", "values": [0]"#)
        gm.expectError(path: #"bindings["power.fuelPercent"].status.valid.signal"#, #"no signal "BatVltV" in message "Fuel_Information""#)
    }

    @Test func theValidValuesFitTheQualifier() throws {
        var gm = try OverlappingSignalTests.gm()
        try gm.json(#""values": [0]}"#, #""values": [2]}"#)
        gm.expectError(path: #"bindings["power.fuelPercent"].status.valid.values[0]"#, "raw value 2 does not fit the 1 bits of signal \"FlLvlPctV\"")

        gm = try OverlappingSignalTests.gm()
        try gm.json(#""values": [0]}"#, #""values": []}"#)
        gm.expectError(path: #"bindings["power.fuelPercent"].status.valid.values"#, "name the raw values that say the status is valid")

        gm = try OverlappingSignalTests.gm()
        try gm.json(#""values": [0]}"#, #""values": [0], "invalid": [1]}"#)
        gm.expectError(path: #"bindings["power.fuelPercent"].status.valid.invalid"#, "unknown key")
    }
}

/// Issue 25, item 7: extensions are status only.
@Suite struct ExtensionKeyTests {
    @Test func anExtensionTakesNoCommand() throws {
        var gm = try OverlappingSignalTests.gm()
        try gm.json(
            #""power.fuelPercent": {"#,
            #""extension.outsideTemperature": {"command": {"kind": "setpoint", "message": "Door_Lock_Command", "signal": "CLRAF_Unl_Lk"}, "status": {"message": "Fuel_Information", "signal": "FlLvlPct"}}, "power.fuelPercent": {"#
        )
        gm.expectError(path: #"bindings["extension.outsideTemperature"].command"#, "extension.outsideTemperature is status only")
    }

    @Test func anExtensionTakesAUnit() throws {
        var gm = try OverlappingSignalTests.gm()
        try gm.json(
            #""power.fuelPercent": {"#,
            #""extension.outsideTemperature": {"status": {"message": "Analog_Values_Slow_LS", "signal": "EngIntAirTmp", "unit": "fahrenheit"}}, "power.fuelPercent": {"#
        )
        // A temperature signal that carries -20...40 °C in °F (the range check's values).
        try gm.json(#""messages": {"#, #""messages": {"Analog_Values_Slow_LS": {"cycleTimeMs": 1000}, "#)
        let profile = try gm.load()
        #expect(profile.bindings[.outsideTemperature]?.statusValues.linear == LinearTransform.converting(from: "fahrenheit"))
        #expect(profile.isReadOnly(.outsideTemperature))
    }
}
