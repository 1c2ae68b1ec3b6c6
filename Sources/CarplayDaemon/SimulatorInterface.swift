import CarIntents
import CarplayJSON
import Varlink
import VehicleKit

/// `io.carplayd.Simulator`: a test interface over the embedded simulated vehicle, served
/// only with `--simulator-control` (soaks and fault tests set faults while the daemon
/// runs, and compare the daemon's state with what the vehicle itself holds).
public enum SimulatorInterface {
    public static let name = "io.carplayd.Simulator"

    public static let description = """
# carplayd's embedded simulated vehicle, for tests and soaks (carplayd --simulator-control).
# Not served otherwise; never on a real CAN interface.
interface io.carplayd.Simulator

# Replaces the simulated vehicle's fault plan (docs/SIMULATION.md), e.g.
# {"rules": [{"kind": "reject", "property": "climate.", "count": 2}]}; {"rules": []} clears it.
# Time windows (fromMs, untilMs) count from the vehicle's start.
method SetFaults(plan: object) -> ()

# What the vehicle itself holds (not what its status frames told the daemon), the
# faults still in force, and its statistics (commands received, applied, rejected,
# dropped, E2E errors, frames sent and suppressed...).
method GetVehicle() -> (state: object, faults: object, statistics: object)

# The fault plan is not valid.
error InvalidFaultPlan (reason: string)

# The daemon drives a CAN interface: there is no simulated vehicle in it.
error NoSimulator ()

"""
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
