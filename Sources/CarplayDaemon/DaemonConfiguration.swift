import CarIntents
import LinuxSupport

/// carplayd's settings: from the config file, then the command line (which wins).
public struct DaemonConfiguration: Sendable, Equatable {
    public enum LogLevel: String, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error
        public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// The vehicle profile folder; nil: the first shipped vehicle.
    public var profile: String?
    /// The CAN interface; nil: the embedded default (in-process bus, simulated vehicle).
    public var canInterface: String?
    public var socket: String
    public var stateDirectory: String
    public var allowedUsers: [String] = []
    public var allowedGroups: [String] = []
    public var logLevel: LogLevel = .info
    /// Overrides the profile's confirmation timeout (slow buses, emulated test rigs).
    public var confirmationTimeoutMilliseconds: Int?
    /// The embedded simulated vehicle's fault plan (JSON), for tests and demos.
    public var simulatorFaults: String?
    /// Serve `io.carplayd.Simulator` (the car's own panel, its faults, its drive state) for
    /// the embedded vehicle: on by default, since whoever runs a virtual car wants to play
    /// its driver; never on a real bus (`servesSimulator`).
    public var simulatorControl = true
    /// Who may call it besides root and the daemon's own user (`SimulatorAccess`).
    public var simulatorControlUsers: [String] = []
    public var simulatorControlGroups: [String] = []
    /// A scenario file the embedded simulated vehicle plays (docs/SIMULATION.md).
    public var scenario: String?
    /// A candump log played onto the embedded in-process bus instead of the simulated vehicle.
    public var replay: String?
    /// Play `replay` again and again.
    public var replayLoop = false
    /// SiriKit's `IntentsRestrictedWhileLocked` (Info.plist's role is the daemon's
    /// configuration): intents refused while the *caller's device* is locked.
    public var restrictedWhileLocked: Set<IntentName> = DaemonConfiguration.defaultRestrictedWhileLocked
    /// What the device lock of a caller outside any logind session is (docs/CONFIGURATION.md).
    public var sessionlessCallers: SessionlessCallers = .refuse
    /// Users and groups whose callers outside a logind session count as unlocked
    /// (a voice agent that runs as a system service and checks the user itself).
    public var sessionlessTrustedUsers: [String] = []
    public var sessionlessTrustedGroups: [String] = []
    /// Whether `io.carplayd.Simulator` is served: on, and the vehicle simulated.
    /// (Not on a replay either: there is no simulated vehicle to drive.)
    public var servesSimulator: Bool { simulatorControl && canInterface == nil && replay == nil }
    /// The config file that was read (for SIGHUP), if any.
    public var configFile: String?

    /// Unlocking the car (and locking it: SiriKit restricts whole intents) needs an
    /// unlocked device, as on an iPhone.
    public static let defaultRestrictedWhileLocked: Set<IntentName> = [.setCarLockStatus]

    /// A caller that is in no logind session (a system service, a phone bridge).
    public enum SessionlessCallers: Sendable, Equatable {
        /// Refused restricted intents, unless a trusted user or group (the default: safe).
        case refuse
        /// The lock state of this seat's active session (the head unit's screen: seat0).
        case seat(String)

        init?(_ text: String) {
            if text == "refuse" { self = .refuse } else if text.hasPrefix("seat"), text.count > 4 { self = .seat(text) } else { return nil }
        }
    }

    public init(socket: String = CarplaydPaths.defaultSocket(), stateDirectory: String = CarplaydPaths.defaultStateDirectory()) {
        self.socket = socket
        self.stateDirectory = stateDirectory
    }

