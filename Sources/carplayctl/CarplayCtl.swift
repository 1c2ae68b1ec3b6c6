import CarIntents
import CarplayText
import LinuxSupport

/// Exit codes, documented in `carplayctl --help` and docs/CLI.md.
enum ExitCode {
    static let success: Int32 = 0
    /// The operation ran and failed (an intent not confirmed, a frame that does not encode).
    static let failure: Int32 = 1
    /// Wrong arguments or unreadable input files.
    static let usage: Int32 = 2
    /// The daemon could not be reached (nothing listens on the socket, or the connection broke).
    static let unreachable: Int32 = 3
}

/// A usage error: printed with a line saying where the verb's help is, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A failure of the operation itself: printed, exit code 1.
struct OperationFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

struct Verb: Sendable {
    var name: String
    var summary: String
    var usage: String
    var run: @Sendable ([String]) async throws -> Int32
    /// The intents the verb runs: its help lists their declared parameters.
    var intents: [IntentName] = []

    var help: String { usage + IntentVerbs.parameterHelp(intents) }
}

enum CarplayCtl {
    /// The verb table. Each verb parses its own arguments.
    static let verbs: [Verb] = [
        // Intents on the daemon, one verb each.
        Verb(
            name: "climate", summary: "set temperature, fan, A/C, auto, air circulation (SetClimateSettingsInCar)", usage: IntentVerbs.climateUsage,
            run: IntentVerbs.climate, intents: [.setClimateSettingsInCar]),
        Verb(
            name: "defrost", summary: "switch a defroster on or off (SetDefrosterSettingsInCar)", usage: IntentVerbs.defrostUsage, run: IntentVerbs.defrost,
            intents: [.setDefrosterSettingsInCar]),
        Verb(
            name: "seat", summary: "seat heating, cooling, massage (SetSeatSettingsInCar)", usage: IntentVerbs.seatUsage, run: IntentVerbs.seat,
            intents: [.setSeatSettingsInCar]),
        Verb(
            name: "radio", summary: "tune by band and frequency/channel, station or preset (SetRadioStation)", usage: IntentVerbs.radioUsage,
            run: IntentVerbs.radio, intents: [.setRadioStation]),
        Verb(
            name: "audio", summary: "choose the audio source (SetAudioSourceInCar)", usage: IntentVerbs.audioUsage, run: IntentVerbs.audio,
            intents: [.setAudioSourceInCar]),
        Verb(
            name: "lock", summary: "lock the car, or --status (SetCarLockStatus, GetCarLockStatus)", usage: IntentVerbs.lockUsage, run: IntentVerbs.lock,
            intents: [.setCarLockStatus, .getCarLockStatus]),
        Verb(name: "unlock", summary: "unlock the car (SetCarLockStatus)", usage: IntentVerbs.lockUsage, run: IntentVerbs.unlock, intents: [.setCarLockStatus]),
        Verb(
            name: "signal", summary: "flash the lights and/or sound the horn (ActivateCarSignal)", usage: IntentVerbs.signalUsage, run: IntentVerbs.signal,
            intents: [.activateCarSignal]),
        Verb(
            name: "power", summary: "fuel/charge level and range (GetCarPowerLevelStatus)", usage: IntentVerbs.powerUsage, run: IntentVerbs.power,
            intents: [.getCarPowerLevelStatus]),
        Verb(name: "cars", summary: "the car the daemon drives (ListCars)", usage: IntentVerbs.carsUsage, run: IntentVerbs.cars, intents: [.listCars]),
        Verb(
            name: "car-profile", summary: "save and restore a driver's settings (SaveProfileInCar, SetProfileInCar)", usage: CarProfileCommand.usage,
            run: CarProfileCommand.run, intents: [.saveProfileInCar, .setProfileInCar]),
        // The daemon's state.
        Verb(name: "status", summary: "the live vehicle state, grouped, and whether it is reachable", usage: StateVerbs.statusUsage, run: StateVerbs.status),
        Verb(name: "monitor", summary: "one line per change of the vehicle state, until interrupted", usage: StateVerbs.monitorUsage, run: StateVerbs.monitor),
        Verb(
            name: "traffic", summary: "every CAN ID on the bus: frames received, untrusted, sent, last data", usage: StateVerbs.trafficUsage,
            run: StateVerbs.traffic),
        Verb(name: "dash", summary: "the live car full screen: cabin, wanted vs actual, frames; keys send intents", usage: DashVerb.usage, run: DashVerb.run),
        Verb(name: "car", summary: "play the driver of a simulated car: set values, plug in, drive, show", usage: CarVerb.usage, run: CarVerb.run),
        Verb(name: "describe", summary: "the vehicle's capabilities as the daemon sees them", usage: StateVerbs.describeUsage, run: StateVerbs.describe),
        Verb(name: "call", summary: "a raw Varlink call to the daemon, reply as JSON", usage: StateVerbs.callUsage, run: StateVerbs.call),
        // Offline tools.
        Verb(name: "can", summary: "CAN interface facts from libsocketcan (state, restart-ms, error counters)", usage: CANCommand.usage, run: CANCommand.run),
        Verb(name: "dbc", summary: "decode, encode, show and diff frames with a DBC file; watch the bus decoded", usage: DBCCommand.usage, run: DBCCommand.run),
        Verb(
            name: "profile", summary: "vehicle profiles (the car's mapping onto its DBC): check, draft from a DBC, try on the bus",
            usage: ProfileCommand.usage,
            run: ProfileCommand.run),
        Verb(name: "vss", summary: "the VSS paths carplayd maps the car to (io.carplayd.VSS, carplayd-kuksa)", usage: VSSCommand.usage, run: VSSCommand.run),
        Verb(
            name: "perform", summary: "run one intent (JSON form) against a simulated vehicle, without a daemon", usage: PerformCommand.usage,
            run: PerformCommand.run),
    ]

