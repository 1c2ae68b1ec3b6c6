import Foundation

/// Where the tests find their inputs. Missing inputs fail the test that needs them:
/// nothing is skipped silently.
enum TestPaths {
    static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// ../shared/dbc-corpus/cantools-tests, or CARPLAYD_DBC_CORPUS.
    static var dbcCorpus: URL {
        if let path = ProcessInfo.processInfo.environment["CARPLAYD_DBC_CORPUS"] { return URL(fileURLWithPath: path) }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/dbc-corpus/cantools-tests")
    }

    static func corpusFiles() throws -> [URL] {
        let names = try FileManager.default.contentsOfDirectory(atPath: dbcCorpus.path)
        return names.filter { $0.hasSuffix(".dbc") }.sorted().map { dbcCorpus.appendingPathComponent($0) }
    }

    /// The project's own DBC files (one per vehicle profile).
    static func profileDBCFiles() -> [URL] {
        let profiles = repositoryRoot.appendingPathComponent("VehicleProfiles")
        guard let enumerator = FileManager.default.enumerator(atPath: profiles.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".dbc") }.sorted().map { profiles.appendingPathComponent($0) }
    }

    static func bytes(_ url: URL) throws -> [UInt8] {
        Array(try Data(contentsOf: url))
    }
}
