import CANBus
import CANKit
import CarIntents
import CarplayJSON
import CarplayProtocol
import LinuxSupport
import Synchronization
import Varlink
import VehicleKit

/// `io.carplayd.Vehicle` (and for a simulated vehicle `io.carplayd.Simulator`) over
/// Varlink: a table from method to handler, as systemd binds its Varlink methods. Each
/// handler reads the call, asks the current vehicle session, and maps the outcome to a
/// reply or a typed error.
public final class VehicleService: VarlinkService {
    public static let interfaceName = "io.carplayd.Vehicle"

    /// One call being served: what it asked, who asked, the session it runs on.
    struct Request: Sendable {
        let call: VarlinkCall
        let peer: PeerCredentials
        let session: VehicleSession
        /// The session's state as reply JSON (`DaemonState`).
        let stateJSON: StateJSONCache
        let deviceLock: DeviceLock
        let replies: VarlinkReplies
    }

    typealias Method = @Sendable (VehicleService, Request) async -> Void

    /// Every method served, bound once to its declaration in io.carplayd.Vehicle; the
    /// simulator's are checked by SimulatorService, after its own access rule.
    static let methods = VarlinkMethodTable(
        genericMethods.merging(intentMethods, uniquingKeysWith: { generic, _ in generic }).merging(simulatorMethods, uniquingKeysWith: { own, _ in own })
            .merging(vssMethods, uniquingKeysWith: { own, _ in own }),
        declaredBy: [interface, vssInterface])

    /// The methods that take any intent as data (Resolve, Confirm, Handle, Perform), and
    /// Describe, GetState, GetBusTraffic, Monitor.
    static let genericMethods: [String: Method] = [
        "io.carplayd.Vehicle.Describe": { service, request in service.describe(request) },
        "io.carplayd.Vehicle.GetState": { service, request in service.getState(request) },
        "io.carplayd.Vehicle.GetBusTraffic": { service, request in service.getBusTraffic(request) },
        "io.carplayd.Vehicle.Resolve": { service, request in await service.runIntent(.resolve, request) },
        "io.carplayd.Vehicle.Confirm": { service, request in await service.runIntent(.confirm, request) },
        "io.carplayd.Vehicle.Handle": { service, request in await service.runIntent(.handle, request) },
        "io.carplayd.Vehicle.Perform": { service, request in await service.runIntent(.perform, request) },
        "io.carplayd.Vehicle.Monitor": { service, request in await service.monitor(request) },
    ]

    let state: DaemonState
    let log: Logger

    public init(state: DaemonState, log: Logger) {
        self.state = state
        self.log = log
    }

    public func handle(_ call: VarlinkCall, peer: PeerCredentials, replies: VarlinkReplies) async {
        // Authorization and the session in one reading of the daemon's state.
        let (authorized, session, stateJSON, deviceLock) = state.admit(peer)
        guard authorized else {
            log.warning("refused \(call.method) from uid \(peer.uid) gid \(peer.gid) (pid \(peer.pid)): not allowed")
            replies.send(
                error: VarlinkError("\(Self.errorInterface(of: call)).NotAuthorized", ["uid": .integer(Int(peer.uid)), "gid": .integer(Int(peer.gid))]))
            return
        }
        // A missing, unknown or mistyped parameter is named by its path.
        let handler: Method
        switch Self.methods.handler(for: call) {
        case let .success(bound): handler = bound
        case let .failure(refusal):
            replies.send(error: refusal.error(in: Self.errorInterface(of: call)))
            return
        }
        await handler(self, Request(call: call, peer: peer, session: session, stateJSON: stateJSON, deviceLock: deviceLock, replies: replies))
    }

    /// The interface whose errors answer `call`: io.carplayd.VSS's own for its calls,
    /// io.carplayd.Vehicle's for the others (the simulator's checks its own).
    static func errorInterface(of call: VarlinkCall) -> String {
        call.interface == vssInterfaceName ? vssInterfaceName : interfaceName
    }

    // MARK: - Methods

    func describe(_ request: Request) {
        request.replies.send(VarlinkReply(parameters: DescribeReply(request.session.profile).json))
    }

    func getState(_ request: Request) {
        let session = request.session
        let (current, reachable) = session.controller.snapshot()
        let bus = BusStatus(
            interface: session.interface, kind: session.simulatedVehicle != nil ? "embedded" : "socketcan",
            untrustedFrames: session.controller.untrustedFrames, health: session.busHealth())
        guard case let .object(state) = current.jsonValue else { preconditionFailure("a state is an object") }
        let unreadable = session.controller.unreadable.reduce(into: [String: String]()) { $0[$1.key.rawValue] = $1.value }
        request.replies.send(VarlinkReply(parameters: GetStateReply(state: state, reachable: reachable, bus: bus, unreadable: unreadable).json))
    }

