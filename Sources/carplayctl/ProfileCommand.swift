import CarplayJSON
import LinuxSupport
import VehicleKit

/// `carplayctl profile SUBVERB`: vehicle profiles (VehicleProfiles/<vehicle>/).
/// Sub-verbs live in `subverbs`: `check` is offline, `save` and `set` are the
/// SaveProfileInCar / SetProfileInCar intents on the daemon.
enum ProfileCommand {
    struct Subverb: Sendable {
        var name: String
        var run: @Sendable ([String]) throws -> Int32
    }

    static let subverbs: [Subverb] = [
        Subverb(name: "check", run: check),
        Subverb(name: "save", run: save),
        Subverb(name: "set", run: set),
    ]

    static let usage = """
        usage: carplayctl profile check DIR
               carplayctl profile save [N] [--name NAME] [--json] [--socket PATH]
               carplayctl profile set N|--name NAME|--default [--car NAME] [--yes] [--json] [--socket PATH]

          check   load DIR/profile.json and the DBC it names, check every rule of
                  VehicleProfiles/README.md, and print a summary: car names, DBC
                  messages, bound properties, zones, seats, radio bands, audio sources,
                  profile slots, policies.
                  An invalid profile prints FILE: PATH: REASON (PATH is a JSON path
                  such as bindings["seat.frontLeft.heating"].command.signal) and exits 2,
                  like any other unusable input; an unreadable file exits 2 too.
          save    SaveProfileInCar: store the car's current settings in profile slot N,
                  optionally named (--name).
          set     SetProfileInCar: apply the settings saved in slot N, or in the profile
                  called NAME, or the default profile (--default).
        \(IntentVerbs.common)

        examples:
          carplayctl profile save 2 --name Alex
          carplayctl profile set --name Alex
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let name = arguments.first else { throw UsageError("missing \(subverbs.map(\.name).joined(separator: " or "))") }
        guard let subverb = subverbs.first(where: { $0.name == name }) else { throw UsageError("unknown profile command '\(name)'") }
        return try subverb.run(Array(arguments.dropFirst()))
    }

    static func check(_ arguments: [String]) throws -> Int32 {
        if let option = arguments.first(where: { $0.hasPrefix("-") }) { throw UsageError("unknown option \(option)") }
        guard arguments.count == 1 else { throw UsageError("check takes one profile directory") }
        let profile: VehicleProfile
        do {
            profile = try load(arguments[0])
        } catch {
            printError(error.description)
            return ExitCode.usage
        }
        for warning in profile.database.warnings { printError(warning.description) }
        print(ProfileSummary(profile).description)
        print("ok")
        return ExitCode.success
    }

    static func save(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        var p: [String: JSONValue] = [:]
        let positional = try IntentVerbs.parse(arguments, &options) { argument, list in
            guard argument == "--name" else { return false }
            p["profileName"] = .string(try list.value(for: argument))
            return true
        }
        guard positional.count <= 1 else { throw UsageError("save takes one profile number") }
        if let number = positional.first { p["profileNumber"] = .integer(try ParameterInput.integer(number, what: "N")) }
        guard !p.isEmpty else { throw UsageError("give a profile number or --name") }
        return try IntentRunner.run(.saveProfileInCar, p, options)
    }

    static func set(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        var p: [String: JSONValue] = [:]
        let positional = try IntentVerbs.parse(arguments, &options) { argument, list in
            switch argument {
            case "--name": p["profileName"] = .string(try list.value(for: argument))
            case "--default": p["isDefaultProfile"] = true
            case "--car": p["carName"] = .string(try list.value(for: argument))
            default: return false
            }
            return true
        }
        guard positional.count <= 1 else { throw UsageError("set takes one profile number") }
        if let number = positional.first { p["profileNumber"] = .integer(try ParameterInput.integer(number, what: "N")) }
        guard p.keys.contains(where: { $0 != "carName" }) else { throw UsageError("give a profile number, --name or --default") }
        return try IntentRunner.run(.setProfileInCar, p, options)
    }

    /// Loads a profile folder from disk.
    static func load(_ directory: String) throws(ProfileError) -> VehicleProfile {
        try ProfileLoader.load(directory: directory) { path in try? FileDescriptor.readFile(atPath: path) }
    }
}
