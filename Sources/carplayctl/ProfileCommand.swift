import CarplayText
import LinuxSupport
import VehicleKit

/// `carplayctl profile SUBVERB`: the vehicle profile, the car's mapping onto its DBC
/// (VehicleProfiles/<vehicle>/), offline. SiriKit's saved car profiles (seat and
/// climate settings a driver saves) are `carplayctl car-profile` (`CarProfileCommand`).
enum ProfileCommand {
    struct Subverb: Sendable {
        var name: String
        var run: @Sendable ([String]) async throws -> Int32
    }

    static let subverbs: [Subverb] = [
        Subverb(name: "check", run: check),
        Subverb(name: "draft", run: ProfileDraftCommand.run),
        Subverb(name: "import-kuksa", run: ProfileImportCommand.run),
        Subverb(name: "try", run: ProfileTryCommand.run),
    ]

    static let usage = """
        usage: carplayctl profile check DIR
               carplayctl profile draft DBC_FILE --out DIR [--role NODE] [--name NAME]
               carplayctl profile import-kuksa MAPPING.json DBC_FILE --out DIR [--name NAME]
               carplayctl profile try DIR --can IFACE [--seconds N] [--commands]

          check   load DIR/profile.json and the DBC it names, check every rule of
                  VehicleProfiles/README.md, and print a summary: car names, DBC
                  messages, bound properties, zones, seats, radio bands, audio sources,
                  profile slots, policies.
                  An invalid profile prints FILE: PATH: REASON (PATH is a JSON path
                  such as bindings["seat.frontLeft.heating"].command.signal) and exits 1,
                  as an unreadable file does. A bound message with a signal named like a
                  checksum or counter and no protection declared is a warning.
        \(ProfileDraftCommand.usage)
        \(ProfileImportCommand.usage)
        \(ProfileTryCommand.usage)

        A vehicle profile maps the car onto its DBC; the settings a driver saves in the
        car (SaveProfileInCar, SetProfileInCar) are `carplayctl car-profile`.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let name = arguments.first else { throw UsageError("missing \(subverbs.map(\.name).joined(separator: " or "))") }
        if CarProfileCommand.subverbs.contains(where: { $0.name == name }) {
            throw UsageError("profile \(name) is now `carplayctl car-profile \(name)` (a car profile, SiriKit's; `profile` is the vehicle profile)")
        }
        guard let subverb = subverbs.first(where: { $0.name == name }) else { throw UsageError("unknown profile command '\(name)'") }
        return try await subverb.run(Array(arguments.dropFirst()))
    }

    static func check(_ arguments: [String]) throws -> Int32 {
        if let option = arguments.first(where: { $0.hasPrefix("-") }) { throw UsageError("unknown option \(option)") }
        guard arguments.count == 1 else { throw UsageError("check takes one profile directory") }
        let profile: VehicleProfile
        do {
            profile = try load(arguments[0])
        } catch {
            printError(error.description)
            return ExitCode.failure
        }
        DBCCommand.printWarnings(profile.database.warnings, summarizingOverlaps: true)
        for warning in ProfileSummary.unprotectedWarnings(profile) { printError("\(arguments[0]): warning: \(warning)") }
        print(ProfileSummary(profile).description)
        print("ok")
        return ExitCode.success
    }

    /// Loads a profile folder from disk.
    static func load(_ directory: String) throws(ProfileError) -> VehicleProfile {
        try ProfileLoader.load(directory: directory) { path in try? FileDescriptor.readFile(atPath: path) }
    }
}