    func getBusTraffic(_ request: Request) {
        let (traffic, uptime) = request.session.controller.traffic()
        let database = request.session.profile.database
        let messages = traffic.map { message in
            GetBusTrafficReply.Message(
                id: message.id, name: database.message(id: message.id)?.name, received: message.received, untrusted: message.untrusted,
                sent: message.sent, lastFrame: message.lastReceived?.logLine)
        }
        request.replies.send(VarlinkReply(parameters: GetBusTrafficReply(messages: messages, uptime: uptime).json))
    }

    /// Resolve, Confirm, Handle and Perform: one phase runner, one serializer.
    func runIntent(_ phase: IntentPhase, _ request: Request) async {
        guard let intent = Self.intent(from: request.call, request.replies),
            let outcome = await run(phase, intent, parameters: Self.givenParameters(request.call), request)
        else { return }
        let (members, raw) = outcome.replyMembers { state, version in request.stateJSON.json(state, version: version) }
        request.replies.send(serialized: VarlinkReply(parameters: members).serialized(adding: raw))
    }

    /// Runs a phase of an intent for a call, generic or typed: refused while shutting
    /// down, logged, and a refusal that is a typed error sent as one (then nil).
    func run(
        _ phase: IntentPhase, _ intent: Intent, parameters: JSONValue, _ request: Request, logged: Bool = true, errorsIn interface: String = interfaceName
    ) async -> IntentOutcome? {
        // Intents in flight finish before a graceful stop; new ones are refused.
        guard state.beginCall() else {
            request.replies.send(error: Self.unavailable("carplayd is shutting down", in: interface))
            return nil
        }
        defer { state.endCall() }
        // The clock only for the log line's latency, when there is a line.
        let clock = ContinuousClock()
        let start = logged && log.level <= .info ? clock.now : nil
        let (deviceLock, peer) = (request.deviceLock, request.peer)
        let outcome = await request.session.engine.run(phase, intent) { deviceLock.device(of: peer) }
        if let start { logIntent(outcome, parameters: parameters, latency: clock.now - start, peer: request.peer) }
        if let error = Self.error(for: outcome, in: interface) {
            request.replies.send(error: error)
            return nil
        }
        return outcome
    }

    /// The typed error a phase answers with instead of its reply: Handle needs every
    /// parameter resolved; Handle and Perform refuse an intent restricted while the
    /// caller's device is locked, one the car-lock policy refuses, and an unreachable vehicle. Confirm answers every refusal in its response, and Perform
    /// an unresolved intent (its resolutions say why).
    /// `interface`: whose errors (io.carplayd.VSS declares the same refusals).
    static func error(for outcome: IntentOutcome, in interface: String = interfaceName) -> VarlinkError? {
        switch (outcome.phase, outcome.refusal) {
        case let (.handle, .notResolved(parameter, reason)?):
            invalidParameter(parameter, reason)
        case let (.handle, .restrictedWhileLocked(reason)?), let (.perform, .restrictedWhileLocked(reason)?):
            VarlinkError("\(interface).RestrictedWhileLocked", ["intent": .string(outcome.resolution.intent.name.rawValue), "reason": .string(reason)])
        case (.handle, .carLocked?), (.perform, .carLocked?):
            VarlinkError("\(interface).CarLocked", ["intent": .string(outcome.resolution.intent.name.rawValue)])
        case (.handle, .vehicleUnreachable?), (.perform, .vehicleUnreachable?):
            unavailable("the vehicle sends no status frames", in: interface)
        case let (.handle, .busOff(bus)?), let (.perform, .busOff(bus)?):
            VarlinkError("\(interface).BusOff", ["interface": .string(bus)])
        default:
            nil
        }
    }

