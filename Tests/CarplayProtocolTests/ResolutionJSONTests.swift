import CANBus
import CANKit
import CarIntents
import CarplayJSON
import Testing
import VehicleKit

@testable import CarplayProtocol

/// A resolution's JSON form reads back as the result that wrote it (clients of the
/// daemon read what its resolvers wrote).
@Suite struct ResolutionJSONTests {
    static let results: [ResolutionResult] = [
        .success(["value": 21.5, "unit": "celsius"]), .disambiguation(["Jazz FM", "Jazz FM Classics"]),
        .confirmationRequired(["value": 28.0, "unit": "celsius"], reason: "30 °C is above the maximum 28 °C"),
        .needsValue(reason: "which seat?"), .notRequired, .unsupported(reason: "this car has no massage"),
    ]

    @Test func everyKindReadsBack() throws {
        #expect(Set(Self.results.map(\.kind)) == Set(ResolutionKind.allCases))
        for result in Self.results {
            #expect(try ResolutionResult(json: JSONNode(value: result.jsonValue, file: "test")) == result)
        }
    }

    /// The bytes written straight (every reply's resolutions) are what the generic
    /// writer gives for the same object: members in its order.
    @Test func writtenBytesAreTheGenericSerialization() {
        for result in Self.results {
            var bytes: [UInt8] = []
            result.appendJSON(to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == result.jsonValue.serialized())
        }
        var bytes: [UInt8] = []
        ResolutionResult.confirmationRequired(22, reason: "r").appendJSON(to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"kind":"confirmationRequired","reason":"r","value":22}"#)
    }

    /// A reply's resolutions, through each intent's layout (its parameters in SiriKit
    /// order) and through one made for other parameters: the generic serialization.
    @Test(arguments: IntentName.allCases) func resolutionsAreTheGenericSerialization(intent: IntentName) throws {
        let names = Intent.parameterNames(of: intent)
        let results = names.indices.map { Self.results[$0 % Self.results.count] }
        for parameters in [Array(zip(names, results)), Array(zip(names, results)).reversed()] {
            let resolution = IntentResolution(
                intent: try Intent(named: intent.rawValue, parameters: .null), parameters: parameters.map { ($0.0, $0.1) }, action: nil)
            let outcome = IntentOutcome(
                phase: .resolve, resolution: resolution, response: IntentResponse(code: .ready), refusal: nil,
                frames: [], state: VehicleState(), stateVersion: 0)
            let generic = JSONValue.object(Dictionary(uniqueKeysWithValues: parameters.map { ($0.0, $0.1.jsonValue) }))
            #expect(String(decoding: outcome.resolutionsJSON(), as: UTF8.self) == generic.serialized())
        }
    }

    /// A reply's frames, written straight into their strings: the generic serialization
    /// of their candump lines, also for an interface whose name needs escaping.
    @Test func framesAreTheGenericSerialization() throws {
        let frame = try CANFrame(id: CANID(standard: 0x3A0), data: [0x2D, 0x00])
        let frames = ["vcan0", "can\"1", "can\\2", "bus é"].enumerated().map { index, interface in
            ReceivedFrame(frame: frame, timestamp: CandumpTimestamp(seconds: 1_700_000_000 + Int64(index), microseconds: 100), interface: interface)
        }
        let outcome = IntentOutcome(
            phase: .handle, resolution: IntentResolution(intent: try Intent(named: "SetClimateSettingsInCar", parameters: .null), parameters: [], action: nil),
            response: IntentResponse(code: .success), refusal: nil, frames: frames, state: VehicleState(), stateVersion: 0)
        let generic = JSONValue.array(frames.map { .string($0.logLine) })
        #expect(String(decoding: outcome.framesJSON(), as: UTF8.self) == generic.serialized())
        #expect(String(decoding: outcome.framesJSON(), as: UTF8.self).hasPrefix(#"["(1700000000.000100) vcan0 3A0#2D00","#))
    }

    @Test func aMissingMemberIsNamedByItsPath() {
        let node = JSONNode(value: ["temperature": ["kind": "needsValue"]], file: "Resolve")
        #expect(throws: JSONContentError(file: "Resolve", path: "temperature.reason", reason: "missing required key \"reason\"")) {
            try ResolutionResult(json: node.object().required("temperature"))
        }
        #expect(throws: JSONContentError.self) { try ResolutionResult(json: JSONNode(value: ["kind": "maybe"], file: "Resolve")) }
    }
}
