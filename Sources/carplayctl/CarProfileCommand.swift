import CarplayJSON

/// `carplayctl car-profile SUBVERB`: SiriKit's car profiles, the settings a driver saves
/// in the car and restores (SaveProfileInCar, SetProfileInCar), on the daemon.
enum CarProfileCommand {
    static let subverbs: [ProfileCommand.Subverb] = [
        ProfileCommand.Subverb(name: "save", run: save),
        ProfileCommand.Subverb(name: "set", run: set),
    ]

    static let usage = """
        usage: carplayctl car-profile save [N] [--name NAME] [--json] [--socket PATH]
               carplayctl car-profile set N|--name NAME|--default [--car NAME] [--yes] [--json] [--socket PATH]

          save    SaveProfileInCar: store the car's current settings in profile slot N,
                  optionally named (--name).
          set     SetProfileInCar: apply the settings saved in slot N, or in the profile
                  called NAME, or the default profile (--default).
        \(IntentVerbs.common)

        examples:
          carplayctl car-profile save 2 --name Alex
          carplayctl car-profile set --name Alex
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let name = arguments.first else { throw UsageError("missing \(subverbs.map(\.name).joined(separator: " or "))") }
        guard let subverb = subverbs.first(where: { $0.name == name }) else { throw UsageError("unknown car-profile command '\(name)'") }
        return try await subverb.run(Array(arguments.dropFirst()))
    }

    static func save(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        var p: [String: JSONValue] = [:]
        let positional = try IntentVerbs.parse(arguments, &options, acceptsParameters: true) { argument, list in
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
        let positional = try IntentVerbs.parse(arguments, &options, acceptsParameters: true) { argument, list in
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
}
