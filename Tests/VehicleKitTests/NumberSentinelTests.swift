import CANKit
import Foundation
import Testing

@testable import VehicleKit

/// Issue 25, item 5: numbers with sentinels and value tables. A set point signal whose
/// DBC names raw 0 "LO" and 254 "HI" (the car's bottom and top of the dial): the
/// profile maps them to the range's minimum and maximum; other raw values read as
/// numbers; a choice the profile does not map reads as no value, by its name.
@Suite struct NumberSentinelTests {
    static func sedanWithSentinels() throws -> ProfileFixture {
        var sedan = try ProfileFixture("sedan")
        try sedan.dbc(#"VAL_ 768 TargetTempLeft 255 "NoRequest" ;"#, #"VAL_ 768 TargetTempLeft 255 "NoRequest" 0 "LO" 254 "HI" ;"#)
        sedan.dbc += "\nVAL_ 1024 TargetTempLeft 0 \"LO\" 254 \"HI\" 253 \"NoValue\" ;\n"
        try sedan.json(
            #""signal": "TargetTempLeft", "idle": "NoRequest"}"#,
            #""signal": "TargetTempLeft", "idle": "NoRequest", "values": {"min": ["LO"], "max": ["HI"]}}"#)
        try sedan.json(
            #""status": {"message": "ClimateStatus", "signal": "TargetTempLeft"}"#,
            #""status": {"message": "ClimateStatus", "signal": "TargetTempLeft", "values": {"min": ["LO"], "max": ["HI"]}}"#)
        return sedan
    }

    static let left = PropertyKey.temperature(zone: "left")

    @Test func minAndMaxAreTheRangesEnds() throws {
        let profile = try Self.sedanWithSentinels().load()
        let binding = try #require(profile.bindings[Self.left])
        #expect(binding.statusValues.values == ["16": [.choice("LO")], "28": [.choice("HI")]])
    }

    /// The minimum is sent as LO and LO reads as the minimum; a value between reads as
    /// itself, through the signal's scale.
    @Test func theSentinelsTravelBothWays() throws {
        let frames = VehicleFrames(profile: try Self.sedanWithSentinels().load())
        func commandByte(_ celsius: Double) throws -> UInt8 {
            var counters: [String: UInt8] = [:]
            let sent = try frames.commandFrames(for: [Self.left: .number(celsius)], counters: &counters)
            return try #require(sent.first).data[2]
        }
        #expect(try commandByte(16) == 0, "LO")
        #expect(try commandByte(28) == 254, "HI")
        #expect(try commandByte(20) == 20, "(20 - 10) / 0.5")

        for celsius in [16.0, 20, 28] {
            var counters: [String: UInt8] = [:]
            let status = try frames.statusFrame("ClimateStatus", state: VehicleState([Self.left: .number(celsius)]), counters: &counters)
            var checkers: [String: FrameChecker] = [:]
            guard case let .status(_, values, _) = frames.decodeFromVehicle(status, checkers: &checkers) else {
                Issue.record("a status frame")
                return
            }
            #expect(values[Self.left] == .number(celsius))
            #expect(status.data[2] == (celsius == 16 ? 0 : celsius == 28 ? 254 : 20))
        }
    }

    /// A choice of the DBC that the profile does not map is no number: "NoValue" (253)
    /// does not read as 136.5 °C.
    @Test func anUnmappedChoiceIsNoNumber() throws {
        let profile = try Self.sedanWithSentinels().load()
        let message = try #require(profile.database.message(named: "ClimateStatus"))
        let signal = try #require(message.signal(named: "TargetTempLeft"))
        let codec = ValueCodec(kind: .number, mapping: try #require(profile.bindings[Self.left]).statusValues, signal: signal, codec: message.codec)
        #expect(codec.value(.choice("NoValue", raw: 253)) == nil)
        #expect(codec.value(.choice("LO", raw: 0)) == .number(16))
        #expect(codec.value(.float(21.5)) == .number(21.5))
    }

    /// A number read from a signal keeps the signal's precision: float noise of the decode
    /// (3 x 0.1 = 0.30000000000000004) never reaches the state (issue 35: a fuel level of
    /// 100.00000000000001 %, outside its 0...100).
    @Test func aDecodedNumberKeepsTheSignalsPrecision() throws {
        #expect(ValueCodec.decimals(of: 0.4) == 1 && ValueCodec.decimals(of: 1e-05) == 5 && ValueCodec.decimals(of: 100) == 0)
        #expect(ValueCodec.decimals(of: 0.392157) == 6 && ValueCodec.decimals(of: -40) == 0)
        let database = try DBCDatabase(parsing: "BO_ 1 Power: 8 X\n SG_ Fuel : 0|16@1+ (0.1,0) [0|100] \"%\" X\n")
        let message = try #require(database.message(named: "Power"))
        let signal = try #require(message.signal(named: "Fuel"))
        let codec = ValueCodec(kind: .number, mapping: ValueMapping(), signal: signal, codec: message.codec)
        #expect(3 * 0.1 != 0.3, "the float noise this is about")
        #expect(codec.value(.float(3 * 0.1)) == .number(0.3))
        #expect(codec.value(.float(1000 * 0.1 + 1e-12)) == .number(100))
    }

    @Test func aNumbersTableNamesNumbersOrTheRangesEnds() throws {
        var sedan = try Self.sedanWithSentinels()
        try sedan.json(#""values": {"min": ["LO"], "max": ["HI"]}}"#, #""values": {"lowest": ["LO"]}}"#)
        sedan.expectError(
            path: #"bindings["climate.temperature.left"].command.values["lowest"]"#, #""lowest" is not a value"#, #"a number, "min" or "max""#)

        sedan = try Self.sedanWithSentinels()
        try sedan.json(#""values": {"min": ["LO"], "max": ["HI"]}}"#, #""values": {"min": ["LO"], "16": ["HI"]}}"#)
        sedan.expectError(path: #"bindings["climate.temperature.left"].command.values["min"]"#, #""min" and "16" both name 16"#)

        // The cabin temperature has no range: "min" means nothing there.
        sedan = try ProfileFixture("sedan")
        try sedan.json(#""signal": "CabinTemperature""#, #""signal": "CabinTemperature", "values": {"min": [0]}"#)
        sedan.expectError(path: #"bindings["climate.cabinTemperature"].status.values["min"]"#, "climate.cabinTemperature has no range")
    }

    /// Without the mapping, a range end that encodes as a DBC choice is refused, and the
    /// error says how to map it.
    @Test func anUnmappedChoiceInTheRangeSaysHowToMapIt() throws {
        var sedan = try ProfileFixture("sedan")
        // 16 °C is raw 12: a DBC that names raw 12 makes 16 °C a choice.
        sedan.dbc += "\nVAL_ 1024 TargetTempLeft 12 \"Min\" ;\n"
        sedan.expectError(
            path: "climate.temperature.celsius", #"which is the choice "Min""#, #"map it: "values": {"16": "Min"}"#)
    }

    /// A boolean's advice names it as a mapping does ("false", not "0"), and doing what it
    /// says loads (it once advised {"0": [...]}, which the loader then refused).
    @Test func aBooleansAdviceIsWhatTheLoaderTakes() throws {
        var sedan = try ProfileFixture("sedan")
        let mapped = #""status": {"message": "ClimateStatus", "signal": "AirConditioner", "values": {"false": "Off", "true": "On"}}"#
        try sedan.json(mapped, #""status": {"message": "ClimateStatus", "signal": "AirConditioner"}"#)
        sedan.expectError(
            path: #"bindings["climate.airConditioner"]"#, #"map it: "values": {"false": "Off"}, and the other boolean value's choice beside it"#)
        try sedan.json(
            #""status": {"message": "ClimateStatus", "signal": "AirConditioner"}"#,
            #""status": {"message": "ClimateStatus", "signal": "AirConditioner", "values": {"false": "Off", "true": "On"}}"#)
        #expect(try sedan.load().bindings[.airConditioner] != nil)
    }

    /// A sentinel named by its raw number outside the DBC's range (the Hyundai C-CAN's HI,
    /// raw 254 = 141 °C in a [15|32] signal) loaded, then the simulated car could not send
    /// the range's end. The loader now says so, and what to write: name it as a choice.
    @Test func aRawSentinelOutsideTheDBCRangeIsNamedAsAChoice() throws {
        var sedan = try ProfileFixture("sedan")
        try sedan.json(
            #""status": {"message": "ClimateStatus", "signal": "TargetTempLeft"}"#,
            #""status": {"message": "ClimateStatus", "signal": "TargetTempLeft", "values": {"max": [254]}}"#)
        sedan.expectError(path: "climate.temperature.celsius", "28 °C is raw value 254", #""choices": {"TargetTempLeft": {"254": "…"}}"#)
    }
}
