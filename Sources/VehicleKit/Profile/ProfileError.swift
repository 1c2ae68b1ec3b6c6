/// Why a vehicle profile cannot be used: the file, the place inside it (a JSON path
/// such as `bindings["seat.frontLeft.heating"].command.signal`) and the reason.
public struct ProfileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The profile's `profile.json` (errors in the DBC name it in `reason`, with the
    /// DBC's own file:line:column).
    public var file: String
    /// A JSON path into the profile; empty for the file as a whole.
    public var path: String
    public var reason: String

    public init(file: String, path: String, reason: String) {
        self.file = file
        self.path = path
        self.reason = reason
    }

    /// `<file>: <path>: <reason>` (`<file>: <reason>` when the path is empty).
    public var description: String {
        path.isEmpty ? "\(file): \(reason)" : "\(file): \(path): \(reason)"
    }
}
