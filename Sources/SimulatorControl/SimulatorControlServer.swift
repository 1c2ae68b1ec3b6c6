import LinuxSupport
import Varlink

/// carplay-ecu's `--control` socket: `io.carplayd.Simulator` alone, for the callers
/// `access` allows (carplayd serves the same methods beside `io.carplayd.Vehicle`).
public final class SimulatorControlServer: VarlinkService {
    private let service: SimulatorService
    private let access: SimulatorAccess
    private let log: @Sendable (String) -> Void

    public init(service: SimulatorService, access: SimulatorAccess, log: @escaping @Sendable (String) -> Void) {
        self.service = service
        self.access = access
        self.log = log
    }

    public static let interfaces = [VarlinkInterfaceDescription(name: SimulatorService.interfaceName, text: SimulatorService.interfaceDescription)]

    public func handle(_ call: VarlinkCall, peer: PeerCredentials, replies: VarlinkReplies) async {
        guard access.allows(peer) else {
            log("refused \(call.method) from uid \(peer.uid) gid \(peer.gid) (pid \(peer.pid)): not allowed")
            replies.send(error: SimulatorAccess.notAuthorized(peer))
            return
        }
        if let change = service.handle(call, replies: replies) { log("simulator: \(change)") }
    }
}
