import Foundation
import TestSupport
import VehicleKit

/// A shipped profile read into memory and loaded as VehicleKitTests' fixture of the same
/// name loads it (only the loading: the broken copies are VehicleKitTests' business).
struct ProfileFixture {
    static var repositoryRoot: URL { TestPaths.repositoryRoot }

    let vehicle: String
    let files: [String: [UInt8]]

    init(_ vehicle: String) throws {
        self.vehicle = vehicle
        let folder = Self.repositoryRoot.appendingPathComponent("VehicleProfiles/\(vehicle)")
        let json = try String(contentsOf: folder.appendingPathComponent("profile.json"), encoding: .utf8)
        let dbc = try String(contentsOf: folder.appendingPathComponent("\(vehicle).dbc"), encoding: .utf8)
        files = ["\(vehicle)/profile.json": Array(json.utf8), "\(vehicle)/\(vehicle).dbc": Array(dbc.utf8)]
    }

    func load() throws(ProfileError) -> VehicleProfile {
        let files = self.files
        return try ProfileLoader.load(directory: vehicle) { files[$0] }
    }
}
