import CarplayClient
import CarplayJSON
import CarplaydProduct
import LinuxSupport

/// The daemon could not be reached (no socket, nobody listening, or the connection
/// broke): exit code 3.
struct DaemonUnreachable: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Options every daemon verb takes: `--socket PATH`, `--json`, `--yes`.
struct DaemonOptions {
    var socket: String?
    var json = false
    var yes = false
    /// `--param NAME=VALUE` as typed, for the intent a verb runs (IntentRunner reads them
    /// by the intent's declaration).
    var parameters: [String] = []

    static let usage = """
          --socket PATH   the daemon's socket (default: $CARPLAYD_SOCKET, else
                          $XDG_RUNTIME_DIR/carplayd/io.carplayd.Vehicle, /run/carplayd/... for root)
          --json          print the daemon's raw reply object instead of a sentence
        """

    /// The socket to use: `--socket`, else `CARPLAYD_SOCKET`, else the default path.
    var socketPath: String { socket ?? CarplaydPaths.defaultSocket() }

    /// Consumes a common option; false when `argument` is not one.
    mutating func consume(_ argument: String, _ arguments: inout ArgumentList, acceptsYes: Bool = true, acceptsParameters: Bool = false) throws -> Bool {
        switch argument {
        case "--socket": socket = try arguments.value(for: argument)
        case "--param":
            guard acceptsParameters else { return false }
            parameters.append(try arguments.value(for: argument))
        case "--json": json = true
        case "--yes", "-y":
            guard acceptsYes else { return false }
            yes = true
        default: return false
        }
        return true
    }
}

/// Command-line arguments, with `--name=value` split into `--name value`.
struct ArgumentList {
    private var items: [String]

    init(_ arguments: [String]) {
        var items: [String] = []
        var optionsEnded = false
        for argument in arguments {
            if !optionsEnded, argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                items.append(String(argument[..<equals]))
                items.append(String(argument[argument.index(after: equals)...]))
            } else {
                if argument == "--" { optionsEnded = true }
                items.append(argument)
            }
        }
        self.items = items
    }

    mutating func next() -> String? { items.isEmpty ? nil : items.removeFirst() }

    /// The value of `option`, which must follow it.
    mutating func value(for option: String) throws -> String {
        guard let value = next() else { throw UsageError("\(option) needs a value") }
        return value
    }
}

/// True for an argument that looks like an option (and not like a negative number).
func isOption(_ argument: String) -> Bool {
    argument.hasPrefix("-") && argument.count > 1 && Double(argument) == nil
}

/// Standard input and output are both a terminal: the user can be asked.
func isInteractive() -> Bool { Terminal.isTerminal(.standardInput) && Terminal.isTerminal(.standardOutput) }

/// Writes `text` and a newline to stdout right away (no stdio buffering, so lines of
/// `monitor` and prompts appear in order and at once).
func output(_ text: String, newline: Bool = true) {
    try? FileDescriptor.standardOutput.writeAll(newline ? text + "\n" : text)
}

/// A connection to carplayd with the error handling every daemon verb shares: the
/// client's errors become carplayctl's (exit code 3 unreachable, 1 refused or a reply
/// that does not fit).
final class DaemonConnection {
    let client: CarplaydClient

    init(_ options: DaemonOptions) throws {
        // A daemon that goes away while we write must give an error, not kill us.
        Signals.ignoreBrokenPipes()
        do {
            client = try CarplaydClient(path: options.socketPath)
        } catch {
            throw Self.translate(error)
        }
    }

    /// Runs one request (or stream) on the connection.
    func run<Result>(_ request: (CarplaydClient) throws -> Result) throws -> Result {
        do {
            return try request(client)
        } catch let error as CarplaydClientError {
            throw Self.translate(error)
        }
    }

    static func translate(_ error: CarplaydClientError) -> any Error {
        switch error {
        case let .cannotConnect(path, reason):
            DaemonUnreachable("cannot connect to carplayd at \(path) (\(reason)); is carplayd running? (--socket PATH, CARPLAYD_SOCKET)")
        case let .connectionLost(path, reason): DaemonUnreachable("lost the connection to carplayd at \(path): \(reason)")
        case let .refused(reply): DaemonError(reply)
        case .unexpectedReply: OperationFailure(error.description)
        }
    }
}

/// A typed error reply of the daemon: a one-line message, exit code 1.
struct DaemonError: Error, CustomStringConvertible {
    var reply: ErrorReply
    init(_ reply: ErrorReply) { self.reply = reply }

    /// `{"error":"io.carplayd.Vehicle.NotAuthorized","parameters":{"uid":1000,"gid":1000}}`.
    var json: JSONValue { .object(["error": .string(reply.varlinkError.name), "parameters": .object(reply.varlinkError.parameters)]) }

    var description: String {
        switch reply.error {
        case let .vehicle(.restrictedWhileLocked(intent, reason)): "\(intent) needs an unlocked device: \(reason)"
        case let .vehicle(.carLocked(intent)): "\(intent) is not allowed while the car is locked (unlock it first)"
        case let .vehicle(.vehicleUnavailable(reason)): "the vehicle is unavailable: \(reason)"
        case let .vehicle(.busOff(interface)): "CAN interface \(interface) is bus-off: nothing can be sent until its controller restarts"
        case let .vehicle(.notAuthorized(uid, gid)): "not authorized: uid \(uid) (gid \(gid)) may not use carplayd"
        case let .vehicle(.invalidParameter(parameter, reason)), let .simulator(.invalidParameter(parameter, reason)):
            "invalid parameter \(parameter): \(reason)"
        case let .vehicle(.unknownIntent(intent)): "carplayd does not know the intent \(intent)"
        case let .service(.methodNotFound(method)): "carplayd has no method \(method)"
        case let .service(.methodNotImplemented(method)): "carplayd does not implement \(method)"
        case let .service(.interfaceNotFound(interface)) where interface == CarplaydClient.simulatorInterface:
            "no simulated vehicle here: \(interface) is not served (a real CAN bus, or simulator-control = off)"
        case let .service(.interfaceNotFound(interface)): "carplayd has no interface \(interface)"
        case let .simulator(.notAuthorized(uid, gid)):
            "not authorized: uid \(uid) (gid \(gid)) may not control the simulated vehicle (simulator-control-users)"
        case let .simulator(.invalidVehicleState(key, reason)): key.isEmpty ? "invalid values: \(reason)" : "\(key): \(reason)"
        case let .simulator(.invalidDriveState(parameter, reason)): "invalid \(parameter): \(reason)"
        case .simulator(.noSimulator): "no simulated vehicle: the daemon drives a CAN interface"
        case let .service(.invalidParameter(parameter, reason)): "invalid parameter \(parameter)" + (reason.map { ": \($0)" } ?? "")
        case .service(.permissionDenied): "permission denied"
        case .service(.expectedMore): "the method streams its replies: call it with --more"
        case .simulator(.invalidFaultPlan), .undeclared: reply.varlinkError.description
        }
    }
}

/// Runs a daemon verb's body; with `--json` a typed error is also printed as
/// `{"error":…,"parameters":…}` on stdout before it propagates.
func withDaemonErrorsAsJSON<T>(_ json: Bool, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as DaemonError {
        if json { output(error.json.serialized()) }
        throw error
    }
}