    static let usage = """
        usage: carplayctl VERB [ARGS...]

        verbs:
        \(verbs.map { "  \(padded($0.name, 10))\($0.summary)" }.joined(separator: "\n"))

        Run 'carplayctl VERB --help' for a verb's options.

        exit codes: 0 success, 1 the operation failed, 2 usage error, 3 daemon unreachable
        """

    static func run(arguments: [String]) async -> Int32 {
        var arguments = arguments
        // `carplayctl --socket PATH VERB ...` is `carplayctl VERB ... --socket PATH`: the
        // verb reads it as it reads its own options (a verb without a daemon refuses it).
        var socket: [String] = []
        if arguments.count >= 2, arguments[0] == "--socket" {
            socket = Array(arguments[0...1])
            arguments.removeFirst(2)
        }
        guard let name = arguments.first else {
            printError(usage)
            return ExitCode.usage
        }
        if name == "--help" || name == "-h" || name == "help" {
            print(usage)
            return ExitCode.success
        }
        guard let verb = verbs.first(where: { $0.name == name }) else {
            printError("carplayctl: unknown verb '\(name)'\nsee: carplayctl --help")
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst()) + socket
        if rest.first == "--help" || rest.first == "-h" {
            print(verb.help)
            return ExitCode.success
        }
        do {
            return try await verb.run(rest)
        } catch let error as UsageError {
            // The error and where the help is: the whole help page scrolled the one
            // useful line away.
            printError("carplayctl \(verb.name): \(error)\nsee: carplayctl \(verb.name) --help")
            return ExitCode.usage
        } catch let error as DaemonUnreachable {
            printError("carplayctl \(verb.name): \(error)")
            return ExitCode.unreachable
        } catch let error as OperationFailure {
            printError("carplayctl \(verb.name): \(error)")
            return ExitCode.failure
        } catch {
            printError("carplayctl \(verb.name): \(error)")
            return ExitCode.failure
        }
    }
}

func printError(_ text: String) {
    try? FileDescriptor.standardError.writeAll(text + "\n")
}
