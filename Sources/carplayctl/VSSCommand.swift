import CarplayJSON
import CarplayProtocol
import VehicleKit

/// `carplayctl vss`: carplayd's VSS mapping (VSSCatalog), offline.
enum VSSCommand {
    static let usage = """
        usage: carplayctl vss catalog [--profile DIR] [--json]

          The VSS \(VSSCatalog.release) paths carplayd maps its properties to (with its overlay,
          vss/carplayd.vspec, for what VSS lacks): datatype, unit, sensor or actuator, the
          carplayd keys each reads. Without --profile every path carplayd can map; with it,
          what that vehicle profile binds, as io.carplayd.VSS.Describe answers for it.
          --json: one object, {"release":…,"signals":[{"path":…,…}]}.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard arguments.first == "catalog" else {
            throw UsageError(arguments.first.map { "unknown vss command '\($0)'" } ?? "missing catalog")
        }
        var json = false
        var directory: String?
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": json = true
            case "--profile":
                guard let value = rest.popFirst() else { throw UsageError("--profile needs a directory") }
                directory = value
            default: throw UsageError("unknown argument \(argument)")
            }
        }
        let catalog: VSSCatalog
        if let directory {
            do {
                catalog = VSSCatalog(profile: try ProfileCommand.load(directory))
            } catch {
                printError(error.description)
                return ExitCode.failure
            }
        } else {
            catalog = .everything
        }
        if json {
            output(JSONValue.object(VSSDescribeReply(release: VSSCatalog.release, signals: catalog.signals).json).serialized())
        } else {
            for signal in catalog.signals {
                let unit = signal.unit.map { " \($0)" } ?? ""
                let origin = signal.overlay ? " (overlay)" : ""
                print(
                    "\(signal.path)  \(signal.entryType.rawValue) \(signal.datatype.rawValue)\(unit)\(origin)  <- \(signal.keys.map(\.rawValue).joined(separator: ", "))"
                )
            }
        }
        return ExitCode.success
    }
}
