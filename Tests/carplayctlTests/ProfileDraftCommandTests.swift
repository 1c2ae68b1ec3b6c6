import Foundation
import Testing

/// `carplayctl profile draft DBC --out DIR`: a folder `profile check` accepts.
@Suite struct ProfileDraftCommandTests {
    @Test func aDraftFolderPassesCheckAndIsNeverOverwritten() async throws {
        let dbc = CarplayctlTests.repositoryRoot.appendingPathComponent("VehicleProfiles/toyota-2017/_toyota_2017.dbc").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("carplayctl-draft-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let draft = try await CarplayctlTests.runOffThePool(["profile", "draft", dbc, "--out", out.path])
        #expect(draft.status == 0, "\(draft.stderr)")
        #expect(draft.stdout.contains("defroster.front  AIR_CONDITIONER_2.WINDSCREEN_DEFOG"), "\(draft.stdout)")
        #expect(draft.stdout.contains("lock.locked  DOOR_LOCKS.LOCK_STATUS"), "\(draft.stdout)")
        for file in ["profile.json", "DRAFT.md", "_toyota_2017.dbc"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(file).path), "\(file)")
        }
        let report = try String(contentsOf: out.appendingPathComponent("DRAFT.md"), encoding: .utf8)
        #expect(report.contains("## Bound (read-only)") && report.contains("1000 ms assumed"), "\(report)")
        let check = try await CarplayctlTests.runOffThePool(["profile", "check", out.path])
        #expect(check.status == 0 && check.stdout.hasSuffix("ok\n"), "\(check.stdout)\(check.stderr)")
        let again = try await CarplayctlTests.runOffThePool(["profile", "draft", dbc, "--out", out.path])
        #expect(again.status == 2 && again.stderr.contains("exists: draft into a new folder, nothing is overwritten"), "\(again.stderr)")
        let role = try await CarplayctlTests.runOffThePool(["profile", "draft", dbc, "--out", out.path + "-x", "--role", "NOPE"])
        #expect(role.status == 2 && role.stderr.contains("has no node NOPE"), "\(role.stderr)")
    }

    /// "N properties bound" is what profile.json binds: the fan's on/off that a fan level
    /// brings with it is counted and listed (it said 8 and wrote 9).
    @Test func theSummaryCountsWhatTheFileBinds() async throws {
        let dbc = CarplayctlTests.repositoryRoot.appendingPathComponent("VehicleProfiles/gm-global-a-lowspeed/gm_global_a_lowspeed_1818125.dbc").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("carplayctl-draft-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let draft = try await CarplayctlTests.runOffThePool(["profile", "draft", dbc, "--out", out.path])
        #expect(draft.status == 0, "\(draft.stderr)")
        let profile = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("profile.json"))) as? [String: Any]
        let bindings = (profile?["bindings"] as? [String: Any])?.keys.sorted() ?? []
        #expect(bindings.contains("climate.fan") && bindings.contains("climate.fanSpeed"), "\(bindings)")
        #expect(draft.stdout.contains(": \(bindings.count) properties bound read-only"), "\(draft.stdout)")
        for key in bindings { #expect(draft.stdout.contains("\n  \(key)  "), "\(key) not listed: \(draft.stdout)") }
        let report = try String(contentsOf: out.appendingPathComponent("DRAFT.md"), encoding: .utf8)
        #expect(report.contains("| `climate.fan` | `Climate_Control_Basic_Status_LS.ClmCntFrBlwFnSp` |"), "\(report)")
    }
}
