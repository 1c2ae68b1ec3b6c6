import CarIntents
import SimulatorControl
import Varlink
import VehicleSimulator

/// `io.carplayd.Simulator` on the daemon's socket: the embedded vehicle's panel, faults and
/// drive state (SimulatorService), for the callers `SimulatorAccess` allows. Not served on
/// a real bus (Daemon.serve leaves it out of the interfaces: InterfaceNotFound).
public enum SimulatorInterface {
    public static let name = SimulatorService.interfaceName

    /// The interface text, served verbatim: docs/io.carplayd.Simulator.varlink.
    public static let description = SimulatorService.interfaceDescription
}

extension VehicleSession {
    /// The embedded simulated vehicle, which io.carplayd.Simulator drives; nil on a CAN
    /// interface or a replay.
    var simulatedVehicle: SimulatedVehicleNode? { (inProcessNode as? EmbeddedVehicle)?.vehicle }
}

extension VehicleService {
    /// io.carplayd.Simulator's methods, as SimulatorService serves them: each through the
    /// simulator's access rule (`simulator(_:)`).
    static let simulatorMethods: [String: Method] = {
        let forward: Method = { service, request in service.simulator(request) }
        return Dictionary(uniqueKeysWithValues: SimulatorService.methodNames.map { ($0, forward) })
    }()

    /// Any method of the interface: the simulator's own access rule on top of the
    /// daemon's, then the shared implementation over the session's vehicle.
    func simulator(_ request: Request) {
        // A reload to a CAN interface (or to simulator-control = off) leaves the interface
        // listed until a restart: no simulator is offered then.
        guard let vehicle = request.session.simulatedVehicle, let access = state.simulatorAccess else {
            request.replies.send(error: SimulatorService.noSimulator)
            return
        }
        guard access.allows(request.peer) else {
            let peer = request.peer
            log.warning("refused \(request.call.method) from uid \(peer.uid) gid \(peer.gid) (pid \(peer.pid)): not a simulator-control user")
            request.replies.send(error: SimulatorAccess.notAuthorized(peer))
            return
        }
        let service = SimulatorService(vehicle: vehicle, profile: request.session.profile)
        if let change = service.handle(request.call, replies: request.replies) { log.info("simulator: \(change)") }
    }
}