    public static let usage = """
        usage: carplayd [OPTIONS]

        Takes CarPlay intents over Varlink (interface io.carplayd.Vehicle) and drives a
        vehicle over CAN, reporting success only when its status frames confirm a change.
        Without --can it runs the embedded default: an in-process virtual CAN bus with
        the simulated vehicle of the profile.

          --config FILE        read settings from FILE (default /etc/carplayd/carplayd.conf if it exists)
          --profile DIR        vehicle profile folder (default: the first shipped vehicle)
          --can IFACE          CAN interface (SocketCAN: vcan0, can0, ...); the vehicle is whatever answers there
          --socket PATH        Varlink socket (default $XDG_RUNTIME_DIR/carplayd/io.carplayd.Vehicle,
                               /run/carplayd/io.carplayd.Vehicle for root)
          --state-dir DIR      where saved car profiles live (default $STATE_DIRECTORY,
                               /var/lib/carplayd for root, ~/.local/state/carplayd otherwise)
          --allow-user USER    also allow this user (repeatable; root and the daemon's user always are)
          --allow-group GROUP  also allow members of this group (repeatable)
          --log-level LEVEL    debug, info, warning or error (default info)
          --confirmation-timeout MS
                               how long a command may take to show in the status frames
                               (default: the profile's confirmationTimeoutMs)
          --restricted-while-locked LIST
                               intents refused while the caller's device (its logind session) is
                               locked, comma-separated, or none (default SetCarLockStatus)
          --sessionless-callers refuse|SEAT
                               a caller in no logind session: refused those intents (default),
                               or locked as SEAT's active session is (seat0: the head unit)
          --simulator-faults JSON
                               fault plan of the embedded simulated vehicle, for tests and demos
                               (docs/SIMULATION.md), e.g. '{"rules":[{"kind":"reject"}]}'
          --no-simulator-control
                               do not serve io.carplayd.Simulator (the embedded vehicle's panel,
                               faults and drive state; served by default, never with --can)
          --simulator-control-users LIST, --simulator-control-groups LIST
                               who may call io.carplayd.Simulator besides root and the daemon's user
          --scenario FILE      the embedded simulated vehicle plays this scenario: timed changes made
                               as the driver's, faults, charging and driving (docs/SIMULATION.md)
          --replay LOG         play this candump -L log onto the in-process bus, timing kept, instead
                               of the simulated vehicle (nothing answers commands)
          --replay-loop        start the log again after its last frame
          --help, --version

        Signals: SIGTERM/SIGINT stop gracefully; SIGHUP reloads the config and profile
        (keeping the old ones if the new ones are invalid).
        Config file: `key = value` lines with the long option names (docs/CONFIGURATION.md).
        """

    /// Parses the command line (reading the config file it names, or the default one).
    public static func parse(arguments: [String], environment: [String: String] = CarplaydPaths.environment(), readFile: (String) -> [UInt8]?) throws(ConfigurationError) -> DaemonConfiguration {
        var configFile: String?
        var index = 0
        while index < arguments.count {
            if arguments[index] == "--config" {
                guard index + 1 < arguments.count else { throw .usage("--config needs a file") }
                configFile = arguments[index + 1]
            }
            index += 1
        }
        var configuration = DaemonConfiguration(socket: CarplaydPaths.defaultSocket(environment: environment), stateDirectory: CarplaydPaths.defaultStateDirectory(environment: environment))
        let file = configFile ?? (readFile(CarplaydPaths.defaultConfigFile) != nil ? CarplaydPaths.defaultConfigFile : nil)
        if let file {
            guard let bytes = readFile(file) else { throw .file(file, 0, "cannot read the config file") }
            try configuration.apply(file: file, text: String(decoding: bytes, as: UTF8.self))
            configuration.configFile = file
        }
        var fromCommandLine = configuration
        index = 0
        var users: [String] = []
        var groups: [String] = []
        while index < arguments.count {
            let argument = arguments[index]
            func value() throws(ConfigurationError) -> String {
                guard index + 1 < arguments.count else { throw .usage("\(argument) needs a value") }
                index += 1
                return arguments[index]
            }
            if let key = Self.optionKeys[argument] {
                let text = try value()
                do { try fromCommandLine.set(key, text, named: argument) } catch { throw .usage(error.reason) }
                index += 1
                continue
            }
            switch argument {
            case "--config": _ = try value()
            case "--allow-user": users.append(try value())
            case "--allow-group": groups.append(try value())
            case "--simulator-faults": fromCommandLine.simulatorFaults = try value()
            // The default now; kept for the tests and scripts that still pass it.
            case "--simulator-control": fromCommandLine.simulatorControl = true
            case "--no-simulator-control": fromCommandLine.simulatorControl = false
            case "--replay-loop": fromCommandLine.replayLoop = true
            default:
                throw .usage("unknown option \(argument)")
            }
            index += 1
        }
        fromCommandLine.allowedUsers += users
        fromCommandLine.allowedGroups += groups
        return fromCommandLine
    }

