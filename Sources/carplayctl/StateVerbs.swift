import CarplayClient
import CarplayDash
import CarplayJSON
import CarplayProtocol
import CarplayText
import LinuxSupport
import VehicleKit

/// `status`, `monitor`, `describe`, `call`: the daemon's other methods.
enum StateVerbs {
    static func noPositional(_ arguments: [String], _ options: inout DaemonOptions) throws {
        let positional = try IntentVerbs.parse(arguments, &options) { _, _ in false }
        if let extra = positional.first { throw UsageError("unexpected argument '\(extra)'") }
    }

    /// A verb that makes one request without parameters and prints the reply: as JSON
    /// with `--json`, else as `render` writes it.
    static func showReply<Reply: CarplaydReply>(
        _ arguments: [String], _ request: (CarplaydClient) throws -> Reply, render: (Reply) -> String
    ) throws -> Int32 {
        var options = DaemonOptions()
        try noPositional(arguments, &options)
        return try withDaemonErrorsAsJSON(options.json) {
            let reply = try DaemonConnection(options).run(request)
            if options.json {
                output(JSONValue.object(reply.json).serialized())
            } else {
                output(render(reply), newline: false)
            }
            return ExitCode.success
        }
    }

    // MARK: - monitor

    static let monitorUsage = """
        usage: carplayctl monitor [--commands] [--json] [--socket PATH]

          Monitor: one line per change of the live state, until interrupted (or the daemon
          ends the stream):
            12:00:01.250  climate.temperature.left=22.5 climate.fan=on  (1700000000.123456) vcan0 3A1#2D00
          the local time, the changed keys with their new values, the frame that changed
          them. --commands adds a line when the daemon sends a command for an intent (any
          client's) and one when the vehicle confirms it or it fails:
            12:00:01.200  → SetSeatSettingsInCar seat.frontLeft.heating=2 pending
            12:00:01.250  seat.frontLeft.heating=2  (1700000000.123456) vcan0 3B0#02
            12:00:01.251  → SetSeatSettingsInCar seat.frontLeft.heating=2 confirmed
          --json prints each reply object on a line of its own.
        \(DaemonOptions.usage)
        """

    static func monitor(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        var commands = false
        let positional = try IntentVerbs.parse(arguments, &options) { argument, _ in
            guard argument == "--commands" else { return false }
            commands = true
            return true
        }
        if let extra = positional.first { throw UsageError("unexpected argument '\(extra)'") }
        return try withDaemonErrorsAsJSON(options.json) {
            try DaemonConnection(options).run { client in
                try client.monitor(commands: commands) { reply in
                    output(options.json ? JSONValue.object(reply.json).serialized() : monitorLine(reply))
                    return true
                }
            }
            return ExitCode.success
        }
    }

    static func monitorLine(_ reply: MonitorReply) -> String {
        if let command = reply.command {
            let targets = command.targets
            let assignments = targets.keys.sorted().map { "\($0)=\(readable(targets[$0]!))" }.joined(separator: " ")
            var status = command.status.rawValue
            if let detail = command.detail { status += ": " + detail }
            let what = ["→", command.intent?.rawValue ?? "command", assignments, status].filter { !$0.isEmpty }.joined(separator: " ")
            return clockTime() + "  " + what
        }
        let changes = reply.keys.map { "\($0)=\(reply.state[$0].map(readable) ?? "?")" }.joined(separator: " ")
        return [clockTime(), changes, reply.frame ?? ""].filter { !$0.isEmpty }.joined(separator: "  ")
    }

    /// "12:00:01.250", local time.
    static func clockTime() -> String {
        let now = WallClock.timeOfDay()
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = now.millisecond
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(two(now.hour)):\(two(now.minute)):\(two(now.second)).\(fraction)"
    }

    // MARK: - traffic

    static let trafficUsage = """
        usage: carplayctl traffic [--json] [--socket PATH]

          GetBusTraffic: every CAN ID the bus carried since the daemon's vehicle session
          started, with its DBC message, the frames received (and of them untrusted: failed
          their E2E or checksum check), the mean rate since the start, the frames carplayd
          sent with it, and the last payload received:
            ID   message        received  Hz (mean)  untrusted  sent  last data
            400  ClimateStatus      1234       10.0          0     0  D731161A0B007D00
          --json prints the reply ({"messages":[…],"uptime":…}). The dash's frame pane shows
          the same with rates over the last 10 s.
        \(DaemonOptions.usage)
        """