    private func logIntent(_ outcome: IntentOutcome, parameters: JSONValue, latency: Duration, peer: PeerCredentials) {
        guard log.level <= .info else { return }
        let name = outcome.resolution.intent.name.rawValue
        let phase = outcome.phase.rawValue
        switch outcome.refusal {
        case _ where outcome.phase == .resolve:
            log.info("resolve \(name) \(Self.compact(parameters)): \(Self.kinds(outcome.resolution))")
            return
        case .notResolved?:
            log.info("\(phase) \(name) \(Self.compact(parameters)): unresolved (\(Self.kinds(outcome.resolution)))")
            return
        case .some:
            log.info("\(phase) \(name) \(Self.compact(parameters)): refused (\(outcome.response.reason ?? outcome.response.code.rawValue))")
        case nil:
            break
        }
        guard outcome.phase == .handle || outcome.phase == .perform else { return }
        let response = outcome.response
        log.intent(
            name: name, parameters: Self.compact(parameters), resolutions: Self.kinds(outcome.resolution),
            frames: outcome.frames, response: response.code.rawValue, reason: response.reason, detail: response.detail,
            latency: latency, peer: peer)
    }

    func monitor(_ request: Request) async {
        guard request.call.more else {
            request.replies.send(error: .expectedMore)
            return
        }
        let commands = request.call.parameters["commands"]?.boolValue ?? false
        for await event in request.session.controller.events(commands: commands) {
            guard request.replies.send(VarlinkReply(parameters: Self.monitorReply(event), continues: true)) else { break }
        }
    }

    /// A Monitor reply: a state change (the changed keys, their values, the frame), or a
    /// command's progress (`command`: CommandProgress in the interface).
    static func monitorReply(_ event: VehicleEvent) -> [String: JSONValue] {
        switch event {
        case let .changed(change):
            var changed: [String: JSONValue] = [:]
            for key in change.keys { changed[key.rawValue] = change.state[key]?.jsonValue ?? .null }
            return MonitorReply(keys: change.keys.map(\.rawValue), state: changed, frame: change.frame.logLine).json
        case let .command(progress):
            var targets: [String: JSONValue] = [:]
            for (key, value) in progress.targets { targets[key.rawValue] = value.jsonValue }
            var command = MonitorReply.Command(id: progress.id, intent: progress.intent, targets: targets, status: .pending)
            switch progress.stage {
            case .pending: break
            case .confirmed: command.status = .confirmed
            case let .failed(failure):
                command.status = .failed
                command.reason = failure.reason
                command.detail = failure.description
            case let .appliedLate(after):
                command.status = .appliedLate
                command.detail = "the vehicle applied it \(after) after it timed out"
            }
            return MonitorReply(command: command).json
        }
    }

    // MARK: - Helpers

    static func unavailable(_ reason: String, in interface: String = interfaceName) -> VarlinkError {
        VarlinkError("\(interface).VehicleUnavailable", ["reason": .string(reason)])
    }

    /// The intent of a Resolve/Confirm/Handle/Perform call (its parameters' types checked
    /// against the declaration already), or nil after sending the error.
    static func intent(from call: VarlinkCall, _ replies: VarlinkReplies) -> Intent? {
        intent(named: call.parameters["intent"]?.stringValue ?? "", parameters: givenParameters(call), replies)
    }

    /// The intent `name` with `parameters`, or nil after sending the typed error that
    /// names what is wrong.
    static func intent(named name: String, parameters: JSONValue, _ replies: VarlinkReplies) -> Intent? {
        do {
            return try Intent(named: name, parameters: parameters)
        } catch {
            if case let .unknownIntent(intent) = error {
                replies.send(error: VarlinkError("io.carplayd.Vehicle.UnknownIntent", ["intent": .string(intent)]))
            } else {
                replies.send(error: invalidParameter(error.parameter.name, error.parameter.reason))
            }
            return nil
        }
    }

    static func invalidParameter(_ parameter: String, _ reason: String) -> VarlinkError {
        VarlinkError("io.carplayd.Vehicle.InvalidParameter", ["parameter": .string(parameter), "reason": .string(reason)])
    }

    static func kinds(_ resolution: IntentResolution) -> String {
        var text = ""
        for (name, result) in resolution.parameters where result != .notRequired {
            if !text.isEmpty { text += " " }
            text += name
            text += "="
            text += result.kind.rawValue
        }
        return text
    }

    /// The call's `parameters` object as `intent(from:)` read it (absent or null: `{}`).
    static func givenParameters(_ call: VarlinkCall) -> JSONValue {
        switch call.parameters["parameters"] {
        case nil, .null?: .object([:])
        case let value?: value
        }
    }

    /// The intent's parameters as the client sent them (parsed and re-serialized, so one
    /// line), for the log, cut to a readable length.
    static func compact(_ parameters: JSONValue) -> String {
        let text = parameters.serialized(sortedKeys: true)
        return text.utf8.count > 300 ? String(text.prefix(300)) + "… (\(text.utf8.count) bytes)" : text
    }
}
