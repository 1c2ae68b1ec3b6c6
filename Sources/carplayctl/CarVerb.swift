import CarplayClient
import CarplayJSON
import CarplayProtocol
import CarplayText
import VehicleKit

/// `carplayctl car`: play the driver of a simulated car (io.carplayd.Simulator, on
/// carplayd's embedded vehicle or carplay-ecu's --control socket): what the car does on
/// its own, which the daemon learns only from its status frames.
enum CarVerb {
    static let usage = """
        usage: carplayctl car set KEY VALUE [KEY VALUE...] [--json] [--socket PATH]
               carplayctl car plug CONNECTOR|none [--json] [--socket PATH]
               carplayctl car drive KMH [--json] [--socket PATH]
               carplayctl car show [--json] [--socket PATH]

          The car's own panel, on a simulated vehicle (never on a real bus):
            set    the driver changes properties, as keys of `carplayctl status --json`:
                   carplayctl car set climate.temperature.left 19 seat.frontLeft.heating 2
                   (on/off, true/false, numbers, case names; checked against the car)
            plug   plug a charger in at one of the car's connectors (ccs2, mennekes...), or none
            drive  drive at KMH (0 stops); charge or fuel and range fall
            show   what the vehicle itself holds (not what the daemon read from the bus),
                   its drive state and faults
          Works against carplayd (the embedded vehicle) and carplay-ecu --control PATH.
        \(DaemonOptions.usage)
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        var positional = try IntentVerbs.parse(arguments, &options) { _, _ in false }
        guard !positional.isEmpty else { throw UsageError("give set, plug, drive or show") }
        let command = positional.removeFirst()
        // The request and how its reply reads, both decided before connecting: a usage
        // error sends nothing.
        let request: (CarplaydClient) throws -> (json: [String: JSONValue], text: String)
        switch command {
        case "set":
            let values = try values(positional)
            request = { client in
                let reply = try client.setVehicleState(values)
                return (reply.json, "The driver set:\n" + lines(reply.values))
            }
        case "plug":
            guard positional.count == 1 else { throw UsageError("car plug takes one connector (ccs2, mennekes, ...) or none") }
            let connector = positional[0]
            request = { client in
                let reply = try client.setDriveState(connector: connector)
                return (reply.json, "The car is \(describe(reply.drive)).\n")
            }
        case "drive":
            guard positional.count == 1, let speed = Double(positional[0]) else { throw UsageError("car drive takes a speed in km/h (0 stops)") }
            request = { client in
                let reply = try client.setDriveState(speedKmh: speed)
                return (reply.json, "The car is \(describe(reply.drive)).\n")
            }
        case "show":
            guard positional.isEmpty else { throw UsageError("unexpected argument '\(positional[0])'") }
            request = { client in
                let reply = try client.getVehicle()
                return (reply.json, show(reply))
            }
        default:
            throw UsageError("unknown car command \(command); give set, plug, drive or show")
        }
        return try withDaemonErrorsAsJSON(options.json) {
            let reply = try DaemonConnection(options).run(request)
            output(options.json ? JSONValue.object(reply.json).serialized() : reply.text, newline: options.json)
            return ExitCode.success
        }
    }

    /// `KEY VALUE` pairs as the values object; the daemon checks them against the car.
    static func values(_ words: [String]) throws -> [String: JSONValue] {
        guard !words.isEmpty, words.count % 2 == 0 else { throw UsageError("car set takes KEY VALUE pairs, e.g. climate.temperature.left 19") }
        var values: [String: JSONValue] = [:]
        for index in stride(from: 0, to: words.count, by: 2) {
            guard values[words[index]] == nil else { throw UsageError("\(words[index]) given twice") }
            values[words[index]] = value(words[index + 1])
        }
        return values
    }

    /// A word as the JSON value it most likely means: on/off and true/false, an integer,
    /// a number, else a case name.
    static func value(_ word: String) -> JSONValue {
        switch word {
        case "on", "true", "yes": return .bool(true)
        case "off", "false", "no": return .bool(false)
        default:
            if let integer = Int(word) { return .integer(integer) }
            if let number = Double(word), number.isFinite { return .number(number) }
            return .string(word)
        }
    }

    /// `key = value` lines, keys in order.
    static func lines(_ object: [String: JSONValue]) -> String {
        object.keys.sorted().map { "  \($0) = \(readable(object[$0]!))\n" }.joined()
    }

    static func describe(_ drive: DriveState) -> String {
        drive.connector.map { "plugged in at \($0.rawValue)" }
            ?? (drive.speedKmh > 0 ? "driving at \(readableNumber(drive.speedKmh)) km/h" : "parked, not plugged in")
    }

    static func show(_ reply: GetVehicleReply) -> String {
        var text = "The vehicle holds:\n" + lines(reply.state)
        text += "Drive: \(describe(reply.drive))\n"
        text += reply.faultRules.isEmpty ? "Faults: none\n" : "Faults: \(JSONValue.array(reply.faultRules).serialized())\n"
        return text
    }
}
