import Foundation
import Testing

/// `carplayctl dbc diff` on the example logs of docs/CLI.md (docs/examples/dbc-diff: a
/// Toyota bus before and after the windscreen defogger was switched on).
@Suite struct DBCDiffTests {
    static var dbc: String { CarplayctlTests.repositoryRoot.appendingPathComponent("VehicleProfiles/toyota-2017/_toyota_2017.dbc").path }
    static func log(_ name: String) -> String { CarplayctlTests.repositoryRoot.appendingPathComponent("docs/examples/dbc-diff/\(name)").path }

    @Test func theDefoggerComesFirst() async throws {
        let result = try await CarplayctlTests.runOffThePool(["dbc", "diff", Self.dbc, Self.log("before.log"), Self.log("after.log")])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "3 signals changed (180 frames before, 180 after)", "\(result.stdout)")
        #expect(lines.count > 2 && lines[2].hasPrefix("1  flip   0.91   AIR_CONDITIONER_2  WINDSCREEN_DEFOG  0 -> 1"), "\(result.stdout)")
    }

    @Test func jsonForScripts() async throws {
        let result = try await CarplayctlTests.runOffThePool(["dbc", "diff", "--json", Self.dbc, Self.log("before.log"), Self.log("after.log")])
        #expect(result.status == 0, "\(result.stderr)")
        let changes = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(changes.count == 3)
        #expect(changes.first?["signal"] as? String == "WINDSCREEN_DEFOG" && changes.first?["kind"] as? String == "flip")
        #expect(changes.first?["before"] as? [Int] == [0] && changes.first?["after"] as? [Int] == [1])
    }

    /// One log split at the moment of the press gives the same answer.
    @Test func oneLogSplitAtAMoment() async throws {
        let both = FileManager.default.temporaryDirectory.appendingPathComponent("dbc-diff-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: both) }
        let text = try String(contentsOfFile: Self.log("before.log"), encoding: .utf8) + String(contentsOfFile: Self.log("after.log"), encoding: .utf8)
        try text.write(to: both, atomically: true, encoding: .utf8)
        let result = try await CarplayctlTests.runOffThePool(["dbc", "diff", "--json", "--at", "1700000005", Self.dbc, both.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""signal":"WINDSCREEN_DEFOG""#))
        let outside = try await CarplayctlTests.runOffThePool(["dbc", "diff", "--at", "1800000000", Self.dbc, both.path])
        #expect(outside.status == 2 && outside.stderr.contains("no frames after 1800000000"), "\(outside.stderr)")
    }
}