    static func traffic(_ arguments: [String]) throws -> Int32 {
        try showReply(arguments, { try $0.getBusTraffic() }, render: TrafficReport.render)
    }

    // MARK: - describe

    static let describeUsage = """
        usage: carplayctl describe [--json] [--socket PATH]

          Describe: the vehicle the daemon drives -- its profile's capabilities (car names,
          climate zones, seats and features, radio bands and presets, audio sources, profile
          slots, car commands, policies), as an indented outline.
        \(DaemonOptions.usage)
        """

    static func describe(_ arguments: [String]) throws -> Int32 {
        try showReply(arguments, { try $0.describe() }, render: { outline($0.vehicle.json) })
    }

    /// An indented outline of a JSON value: `key: value` for scalars and lists of
    /// scalars, nested objects indented under their key.
    static func outline(_ value: JSONValue, indent: String = "") -> String {
        switch value {
        case let .object(object):
            var text = ""
            for key in object.keys.sorted() {
                let member = object[key]!
                if isFlat(member) {
                    text += "\(indent)\(key): \(flat(member))\n"
                } else if case let .array(elements) = member {
                    text += "\(indent)\(key):\n"
                    for element in elements {
                        let body = outline(element, indent: indent + "    ")
                        text += "\(indent)  - " + body.dropFirst(indent.count + 4)
                    }
                } else {
                    text += "\(indent)\(key):\n" + outline(member, indent: indent + "  ")
                }
            }
            return text.isEmpty ? "\(indent)(none)\n" : text
        default:
            return "\(indent)\(flat(value))\n"
        }
    }

    static func isFlat(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let object): object.isEmpty || (object["value"] != nil && object["unit"] != nil && object.count == 2)
        case .array(let elements): elements.allSatisfy { if case .object = $0 { false } else if case .array = $0 { false } else { true } }
        default: true
        }
    }

    /// Scalars as written in JSON except strings (bare); lists comma-separated.
    static func flat(_ value: JSONValue) -> String {
        switch value {
        case let .array(elements): elements.isEmpty ? "(none)" : elements.map(flat).joined(separator: ", ")
        case let .object(object) where object.isEmpty: "(none)"
        case let .bool(flag): flag ? "yes" : "no"
        default: readable(value)
        }
    }

    // MARK: - call

    static let callUsage = """
        usage: carplayctl call METHOD ['PARAMETERS_JSON'] [--more] [--socket PATH]

          A raw Varlink call. METHOD is io.carplayd.Vehicle.NAME, or just NAME for that
          interface (GetState, Describe, Resolve, Perform, ...); org.varlink.service.GetInfo
          works too. Prints the reply's parameters as one JSON object per line; --more asks
          for a stream (Monitor) and prints every reply until the last. An error reply is
          printed as {"error":NAME,"parameters":{…}} and exits 1.
          --socket PATH   as for every daemon verb

        examples:
          carplayctl call GetState
          carplayctl call Resolve '{"intent":"SetRadioStation","parameters":{"stationName":"Jazz"}}'
          carplayctl call Monitor --more
        """

    static func call(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        var more = false
        let positional = try IntentVerbs.parse(arguments, &options) { argument, _ in
            guard argument == "--more" else { return false }
            more = true
            return true
        }
        guard (1...2).contains(positional.count) else { throw UsageError("give a method and optionally its parameters as a JSON object") }
        var parameters: [String: JSONValue] = [:]
        if positional.count == 2 {
            let value: JSONValue
            do {
                value = try JSONValue(parsing: positional[1])
            } catch {
                // Where it breaks: a truncated object is malformed, not "not an object".
                throw UsageError("parameters: \(error.message)")
            }
            guard case let .object(object) = value else {
                throw UsageError("parameters must be a JSON object, e.g. '{\"intent\":\"GetCarLockStatus\"}'")
            }
            parameters = object
        }
        return try withDaemonErrorsAsJSON(true) {
            let daemon = try DaemonConnection(options)
            if more {
                try daemon.run { client in
                    try client.callMore(positional[0], parameters) { reply in
                        output(JSONValue.object(reply).serialized())
                        return true
                    }
                }
            } else {
                output(JSONValue.object(try daemon.run { try $0.call(positional[0], parameters) }).serialized())
            }
            return ExitCode.success
        }
    }
}