    /// The command-line options whose values are settings of the config file too, by
    /// their key there: both are read by `set`.
    static let optionKeys = [
        "--profile": "profile", "--can": "can", "--socket": "socket", "--state-dir": "state-dir", "--log-level": "log-level",
        "--confirmation-timeout": "confirmation-timeout-ms", "--restricted-while-locked": "restricted-while-locked",
        "--sessionless-callers": "sessionless-callers", "--simulator-control-users": "simulator-control-users",
        "--simulator-control-groups": "simulator-control-groups", "--scenario": "scenario", "--replay": "replay",
    ]

    /// `alice, bob` -> ["alice", "bob"].
    static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
    }

    struct InvalidSetting: Error {
        var reason: String
    }

    /// Sets the setting `key` (one of `optionKeys`' values) from its text; the error
    /// names it as `name` (the option or the key as the user wrote it).
    mutating func set(_ key: String, _ value: String, named name: String) throws(InvalidSetting) {
        switch key {
        case "profile": profile = value
        case "scenario": scenario = value
        case "replay": replay = value
        case "can": canInterface = value
        case "socket": socket = value
        case "state-dir": stateDirectory = value
        case "confirmation-timeout-ms":
            guard let milliseconds = Int(value), milliseconds > 0 else { throw InvalidSetting(reason: "\(name) needs milliseconds > 0, not \(value)") }
            confirmationTimeoutMilliseconds = milliseconds
        case "log-level":
            guard let level = LogLevel(rawValue: value) else { throw InvalidSetting(reason: "\(name) must be debug, info, warning or error, not \(value)") }
            logLevel = level
        case "restricted-while-locked":
            var names = Set<IntentName>()
            for word in Self.list(value) where value != "none" {
                guard let intent = IntentName(rawValue: word) else {
                    throw InvalidSetting(reason: "\(name): unknown intent \"\(word)\" (one of \(IntentName.allCases.map(\.rawValue).joined(separator: ", ")), or none)")
                }
                names.insert(intent)
            }
            restrictedWhileLocked = names
        case "sessionless-callers":
            guard let callers = SessionlessCallers(value) else { throw InvalidSetting(reason: "\(name) must be refuse or a seat (seat0), not \(value)") }
            sessionlessCallers = callers
        case "simulator-control":
            guard let on = ["on": true, "off": false][value] else { throw InvalidSetting(reason: "\(name) must be on or off, not \(value)") }
            simulatorControl = on
        case "simulator-control-users": simulatorControlUsers = Self.list(value)
        case "simulator-control-groups": simulatorControlGroups = Self.list(value)
        default:
            preconditionFailure("\(key) is not a setting of optionKeys")
        }
    }

    /// Applies `key = value` lines; `#` starts a comment.
    mutating func apply(file: String, text: String) throws(ConfigurationError) {
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(rawLine)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let trimmed = line.trimmingSpaces()
            guard !trimmed.isEmpty else { continue }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw .file(file, number + 1, "expected `key = value`, found \"\(trimmed)\"")
            }
            let key = trimmed[..<equals].trimmingSpaces()
            let value = trimmed[trimmed.index(after: equals)...].trimmingSpaces()
            guard !value.isEmpty else { throw .file(file, number + 1, "\(key) has no value") }
            if Self.optionKeys.values.contains(key) || key == "simulator-control" {
                do { try set(key, value, named: key) } catch { throw .file(file, number + 1, error.reason) }
                continue
            }
            switch key {
            case "allow-users": allowedUsers = Self.list(value)
            case "allow-groups": allowedGroups = Self.list(value)
            case "sessionless-trusted-users": sessionlessTrustedUsers = Self.list(value)
            case "sessionless-trusted-groups": sessionlessTrustedGroups = Self.list(value)
            case "replay-loop":
                guard let flag = ["true": true, "yes": true, "false": false, "no": false][value] else { throw .file(file, number + 1, "replay-loop must be true or false, not \(value)") }
                replayLoop = flag
            default:
                throw .file(file, number + 1, "unknown key \"\(key)\" (known: profile, can, socket, state-dir, allow-users, allow-groups, log-level, confirmation-timeout-ms, restricted-while-locked, sessionless-callers, sessionless-trusted-users, sessionless-trusted-groups, simulator-control, simulator-control-users, simulator-control-groups, scenario, replay, replay-loop)")
            }
        }
    }
}

public enum ConfigurationError: Error, Sendable, CustomStringConvertible {
    case usage(String)
    case file(String, Int, String)

    public var description: String {
        switch self {
        case let .usage(text): text
        case let .file(file, line, text): line > 0 ? "\(file):\(line): \(text)" : "\(file): \(text)"
        }
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return String(text)
    }
}
