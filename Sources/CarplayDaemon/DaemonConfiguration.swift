import CarIntents
import CarplaydProduct
import LinuxSupport

/// carplayd's settings: from the config file, then the command line (which wins).
public struct DaemonConfiguration: Sendable, Equatable {
    public enum LogLevel: String, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error
        public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// The vehicle profile folder; nil: the default vehicle (`Daemon.defaultVehicle`).
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
          --profile DIR        vehicle profile folder (default: the example sedan, VehicleProfiles/\(Daemon.defaultVehicle))
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
    public static func parse(arguments: [String], environment: [String: String] = ProcessEnvironment.current(), readFile: (String) -> [UInt8]?)
        throws(ConfigurationError) -> DaemonConfiguration
    {
        var configFile: String?
        var index = 0
        while index < arguments.count {
            if arguments[index] == "--config" {
                guard index + 1 < arguments.count else { throw .usage("--config needs a file") }
                configFile = arguments[index + 1]
            }
            index += 1
        }
        var configuration = DaemonConfiguration(
            socket: CarplaydPaths.defaultSocket(environment: environment), stateDirectory: CarplaydPaths.defaultStateDirectory(environment: environment))
        let file = configFile ?? (readFile(CarplaydPaths.defaultConfigFile) != nil ? CarplaydPaths.defaultConfigFile : nil)
        if let file {
            guard let bytes = readFile(file) else { throw .file(file, 0, "cannot read the config file") }
            try configuration.apply(file: file, text: String(decoding: bytes, as: UTF8.self))
            configuration.configFile = file
        }
        index = 0
        while index < arguments.count {
            let argument = arguments[index]
            func value() throws(ConfigurationError) -> String {
                guard index + 1 < arguments.count else { throw .usage("\(argument) needs a value") }
                index += 1
                return arguments[index]
            }
            if argument == "--config" {
                _ = try value()
            } else if let (setting, form) = Setting.commandLine[argument] {
                let text: String
                switch form {
                case .value, .adding: text = try value()
                case .on: text = "on"
                case .off: text = "off"
                }
                do {
                    if case .adding = form { try setting.add(&configuration, text, argument) } else { try setting.set(&configuration, text, argument) }
                } catch {
                    throw .usage(error.reason)
                }
            } else {
                throw .usage("unknown option \(argument)")
            }
            index += 1
        }
        return configuration
    }

    struct InvalidSetting: Error {
        var reason: String
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
            guard let setting = Setting.byKey[key] else {
                throw .file(file, number + 1, "unknown key \"\(key)\" (known: \(Setting.all.map(\.key).joined(separator: ", ")))")
            }
            do { try setting.set(&self, value, key) } catch { throw .file(file, number + 1, error.reason) }
        }
    }
}

/// One setting of carplayd: its key in the config file, its command-line options, and
/// how its text is read. Every setting is in `all`, once; the parsers of the file and
/// of the command line read this table and nothing else.
struct Setting: Sendable {
    typealias Apply = @Sendable (inout DaemonConfiguration, _ value: String, _ name: String) throws(DaemonConfiguration.InvalidSetting) -> Void

    /// How a command-line option gives the value.
    enum Form: Sendable {
        /// `--option VALUE`: the value.
        case value
        /// `--option` alone: on, or off.
        case on, off
        /// `--option VALUE`, repeatable: one more item of a list.
        case adding
    }

    let key: String
    let options: [(name: String, form: Form)]
    let set: Apply
    /// For `.adding` options: how one item is added.
    var add: Apply = { _, _, _ throws(DaemonConfiguration.InvalidSetting) in }

    static func text(_ key: String, _ options: [(String, Form)], _ path: WritableKeyPath<DaemonConfiguration, String> & Sendable) -> Setting {
        Setting(key: key, options: options, set: { configuration, value, _ in configuration[keyPath: path] = value })
    }

    static func optionalText(_ key: String, _ options: [(String, Form)], _ path: WritableKeyPath<DaemonConfiguration, String?> & Sendable) -> Setting {
        Setting(key: key, options: options, set: { configuration, value, _ in configuration[keyPath: path] = value })
    }

