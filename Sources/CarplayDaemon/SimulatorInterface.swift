import CarIntents
import CarplayJSON
import Varlink
import VehicleKit

/// `io.carplayd.Simulator`: a test interface over the embedded simulated vehicle, served
/// only with `--simulator-control` (soaks and fault tests set faults while the daemon
/// runs, and compare the daemon's state with what the vehicle itself holds).
public enum SimulatorInterface {
    public static let name = "io.carplayd.Simulator"

    /// The interface text, served verbatim: docs/io.carplayd.Simulator.varlink.
    public static let description = InterfaceTexts.simulator
}

extension VehicleService {
    func setFaults(_ request: Request) {
        guard let simulator = Self.simulator(request) else { return }
        guard case let .object(plan)? = request.call.parameters["plan"] else {
            request.replies.send(error: VarlinkError("io.carplayd.Simulator.InvalidFaultPlan", ["reason": .string("expected plan: an object {\"rules\": [...]}")]))
            return
        }
        let faults: FaultPlan
        do {
            faults = try FaultPlan(json: JSONNode(value: .object(plan), path: "plan", file: "SetFaults"))
        } catch {
            request.replies.send(error: VarlinkError("io.carplayd.Simulator.InvalidFaultPlan", ["reason": .string(error.description)]))
            return
        }
        simulator.setFaults(faults)
        log.info("simulator: fault plan \(faults.isEmpty ? "cleared" : faults.rules.map(\.description).joined(separator: "; "))")
        request.replies.send(VarlinkReply(parameters: [:]))
    }

    func setDriveState(_ request: Request) {
        guard let simulator = Self.simulator(request) else { return }
        func invalid(_ parameter: String, _ reason: String) {
            request.replies.send(error: VarlinkError("io.carplayd.Simulator.InvalidDriveState", ["parameter": .string(parameter), "reason": .string(reason)]))
        }
        for key in request.call.parameters.keys.sorted() where key != "connector" && key != "speedKmh" {
            return invalid(key, "unknown parameter; expected connector and speedKmh")
        }
        var drive = simulator.driveState()
        switch request.call.parameters["connector"] {
        case nil, .null?: break
        case .string(PropertyKey.noConnector)?: drive.connector = nil
        case let .string(name)?:
            guard let connector = ChargingConnectorType(rawValue: name) else {
                let names = ChargingConnectorType.allCases.map(\.rawValue) + [PropertyKey.noConnector]
                return invalid("connector", "expected one of \(names.joined(separator: ", ")), found \"\(name)\"")
            }
            drive.connector = connector
        default: return invalid("connector", "expected a connector type as a string, or \"none\"")
        }
        switch request.call.parameters["speedKmh"] {
        case nil, .null?: break
        case let value? where value.doubleValue != nil: drive.speedKmh = value.doubleValue!
        default: return invalid("speedKmh", "expected a number (km/h)")
        }
        do {
            try simulator.setDriveState(drive)
        } catch {
            return invalid(error.parameter, error.reason)
        }
        log.info("simulator: drive state \(drive.connector.map { "plugged in (\($0.rawValue))" } ?? "unplugged"), \(drive.speedKmh) km/h")
        request.replies.send(VarlinkReply(parameters: [
            "connector": drive.connector.map { .string($0.rawValue) } ?? .null, "speedKmh": .number(drive.speedKmh),
        ]))
    }

    func getVehicle(_ request: Request) {
        guard let simulator = Self.simulator(request) else { return }
        request.replies.send(VarlinkReply(parameters: [
            "state": simulator.state().jsonValue, "faults": simulator.faults().jsonValue, "statistics": simulator.statistics().jsonValue,
        ]))
    }

    /// The session's simulated vehicle, or nil after answering NoSimulator.
    private static func simulator(_ request: Request) -> SimulatedVehicleNode? {
        guard let vehicle = request.session.vehicle else {
            request.replies.send(error: VarlinkError("io.carplayd.Simulator.NoSimulator", [:]))
            return nil
        }
        return vehicle
    }
}