/// `carplayctl status` as a person reads it.
enum StatusReport {
    /// `vehicle`: Describe's, for the car's name and profile.
    static func render(_ reply: GetStateReply, vehicle: VehicleDescription) -> String {
        var state = reply.state
        var lines: [String] = []
        func take(_ key: String) -> JSONValue? { state.removeValue(forKey: key) }
        func row(_ label: String, _ value: String) { lines.append("  \(padded(label, 14))\(value)") }
        func onOff(_ key: String) -> String? { take(key).map(readable) }

        // Vehicle.
        lines.append("vehicle")
        row("car", "\(vehicle.name) (profile \(vehicle.identifier))")
        row("reachable", reply.reachable ? "yes" : "no")
        row("bus", members(reply.bus).map { "\($0.name) \($0.value)" }.joined(separator: ", "))

        // Climate.
        var climate: [(String, String)] = []
        let zones = state.keys.filter { $0.hasPrefix("climate.temperature.") }.sorted()
        if !zones.isEmpty {
            climate.append(("temperature", zones.map { "\($0.dropFirst("climate.temperature.".count)) \(celsius(take($0)!))" }.joined(separator: ", ")))
        }
        if let cabin = take("climate.cabinTemperature") { climate.append(("cabin", celsius(cabin))) }
        var fan: [String] = []
        if let on = onOff("climate.fan") { fan.append(on) }
        if let speed = take("climate.fanSpeed") { fan.append("speed \(readable(speed))") }
        if !fan.isEmpty { climate.append(("fan", fan.joined(separator: ", "))) }
        if let ac = onOff("climate.airConditioner") { climate.append(("A/C", ac)) }
        if let auto = onOff("climate.autoMode") { climate.append(("auto", auto)) }
        // The whole car's climate, then each climate control zone's own ("on, rear off").
        var system = onOff("climate.climateControl").map { [$0] } ?? []
        for key in state.keys.filter({ $0.hasPrefix("climate.climateControl.") }).sorted() {
            system.append("\(key.dropFirst("climate.climateControl.".count)) \(onOff(key)!)")
        }
        if !system.isEmpty { climate.append(("climate", system.joined(separator: ", "))) }
        if let air = take("climate.airCirculation")?.stringValue { climate.append(("air", air == "recirculateAir" ? "recirculated" : "fresh")) }
        for key in ["defroster.front", "defroster.rear"] {
            if let flag = onOff(key) { climate.append(("\(key.dropFirst("defroster.".count)) defroster", flag)) }
        }
        section("climate", climate, into: &lines)

        // Seats: one row per seat, its features.
        var seats: [(String, String)] = []
        let seatKeys = state.keys.filter { $0.hasPrefix("seat.") }
        let seatNames = Set(seatKeys.map { $0.split(separator: ".")[1] }).sorted()
        for seat in seatNames {
            let features = ["heating", "cooling", "massage"].compactMap { feature in
                take("seat.\(seat).\(feature)").map { "\(feature) \(level($0))" }
            }
            if !features.isEmpty { seats.append((String(seat), features.joined(separator: ", "))) }
        }
        section("seats", seats, into: &lines)

        // Audio and radio.
        var audio: [(String, String)] = []
        if let source = take("audio.source") { audio.append(("source", readable(source))) }
        let radio = ["radio.band", "radio.frequency", "radio.channel"].reduce(into: [String: JSONValue]()) { $0[$1] = take($1) }
        if let text = IntentSentence.radioText(radio) { audio.append(("radio", text)) }
        section("audio", audio, into: &lines)

        // Body.
        var body: [(String, String)] = []
        if let locked = take("lock.locked") { body.append(("locked", locked == .bool(true) ? "yes" : "no")) }
        if let active = take("profile.active") { body.append(("profile", active == .integer(0) ? "none" : readable(active))) }
        let signals = ["signal.visible": "lights", "signal.audible": "horn"].keys.sorted().compactMap { key -> String? in
            guard let flag = take(key) else { return nil }
            return "\(key == "signal.visible" ? "lights" : "horn") \(readable(flag))"
        }
        if !signals.isEmpty { body.append(("signals", signals.joined(separator: ", "))) }
        section("body", body, into: &lines)

        // Power.
        var power: [(String, String)] = []
        if let fuel = take("power.fuelPercent")?.doubleValue { power.append(("fuel", "\(readableNumber(fuel)) %")) }
        if let charge = take("power.chargePercent")?.doubleValue { power.append(("charge", "\(readableNumber(charge)) %")) }
        if let charging = take("power.charging") { power.append(("charging", charging == .bool(true) ? "yes" : "no")) }
        if let minutes = take("power.minutesToFull") { power.append(("to full", "\(readable(minutes)) min")) }
        if let distance = take("power.distanceRemaining")?.doubleValue { power.append(("range", "\(readableNumber(distance)) km")) }
        section("power", power, into: &lines)

        // What carplayd reads that no SiriKit intent carries.
        var extensions: [(String, String)] = []
        for key in state.keys.filter({ $0.hasPrefix(PropertyKey.extensionPrefix) }).sorted() {
            let value = take(key)!
            switch PropertyKey(key) {
            case .outsideTemperature: extensions.append(("outside", celsius(value)))
            case .autoDefog: extensions.append(("auto defog", readable(value)))
            default: extensions.append((String(key.dropFirst(PropertyKey.extensionPrefix.count)), readable(value)))
            }
        }
        section("extensions", extensions, into: &lines)

        // Whatever else the vehicle reports.
        section("other", state.keys.sorted().map { ($0, readable(state[$0]!)) }, into: &lines)

        // Bound properties the car's last status left without a value, and why.
        if !reply.unreadable.isEmpty {
            lines.append("unreadable")
            for key in reply.unreadable.keys.sorted() { lines.append("  \(key): \(reply.unreadable[key]!)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The bus's members by the interface's names, in name order.
    static func members(_ bus: BusStatus) -> [(name: String, value: String)] {
        let health = bus.health
        return [("droppedFrames", "\(health.droppedFrames)"), ("errorFrames", "\(health.errorFrames)"), ("interface", bus.interface), ("kind", bus.kind)]
            + (health.lastError.map { [("lastError", $0)] } ?? [])
            + [("restarts", "\(health.restarts)"), ("state", health.state.rawValue), ("untrustedFrames", "\(bus.untrustedFrames)")]
    }

    static func section(_ title: String, _ rows: [(String, String)], into lines: inout [String]) {
        guard !rows.isEmpty else { return }
        lines.append(title)
        for (label, value) in rows { lines.append("  \(padded(label, 14))\(value)") }
    }

    static func celsius(_ value: JSONValue) -> String {
        value.doubleValue.map { "\(readableNumber($0)) °C" } ?? readable(value)
    }

    /// Seat levels: 0 is off.
    static func level(_ value: JSONValue) -> String { value == .integer(0) ? "off" : readable(value) }
}

/// `carplayctl traffic`: GetBusTraffic as a table.
enum TrafficReport {
    static func render(_ reply: GetBusTrafficReply) -> String {
        let uptime = reply.uptime
        let messages = reply.messages
        let rows: [[String]] = messages.map { message in
            let data = message.lastFrame.flatMap { $0.split(separator: "#", maxSplits: 1).last.map(String.init) } ?? ""
            return [
                message.id.description, message.name ?? "?", "\(message.received)",
                uptime > 0 ? DashRenderer.oneDecimal(Double(message.received) / uptime) : "0.0",
                "\(message.untrusted)", "\(message.sent)", data,
            ]
        }
        let header = "\(messages.count) CAN ID\(messages.count == 1 ? "" : "s") in \(DashRenderer.oneDecimal(uptime)) s\n"
        return header + textTable(["ID", "message", "received", "Hz (mean)", "untrusted", "sent", "last data"], rows, rightAligned: [2, 3, 4, 5])
    }
}
