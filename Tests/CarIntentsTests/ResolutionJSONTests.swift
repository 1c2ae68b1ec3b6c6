import CarplayJSON
import Testing

@testable import CarIntents

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

    @Test func aMissingMemberIsNamedByItsPath() {
        let node = JSONNode(value: ["temperature": ["kind": "needsValue"]], file: "Resolve")
        #expect(throws: JSONContentError(file: "Resolve", path: "temperature.reason", reason: "missing required key \"reason\"")) {
            try ResolutionResult(json: node.object().required("temperature"))
        }
        #expect(throws: JSONContentError.self) { try ResolutionResult(json: JSONNode(value: ["kind": "maybe"], file: "Resolve")) }
    }
}
