import CarplayJSON
import LinuxSupport
import Varlink

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

    static let usage = """
          --socket PATH   the daemon's socket (default: $CARPLAYD_SOCKET, else
                          $XDG_RUNTIME_DIR/carplayd/io.carplayd.Vehicle, /run/carplayd/... for root)
          --json          print the daemon's raw reply object instead of a sentence
        """

    /// The socket to use: `--socket`, else `CARPLAYD_SOCKET`, else the default path.
    var socketPath: String { socket ?? CarplaydPaths.defaultSocket() }

    /// Consumes a common option; false when `argument` is not one.
    mutating func consume(_ argument: String, _ arguments: inout ArgumentList, acceptsYes: Bool = true) throws -> Bool {
        switch argument {
        case "--socket": socket = try arguments.value(for: argument)
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

/// A connection to carplayd with the error handling every daemon verb shares.
final class DaemonConnection {
    let path: String
    let client: VarlinkClient
    static let interface = "io.carplayd.Vehicle"

    init(_ options: DaemonOptions) throws(DaemonUnreachable) {
        // A daemon that goes away while we write must give an error, not kill us.
        Signals.ignoreBrokenPipes()
        path = options.socketPath
        do {
            client = try VarlinkClient(path: path)
        } catch {
            throw DaemonUnreachable("cannot connect to carplayd at \(path) (\(error)); is carplayd running? (--socket PATH, CARPLAYD_SOCKET)")
        }
    }

    /// Calls `io.carplayd.Vehicle.METHOD` (or a fully qualified method).
    func call(_ method: String, _ parameters: [String: JSONValue] = [:]) throws -> [String: JSONValue] {
        do {
            return try client.call(Self.qualified(method), parameters)
        } catch {
            throw Self.translate(error, path: path)
        }
    }

    /// Calls with `more`; `body` gets each reply.
    func callMore(_ method: String, _ parameters: [String: JSONValue] = [:], _ body: ([String: JSONValue]) -> Bool) throws {
        do {
            try client.callMore(Self.qualified(method), parameters, body)
        } catch {
            throw Self.translate(error, path: path)
        }
    }

    static func qualified(_ method: String) -> String { method.contains(".") ? method : "\(interface).\(method)" }

    static func translate(_ error: VarlinkClientError, path: String) -> any Error {
        switch error {
        case let .remote(remote): DaemonError(remote)
        case let .transport(reason): DaemonUnreachable("lost the connection to carplayd at \(path): \(reason)")
        }
    }
}

/// A typed error reply of the daemon: a one-line message, exit code 1.
struct DaemonError: Error, CustomStringConvertible {
    var error: VarlinkError
    init(_ error: VarlinkError) { self.error = error }

    /// `{"error":"io.carplayd.Vehicle.NotAuthorized","parameters":{"uid":1000,"gid":1000}}`.
    var json: JSONValue { .object(["error": .string(error.name), "parameters": .object(error.parameters)]) }

    var description: String {
        let p = error.parameters
        func text(_ key: String) -> String {
            guard let value = p[key] else { return "?" }
            return value.stringValue ?? value.serialized()
        }
        switch error.name {
        case "io.carplayd.Vehicle.RestrictedWhileLocked":
            return "\(text("intent")) needs an unlocked device: \(text("reason"))"
        case "io.carplayd.Vehicle.CarLocked":
            return "\(text("intent")) is not allowed while the car is locked (unlock it first)"
        case "io.carplayd.Vehicle.VehicleUnavailable":
            return "the vehicle is unavailable: \(text("reason"))"
        case "io.carplayd.Vehicle.NotAuthorized":
            return "not authorized: uid \(text("uid")) (gid \(text("gid"))) may not use carplayd"
        case "io.carplayd.Vehicle.InvalidParameter", "io.carplayd.Simulator.InvalidParameter":
            return "invalid parameter \(text("parameter")): \(text("reason"))"
        case "io.carplayd.Vehicle.UnknownIntent":
            return "carplayd does not know the intent \(text("intent"))"
        case "org.varlink.service.MethodNotFound":
            return "carplayd has no method \(text("method"))"
        case "org.varlink.service.MethodNotImplemented":
            return "carplayd does not implement \(text("method"))"
        case "org.varlink.service.InterfaceNotFound" where text("interface") == CarVerb.interface:
            return "no simulated vehicle here: \(CarVerb.interface) is not served (a real CAN bus, or simulator-control = off)"
        case "org.varlink.service.InterfaceNotFound":
            return "carplayd has no interface \(text("interface"))"
        case "io.carplayd.Simulator.NotAuthorized":
            return "not authorized: uid \(text("uid")) (gid \(text("gid"))) may not control the simulated vehicle (simulator-control-users)"
        case "io.carplayd.Simulator.InvalidVehicleState":
            return text("key").isEmpty ? "invalid values: \(text("reason"))" : "\(text("key")): \(text("reason"))"
        case "io.carplayd.Simulator.InvalidDriveState":
            return "invalid \(text("parameter")): \(text("reason"))"
        case "io.carplayd.Simulator.NoSimulator":
            return "no simulated vehicle: the daemon drives a CAN interface"
        case "org.varlink.service.InvalidParameter":
            return "invalid parameter \(text("parameter"))" + (p["reason"] == nil ? "" : ": \(text("reason"))")
        case "org.varlink.service.PermissionDenied":
            return "permission denied"
        case "org.varlink.service.ExpectedMore":
            return "the method streams its replies: call it with --more"
        default:
            return error.description
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

// MARK: - Readable values

/// "21.5", "1010", "true" -> "on"… for sentences and tables.
func readableNumber(_ value: Double) -> String {
    let rounded = (value * 100).rounded() / 100
    if rounded.rounded() == rounded, abs(rounded) < 1e15 { return String(Int(rounded)) }
    return rounded.description
}

/// A JSON value as a person reads it: strings bare, numbers short, booleans on/off,
/// temperatures with their unit, objects as `key value` pairs.
func readable(_ value: JSONValue) -> String {
    switch value {
    case .null: return "-"
    case let .bool(flag): return flag ? "on" : "off"
    case let .integer(number): return String(number)
    case let .number(number): return readableNumber(number)
    case let .string(text): return text
    case let .array(values): return values.map(readable).joined(separator: ", ")
    case let .object(object):
        if let number = object["value"]?.doubleValue, let unit = object["unit"]?.stringValue {
            switch unit {
            case "celsius": return "\(readableNumber(number)) °C"
            case "fahrenheit": return "\(readableNumber(number)) °F"
            case "kilometers": return "\(readableNumber(number)) km"
            default: return "\(readableNumber(number)) \(unit)"
            }
        }
        return object.keys.sorted().map { "\($0) \(readable(object[$0]!))" }.joined(separator: ", ")
    }
}

/// "frontLeft" -> "front left", "AUX" stays "AUX".
func spoken(_ name: String) -> String {
    var words = ""
    var previousLower = false
    for character in name {
        if character.isUppercase, previousLower {
            words += " " + character.lowercased()
        } else {
            words.append(character)
        }
        previousLower = character.isLowercase
    }
    return words
}

/// "front left" -> "Front left".
func capitalizedFirst(_ text: String) -> String {
    guard let first = text.first else { return text }
    return first.uppercased() + text.dropFirst()
}
