import CANBus
import CANKit
import CarIntents
import CarplayJSON
import Testing
import Varlink
@testable import CarplayDaemon

/// The Handle/Perform reply is written straight into bytes; it must be the bytes the
/// generic serializer gives for the same parameters.
@Suite struct OutcomeReplyTests {
    @Test(arguments: [false, true]) func equalsTheGenericSerialization(withResolutions: Bool) throws {
        let frames = [
            ReceivedFrame(frame: try CANFrame(id: CANID(standard: 0x300), data: [0x7F, 0xF0, 0x1B]), timestamp: CandumpTimestamp(seconds: 1_700_000_000, microseconds: 80050), interface: "vcan0"),
            ReceivedFrame(frame: try CANFrame(id: CANID(extended: 0x18A0_2020), data: Array(0..<12), kind: .fd(bitRateSwitch: true, errorStateIndicator: false)), timestamp: CandumpTimestamp(seconds: 1_700_000_000, microseconds: 80164), interface: "odd\"name"),
        ]
        let response = IntentResponse(code: .failure, reason: "timeout", fields: ["detail": .string("no status frame")])
        let resolutions: JSONValue = ["temperature": ["kind": "success", "value": 22.5], "climateZone": ["kind": "notRequired"]]
        let state = Array(#"{"climate.fan":true,"radio.frequency":102.2}"#.utf8)
        var parameters: [String: JSONValue] = ["response": response.jsonValue, "frames": .array(frames.map { .string($0.logLine) })]
        if withResolutions { parameters["resolutions"] = resolutions }
        let expected = VarlinkReply(parameters: parameters).serialized(adding: "state", raw: state)
        let written = VehicleService.outcomeReply(frames: frames, resolutions: withResolutions ? .some(resolutions) : .none, response: response, state: state)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(written.last == 0)
    }

    @Test func noFrames() {
        let response = IntentResponse(code: .success, reason: nil, fields: [:])
        let written = VehicleService.outcomeReply(frames: [], resolutions: nil, response: response, state: Array("{}".utf8))
        #expect(String(decoding: written.dropLast(), as: UTF8.self) == #"{"parameters":{"frames":[],"response":{"code":"success"},"state":{}}}"#)
    }
}
