import CarplayJSON

/// `carplayctl car`: play the driver of a simulated car (io.carplayd.Simulator, on
/// carplayd's embedded vehicle or carplay-ecu's --control socket): what the car does on
/// its own, which the daemon learns only from its status frames.
enum CarVerb {
    static let interface = "io.carplayd.Simulator"

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
        guard !positional.isEmpty else { throw UsageError("give set, plug, drive or show; see carplayctl car --help") }
        let command = positional.removeFirst()
        let method: String
        var parameters: [String: JSONValue] = [:]
        switch command {
        case "set":
            parameters["values"] = .object(try values(positional))
            method = "SetVehicleState"
        case "plug":
            guard positional.count == 1 else { throw UsageError("car plug takes one connector (ccs2, mennekes, ...) or none") }
            parameters["connector"] = .string(positional[0])
            method = "SetDriveState"
        case "drive":
            guard positional.count == 1, let speed = Double(positional[0]) else { throw UsageError("car drive takes a speed in km/h (0 stops)") }
            parameters["speedKmh"] = .number(speed)
            method = "SetDriveState"
        case "show":
            guard positional.isEmpty else { throw UsageError("unexpected argument '\(positional[0])'") }
            method = "GetVehicle"
        default:
            throw UsageError("unknown car command \(command); give set, plug, drive or show")
        }
        return try withDaemonErrorsAsJSON(options.json) {
            let reply = try DaemonConnection(options).call("\(interface).\(method)", parameters)
            output(options.json ? JSONValue.object(reply).serialized() : render(command, reply), newline: options.json)
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

    static func render(_ command: String, _ reply: [String: JSONValue]) -> String {
        func lines(_ object: [String: JSONValue]) -> String {
            object.keys.sorted().map { "  \($0) = \(readable(object[$0]!))\n" }.joined()
        }
        func drive(_ drive: [String: JSONValue]) -> String {
            let connector = drive["connector"]?.stringValue
            let speed = drive["speedKmh"]?.doubleValue ?? 0
            return connector.map { "plugged in at \($0)" } ?? (speed > 0 ? "driving at \(readableNumber(speed)) km/h" : "parked, not plugged in")
        }
        switch command {
        case "set": return "The driver set:\n" + lines(reply["values"]?.objectValue ?? [:])
        case "plug", "drive": return "The car is \(drive(reply)).\n"
        default:
            var text = "The vehicle holds:\n" + lines(reply["state"]?.objectValue ?? [:])
            if let state = reply["drive"]?.objectValue { text += "Drive: \(drive(state))\n" }
            let rules = reply["faults"]?.objectValue?["rules"]?.arrayValue ?? []
            text += rules.isEmpty ? "Faults: none\n" : "Faults: \(JSONValue.array(rules).serialized())\n"
            return text
        }
    }
}
