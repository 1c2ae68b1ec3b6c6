import Foundation
import Testing

/// `carplayctl profile import-kuksa MAPPING DBC --out DIR`: a KUKSA CAN provider mapping
/// becomes a folder `profile check` accepts, whose statuses the simulated car confirms.
@Suite struct ProfileImportCommandTests {
    @Test func anImportedProfileChecksAndReadsTheCar() async throws {
        let root = CarplayctlTests.repositoryRoot
        let mapping = root.appendingPathComponent("Tests/Fixtures/kuksa/sedan_vss_dbc.json").path
        let dbc = root.appendingPathComponent("VehicleProfiles/sedan/sedan.dbc").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("carplayctl-import-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let imported = try await CarplayctlTests.runOffThePool(["profile", "import-kuksa", mapping, dbc, "--out", out.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("7 entries found, 4 taken, 3 not taken (IMPORT.md)"), "\(imported.stdout)")
        #expect(imported.stdout.contains("lock.locked  BodyStatus.Lock  <- Vehicle.Cabin.Door.Row1.DriverSide.IsLocked"), "\(imported.stdout)")
        let report = try String(contentsOf: out.appendingPathComponent("IMPORT.md"), encoding: .utf8)
        #expect(report.contains("## Not taken") && report.contains("signal NoSuchSignal is in no message of the DBC"), "\(report)")
        let check = try await CarplayctlTests.runOffThePool(["profile", "check", out.path])
        #expect(check.status == 0 && check.stdout.hasSuffix("ok\n"), "\(check.stdout)\(check.stderr)")
        // The simulated car's status frames carry what the imported table reads.
        let lock = try await CarplayctlTests.runOffThePool([
            "perform", "--simulate", out.path, #"{"intent":"GetCarLockStatus"}"#, "--state", #"{"lock.locked":true}"#,
        ])
        #expect(lock.status == 0 && lock.stdout.contains(#""response":{"code":"success","locked":true}"#), "\(lock.stdout)\(lock.stderr)")
        let again = try await CarplayctlTests.runOffThePool(["profile", "import-kuksa", mapping, dbc, "--out", out.path])
        #expect(again.status == 2 && again.stderr.contains("exists: import into a new folder"), "\(again.stderr)")
    }

    @Test func aBrokenMappingSaysWhereAndWritesNothing() async throws {
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).json")
        try Data(#"{"Vehicle": {"children": {"#.utf8).write(to: bad)
        defer { try? FileManager.default.removeItem(at: bad) }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("carplayctl-import-\(UUID().uuidString)")
        let dbc = CarplayctlTests.repositoryRoot.appendingPathComponent("VehicleProfiles/sedan/sedan.dbc").path
        let result = try await CarplayctlTests.runOffThePool(["profile", "import-kuksa", bad.path, dbc, "--out", out.path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("\(bad.path): not valid JSON"), "\(result.stderr)")
        #expect(!result.stderr.contains("usage"), "no usage after a data error")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