    /// A comma-separated list in the file (and as `--option LIST`); `adding` options add one.
    static func list(_ key: String, _ options: [(String, Form)], _ path: WritableKeyPath<DaemonConfiguration, [String]> & Sendable) -> Setting {
        Setting(
            key: key, options: options, set: { configuration, value, _ in configuration[keyPath: path] = Setting.items(value) },
            add: { configuration, value, _ in configuration[keyPath: path].append(value) })
    }

    /// on/off, true/false or yes/no, the same for every boolean.
    static func boolean(_ key: String, _ options: [(String, Form)], _ path: WritableKeyPath<DaemonConfiguration, Bool> & Sendable) -> Setting {
        Setting(
            key: key, options: options,
            set: { configuration, value, name throws(DaemonConfiguration.InvalidSetting) in
                guard let flag = Setting.booleans[value] else { throw .init(reason: "\(name) must be on or off (or true/false, yes/no), not \(value)") }
                configuration[keyPath: path] = flag
            })
    }

    static let booleans = ["on": true, "off": false, "true": true, "false": false, "yes": true, "no": false]

    /// `alice, bob` -> ["alice", "bob"].
    static func items(_ value: String) -> [String] {
        value.split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
    }

    static let all: [Setting] = [
        optionalText("profile", [("--profile", .value)], \.profile),
        optionalText("can", [("--can", .value)], \.canInterface),
        text("socket", [("--socket", .value)], \.socket),
        text("state-dir", [("--state-dir", .value)], \.stateDirectory),
        list("allow-users", [("--allow-user", .adding)], \.allowedUsers),
        list("allow-groups", [("--allow-group", .adding)], \.allowedGroups),
        Setting(key: "log-level", options: [("--log-level", .value)]) { configuration, value, name throws(DaemonConfiguration.InvalidSetting) in
            guard let level = DaemonConfiguration.LogLevel(rawValue: value) else {
                throw .init(reason: "\(name) must be debug, info, warning or error, not \(value)")
            }
            configuration.logLevel = level
        },
        Setting(key: "confirmation-timeout-ms", options: [("--confirmation-timeout", .value)]) {
            configuration, value, name throws(DaemonConfiguration.InvalidSetting) in
            guard let milliseconds = Int(value), milliseconds > 0 else { throw .init(reason: "\(name) needs milliseconds > 0, not \(value)") }
            configuration.confirmationTimeoutMilliseconds = milliseconds
        },
        Setting(key: "restricted-while-locked", options: [("--restricted-while-locked", .value)]) {
            configuration, value, name throws(DaemonConfiguration.InvalidSetting) in
            var names = Set<IntentName>()
            for word in Setting.items(value) where value != "none" {
                guard let intent = IntentName(rawValue: word) else {
                    throw .init(reason: "\(name): unknown intent \"\(word)\" (one of \(IntentName.allCases.map(\.rawValue).joined(separator: ", ")), or none)")
                }
                names.insert(intent)
            }
            configuration.restrictedWhileLocked = names
        },
        Setting(key: "sessionless-callers", options: [("--sessionless-callers", .value)]) {
            configuration, value, name throws(DaemonConfiguration.InvalidSetting) in
            guard let callers = DaemonConfiguration.SessionlessCallers(value) else {
                throw .init(reason: "\(name) must be refuse or a seat (seat0), not \(value)")
            }
            configuration.sessionlessCallers = callers
        },
        list("sessionless-trusted-users", [], \.sessionlessTrustedUsers),
        list("sessionless-trusted-groups", [], \.sessionlessTrustedGroups),
        optionalText("simulator-faults", [("--simulator-faults", .value)], \.simulatorFaults),
        // --simulator-control is the default now; kept for the tests and scripts that pass it.
        boolean("simulator-control", [("--simulator-control", .on), ("--no-simulator-control", .off)], \.simulatorControl),
        list("simulator-control-users", [("--simulator-control-users", .value)], \.simulatorControlUsers),
        list("simulator-control-groups", [("--simulator-control-groups", .value)], \.simulatorControlGroups),
        optionalText("scenario", [("--scenario", .value)], \.scenario),
        optionalText("replay", [("--replay", .value)], \.replay),
        boolean("replay-loop", [("--replay-loop", .on)], \.replayLoop),
    ]

    static let byKey: [String: Setting] = Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0) })

    static let commandLine: [String: (Setting, Form)] = {
        var options: [String: (Setting, Form)] = [:]
        for setting in all { for (name, form) in setting.options { options[name] = (setting, form) } }
        return options
    }()
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
