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
