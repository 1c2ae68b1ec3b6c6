import Foundation

/// Where the tests find their inputs. Missing inputs fail the test that needs them:
/// nothing is skipped silently.
public enum TestPaths {
    /// The folder holding Package.swift, found from this file's path.
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// A file or folder of the repository, e.g. "docs/io.carplayd.Vehicle.varlink".
    public static func repository(_ relativePath: String) -> URL {
        repositoryRoot.appendingPathComponent(relativePath)
    }

    /// cantools' test DBC files: CARPLAYD_DBC_CORPUS, else ../shared/dbc-corpus/cantools-tests
    /// beside the repository, else the copy scripts/test.sh downloaded into
    /// .build/dbc-corpus/cantools-tests (the order scripts/test.sh uses).
    public static var dbcCorpus: URL {
        if let path = ProcessInfo.processInfo.environment["CARPLAYD_DBC_CORPUS"] { return URL(fileURLWithPath: path) }
        let shared = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/dbc-corpus/cantools-tests")
        if FileManager.default.fileExists(atPath: shared.path) { return shared }
        return repository(".build/dbc-corpus/cantools-tests")
    }

    public static func corpusFiles() throws -> [URL] {
        let names = try FileManager.default.contentsOfDirectory(atPath: dbcCorpus.path)
        return names.filter { $0.hasSuffix(".dbc") }.sorted().map { dbcCorpus.appendingPathComponent($0) }
    }

    /// The path of one corpus file, or nil when it is missing (the caller fails on it).
    public static func corpusFile(_ name: String) -> String? {
        let url = dbcCorpus.appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: url.path) ? url.path : nil
    }

    /// The project's own DBC files (one per vehicle profile).
    public static func profileDBCFiles() -> [URL] {
        let profiles = repository("VehicleProfiles")
        guard let enumerator = FileManager.default.enumerator(atPath: profiles.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".dbc") }.sorted().map { profiles.appendingPathComponent($0) }
    }

    /// A production car's DBC, as a shipped profile keeps it (byte for byte
    /// commaai/opendbc's, MIT: VehicleProfiles/SHA256SUMS, LICENSE.opendbc beside it), so
    /// the repository tests it without ../shared.
    public static func realDBC(_ name: String) -> URL {
        profileDBCFiles().first { $0.lastPathComponent == name } ?? repository("VehicleProfiles/\(name)")
    }

    public static func bytes(_ url: URL) throws -> [UInt8] {
        Array(try Data(contentsOf: url))
    }
}

/// Runs blocking code (a client call, a child process) on a thread of its own: the
/// server's connection tasks need the cooperative pool (two threads on a two-core
/// machine), which a blocked test would hold.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
