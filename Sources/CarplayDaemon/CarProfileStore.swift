import CarIntents
import CarplayJSON
import LinuxSupport

/// Saved car profiles, one JSON file per vehicle in the state directory, replaced
/// atomically so a crash leaves the old or the new file.
public struct CarProfileStore: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    public func path(profile: String) -> String { directory + "/car-profiles-\(profile).json" }

    /// The saved profiles; none when there is no file yet or it cannot be read.
    public func load(profile: String) -> [SavedCarProfile] {
        let file = path(profile: profile)
        guard let bytes = try? FileDescriptor.readFile(atPath: file) else { return [] }
        return (try? SavedCarProfile.list(parsing: bytes, file: file)) ?? []
    }

    public func save(_ profiles: [SavedCarProfile], profile: String) throws {
        try FileSystem.makeDirectories(directory, mode: 0o700)
        let bytes = JSONValue.array(profiles.map(\.jsonValue)).serializedBytes() + [0x0A]
        try FileSystem.writeAtomically(bytes, to: path(profile: profile), mode: 0o600)
    }
}
