import CANKit
import Testing

@testable import VehicleKit

/// A status mapping that names only some raw values and reads the rest through
/// `otherwise` (the guide's `{"false": "Off"}, "otherwise": true`): the simulated car must
/// still have a raw value for the `otherwise` value, or its status would say the opposite.
@Suite struct OtherwiseStatusTests {
    static func sedan(fanStatus: String, choices: Bool = true) throws -> VehicleFrames {
        var sedan = try ProfileFixture("sedan")
        if !choices { try sedan.dbc(#"VAL_ 1024 Fan 0 "Off" 1 "On" ;"#, "") }
        try sedan.json(
            #""status": {"message": "ClimateStatus", "signal": "Fan", "values": {"false": "Off", "true": "On"}}"#,
            #""status": {"message": "ClimateStatus", "signal": "Fan", \#(fanStatus)}"#)
        return VehicleFrames(profile: try sedan.load())
    }

    static func reported(_ frames: VehicleFrames, _ state: VehicleState) throws -> (PropertyValue?, UInt8) {
        var counters: [String: UInt8] = [:]
        let frame = try frames.statusFrame("ClimateStatus", state: state, counters: &counters)
        var checkers: [String: FrameChecker] = [:]
        guard case let .status(_, values, _) = frames.decodeFromVehicle(frame, checkers: &checkers) else {
            Issue.record("not a status frame")
            return (nil, 0)
        }
        return (values[.fan], frame.data[4] & 1)
    }

    /// The first choice the table leaves out carries the `otherwise` value ("On").
    @Test func anUnmappedChoiceCarriesTheOtherwiseValue() throws {
        let frames = try Self.sedan(fanStatus: #""values": {"false": "Off"}, "otherwise": true"#)
        let on = try Self.reported(frames, VehicleState([.fan: .bool(true)]))
        #expect(on.0 == .bool(true))
        #expect(on.1 == 1)
        let off = try Self.reported(frames, VehicleState([.fan: .bool(false)]))
        #expect(off.0 == .bool(false))
        #expect(off.1 == 0)
    }

    /// Without choices left, the smallest raw value the table leaves out.
    @Test func theSmallestUnmappedRawValueWithoutChoices() throws {
        let frames = try Self.sedan(fanStatus: #""values": {"false": 0}, "otherwise": true"#, choices: false)
        let on = try Self.reported(frames, VehicleState([.fan: .bool(true)]))
        #expect(on.0 == .bool(true))
        let inverted = try Self.sedan(fanStatus: #""values": {"true": 0}, "otherwise": false"#, choices: false)
        let off = try Self.reported(inverted, VehicleState([.fan: .bool(false)]))
        #expect(off.0 == .bool(false))
        #expect(off.1 == 1)
    }
}
