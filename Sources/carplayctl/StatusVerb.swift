import CarplayClient
import CarplayJSON
import CarplayProtocol

/// `carplayctl status`: the live state, grouped, or by VSS path.
extension StateVerbs {
    static let statusUsage = """
        usage: carplayctl status [--vss] [--json] [--socket PATH]

          GetState: the live vehicle state from its status frames, grouped: vehicle
          (the car served, from Describe; reachable yes/no, bus), climate, seats, audio and
          radio, body (locks, profile, signals), power. --json prints GetState's reply,
          {"state":{…},"reachable":…,"bus":{…}}.
          --vss: the same state by VSS path, in VSS's units (io.carplayd.VSS.Get), one
          "path = value" line each; with --json its reply, {"values":{…},"reachable":…}.
        \(DaemonOptions.usage)
        """

    static func status(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        var byVSSPath = false
        let positional = try IntentVerbs.parse(arguments, &options) { argument, _ in
            guard argument == "--vss" else { return false }
            byVSSPath = true
            return true
        }
        if let extra = positional.first { throw UsageError("unexpected argument '\(extra)'") }
        return try withDaemonErrorsAsJSON(options.json) {
            let daemon = try DaemonConnection(options)
            if byVSSPath {
                let reply = try daemon.run { try $0.getVSS() }
                if options.json {
                    output(JSONValue.object(reply.json).serialized())
                } else {
                    output(vssLines(reply), newline: false)
                }
                return ExitCode.success
            }
            let reply = try daemon.run { try $0.getState() }
            if options.json {
                output(JSONValue.object(reply.json).serialized())
            } else {
                // Which car's state this is: a daemon serves one profile, chosen or the default.
                let vehicle = try daemon.run { try $0.describe().vehicle }
                output(StatusReport.render(reply, vehicle: vehicle), newline: false)
            }
            return ExitCode.success
        }
    }

    /// io.carplayd.VSS.Get's reply as "path = value" lines in path order, then whether
    /// the vehicle is reachable.
    static func vssLines(_ reply: VSSGetReply) -> String {
        var text = ""
        for (path, value) in reply.values.sorted(by: { $0.key < $1.key }) {
            text += "\(path) = \(value.stringValue ?? value.serialized())\n"
        }
        text += "reachable: \(reply.reachable ? "yes" : "no")\n"
        return text
    }
}
