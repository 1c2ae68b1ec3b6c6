import CANBus
import CANKit
import CarIntents
import CarplayJSON
import Synchronization
import LinuxSupport
import Varlink
import VehicleKit

/// `io.carplayd.Vehicle` over Varlink: each method on the current vehicle runtime.
public final class VehicleService: VarlinkService {
    public static let interfaceName = "io.carplayd.Vehicle"

    private let state: DaemonState
    let log: Logger

    public init(state: DaemonState, log: Logger) {
        self.state = state
        self.log = log
    }

    public func handle(_ call: VarlinkCall, peer: PeerCredentials, replies: VarlinkReplies) async {
        // Authorization and the runtime in one hop to the daemon's state.
        let (authorized, runtime) = await state.admit(peer)
        guard authorized else {
            log.warning("refused \(call.method) from uid \(peer.uid) gid \(peer.gid) (pid \(peer.pid)): not allowed")
            replies.send(error: VarlinkError("io.carplayd.Vehicle.NotAuthorized", ["uid": .integer(Int(peer.uid)), "gid": .integer(Int(peer.gid))]))
            return
        }
        if call.interface == SimulatorInterface.name {
            await handleSimulator(call, runtime: runtime, replies: replies)
            return
        }
        switch call.member {
        case "Describe":
            guard Self.noParameters(call, replies) else { return }
            replies.send(VarlinkReply(parameters: ["vehicle": VehicleDescription.json(runtime.profile)]))
        case "GetState":
            guard Self.noParameters(call, replies) else { return }
            let current = await runtime.controller.currentState
            let reachable = await runtime.controller.isReachable
            let trustFailures = await runtime.controller.trustFailures
            let health = await runtime.busHealth()
            var bus: [String: JSONValue] = [
                "interface": .string(runtime.interface), "kind": .string(runtime.isEmbedded ? "embedded" : "socketcan"),
                "untrustedFrames": .integer(trustFailures), "state": .string(health.state.rawValue),
                "droppedFrames": .integer(Int(health.droppedFrames)), "errorFrames": .integer(health.errorFrames),
                "restarts": .integer(health.restarts),
            ]
            if let lastError = health.lastError { bus["lastError"] = .string(lastError) }
            replies.send(VarlinkReply(parameters: ["state": current.jsonValue, "reachable": .bool(reachable), "bus": .object(bus)]))
        case "Resolve", "Confirm", "Handle", "Perform":
            guard let intent = Self.intent(from: call, replies) else { return }
            // Intents in flight finish before a graceful stop; new ones are refused.
            guard await state.beginCall() else {
                replies.send(error: Self.unavailable("carplayd is shutting down"))
                return
            }
            await phase(call.member, intent: intent, parameters: Self.givenParameters(call), runtime: runtime, peer: peer, replies: replies)
            await state.endCall()
        case "Monitor":
            guard call.more else {
                replies.send(error: .expectedMore)
                return
            }
            guard Self.noParameters(call, replies) else { return }
            for await change in await runtime.controller.changes() {
                var changed: [String: JSONValue] = [:]
                for key in change.keys { changed[key.rawValue] = change.state[key]?.jsonValue ?? .null }
                let sent = replies.send(VarlinkReply(parameters: [
                    "keys": .array(change.keys.map { .string($0.rawValue) }), "state": .object(changed), "frame": .string(change.frame.logLine),
                ], continues: true))
                if !sent { break }
            }
        default:
            replies.send(error: .methodNotFound(call.method))
        }
    }

    private func phase(_ member: String, intent: Intent, parameters: JSONValue, runtime: VehicleRuntime, peer: PeerCredentials, replies: VarlinkReplies) async {
        let engine = runtime.engine
        let clock = ContinuousClock()
        let start = clock.now
        // Resolve and confirm in one hop to the engine (confirm is nil when unresolved).
        let (resolution, prepared) = await engine.prepare(intent)
        // Handle's reply has no resolutions: build them only for the other phases.
        let resolutions = member == "Handle" ? JSONValue.null : Self.resolutionsJSON(resolution)
        if member == "Resolve" {
            log.info("resolve \(intent.name.rawValue) \(Self.compact(parameters)): \(Self.kinds(resolution))")
            replies.send(VarlinkReply(parameters: ["resolutions": resolutions, "ready": .bool(resolution.action != nil)]))
            return
        }
        if resolution.action == nil {
            log.info("\(member.lowercased()) \(intent.name.rawValue) \(Self.compact(parameters)): unresolved (\(Self.kinds(resolution)))")
            if member == "Handle" {
                let (name, result) = resolution.parameters.first { !$0.result.isResolved } ?? ("parameters", .notRequired)
                replies.send(error: VarlinkError("io.carplayd.Vehicle.InvalidParameter", ["parameter": .string(name), "reason": .string(Self.reason(result))]))
                return
            }
            let response = IntentResponse(code: .failure, reason: "notResolved", fields: [:])
            if member == "Confirm" {
                replies.send(VarlinkReply(parameters: ["resolutions": resolutions, "response": response.jsonValue]))
            } else {
                let state = await runtime.controller.currentState
                replies.send(VarlinkReply(parameters: ["resolutions": resolutions, "response": response.jsonValue, "frames": .array([]), "state": state.jsonValue]))
            }
            return
        }
        let confirmation = prepared ?? IntentResponse(code: .failure, reason: "notResolved", fields: [:])
        if confirmation.code != .ready {
            log.info("\(member.lowercased()) \(intent.name.rawValue) \(Self.compact(parameters)): refused (\(confirmation.reason ?? confirmation.code.rawValue))")
            switch confirmation.reason {
            case "restrictedWhileLocked" where member != "Confirm":
                replies.send(error: VarlinkError("io.carplayd.Vehicle.RestrictedWhileLocked", ["intent": .string(intent.name.rawValue)]))
                return
            case "vehicleUnreachable" where member != "Confirm":
                replies.send(error: Self.unavailable("the vehicle sends no status frames"))
                return
            default:
                break
            }
        }
        if member == "Confirm" {
            replies.send(VarlinkReply(parameters: ["resolutions": resolutions, "response": confirmation.jsonValue]))
            return
        }
        var response = confirmation
        var frames: [ReceivedFrame] = []
        if confirmation.code == .ready {
            (response, frames) = await engine.handle(resolution)
        }
        // The state's JSON is serialized once per state change (by the controller).
        let state = await runtime.controller.stateJSON()
        let elapsed = clock.now - start
        if log.level <= .info {
            log.intent(
                name: intent.name.rawValue, parameters: Self.compact(parameters), resolutions: Self.kinds(resolution),
                frames: frames, response: response.code.rawValue, reason: response.reason, detail: response.fields["detail"]?.stringValue,
                latency: elapsed, peer: peer)
        }
        replies.send(serialized: Self.outcomeReply(frames: frames, resolutions: member == "Perform" ? .some(resolutions) : .none, response: response, state: state))
    }

    /// The serialized reply of a Handle/Perform that reached the vehicle: the frames'
    /// candump lines written straight into JSON bytes and the cached state spliced in
    /// (`VarlinkReply.serialized(adding:)`): every intent ends here. `resolutions`
    /// `.none` leaves the key out (`nil` would be JSON null: `JSONValue` is nil-literal).
    static func outcomeReply(frames: [ReceivedFrame], resolutions: JSONValue?, response: IntentResponse, state: [UInt8]) -> [UInt8] {
        var lines: [UInt8] = [UInt8(ascii: "[")]
        lines.reserveCapacity(frames.count * 64 + 2)
        var line: [UInt8] = []
        line.reserveCapacity(64)
        for (index, frame) in frames.enumerated() {
            if index > 0 { lines.append(UInt8(ascii: ",")) }
            line.removeAll(keepingCapacity: true)
            CandumpWriter.appendLogLine(CandumpRecord(timestamp: frame.timestamp, interface: frame.interface, frame: frame.frame), to: &line)
            line.withUnsafeBufferPointer { JSONBytes.appendString(utf8: $0, to: &lines) }
        }
        lines.append(UInt8(ascii: "]"))
        var parameters: [String: JSONValue] = ["response": response.jsonValue]
        if let resolutions { parameters["resolutions"] = resolutions }
        return VarlinkReply(parameters: parameters).serialized(adding: ["frames": lines, "state": state])
    }

    // MARK: - Helpers

    static func unavailable(_ reason: String) -> VarlinkError {
        VarlinkError("io.carplayd.Vehicle.VehicleUnavailable", ["reason": .string(reason)])
    }

    static func noParameters(_ call: VarlinkCall, _ replies: VarlinkReplies) -> Bool {
        if let unknown = call.parameters.keys.sorted().first {
            replies.send(error: VarlinkError("io.carplayd.Vehicle.InvalidParameter", ["parameter": .string(unknown), "reason": .string("\(call.member) takes no parameters")]))
            return false
        }
        return true
    }

    /// The intent of a Resolve/Confirm/Handle/Perform call, or nil after sending the error.
    static func intent(from call: VarlinkCall, _ replies: VarlinkReplies) -> Intent? {
        for key in call.parameters.keys.sorted() where key != "intent" && key != "parameters" {
            replies.send(error: VarlinkError("io.carplayd.Vehicle.InvalidParameter", ["parameter": .string(key), "reason": .string("unknown parameter; expected intent and parameters")]))
            return nil
        }
        guard case let .string(name)? = call.parameters["intent"] else {
            replies.send(error: VarlinkError("io.carplayd.Vehicle.InvalidParameter", ["parameter": .string("intent"), "reason": .string("expected the intent's name as a string")]))
            return nil
        }
        let parameters = givenParameters(call)
        guard case .object = parameters else {
            replies.send(error: VarlinkError("io.carplayd.Vehicle.InvalidParameter", ["parameter": .string("parameters"), "reason": .string("expected an object")]))
            return nil
        }
        let object: [String: JSONValue] = ["intent": .string(name), "parameters": parameters]
        do {
            return try Intent(json: .object(object))
        } catch {
            switch error {
            case let .unknownIntent(intent):
                replies.send(error: VarlinkError("io.carplayd.Vehicle.UnknownIntent", ["intent": .string(intent)]))
            case let .unknownParameter(_, parameter):
                replies.send(error: VarlinkError("io.carplayd.Vehicle.InvalidParameter", ["parameter": .string(parameter), "reason": .string(error.description)]))
            case let .invalidParameter(parameter, _, _):
                replies.send(error: VarlinkError("io.carplayd.Vehicle.InvalidParameter", ["parameter": .string(parameter), "reason": .string(error.description)]))
            default:
                replies.send(error: VarlinkError("io.carplayd.Vehicle.InvalidParameter", ["parameter": .string("parameters"), "reason": .string(error.description)]))
            }
            return nil
        }
    }

    static func resolutionsJSON(_ resolution: IntentResolution) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for (name, result) in resolution.parameters { object[name] = result.jsonValue }
        return .object(object)
    }

    static func reason(_ result: ResolutionResult) -> String {
        switch result {
        case let .needsValue(reason), let .unsupported(reason), let .confirmationRequired(_, reason): reason
        case .disambiguation: "several values match; choose one (Resolve lists them)"
        default: "not resolved"
        }
    }

    static func kinds(_ resolution: IntentResolution) -> String {
        var text = ""
        for (name, result) in resolution.parameters where result != .notRequired {
            if !text.isEmpty { text += " " }
            text += name
            text += "="
            text += result.kind
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

/// What the whole daemon shares: the current runtime (replaced on reload), who may
/// call, and the calls in flight (for a graceful stop). A lock, not an actor: every
/// intent passes here three times, and a lock taken for a few instructions costs less
/// than three executor hops.
public final class DaemonState: Sendable {
    private struct Shared {
        var runtime: VehicleRuntime
        var allowedUsers: Set<UInt32>
        var allowedGroups: Set<UInt32>
        var inFlight = 0
        var stopping = false
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    private let shared: Mutex<Shared>
    private let ownUser = Accounts.currentUserID

    public init(runtime: VehicleRuntime, allowedUsers: Set<UInt32>, allowedGroups: Set<UInt32>) {
        shared = Mutex(Shared(runtime: runtime, allowedUsers: allowedUsers, allowedGroups: allowedGroups))
    }

    public var runtime: VehicleRuntime {
        get async { shared.withLock { $0.runtime } }
    }

    /// Root, the daemon's own user, the allowed users, and members of allowed groups.
    /// `authorize(peer)` and the current runtime, read together.
    public func admit(_ peer: PeerCredentials) async -> (authorized: Bool, runtime: VehicleRuntime) {
        let (runtime, users, groups) = shared.withLock { ($0.runtime, $0.allowedUsers, $0.allowedGroups) }
        return (authorize(peer, users: users, groups: groups), runtime)
    }

    public func authorize(_ peer: PeerCredentials) async -> Bool {
        let (users, groups) = shared.withLock { ($0.allowedUsers, $0.allowedGroups) }
        return authorize(peer, users: users, groups: groups)
    }

    /// Outside the lock: a group lookup may read /etc/group.
    private func authorize(_ peer: PeerCredentials, users: Set<UInt32>, groups: Set<UInt32>) -> Bool {
        if peer.uid == 0 || peer.uid == ownUser || users.contains(peer.uid) { return true }
        if groups.contains(peer.gid) { return true }
        guard !groups.isEmpty else { return false }
        return !groups.isDisjoint(with: Accounts.groups(ofUser: peer.uid, primary: peer.gid))
    }

    public func replace(runtime: VehicleRuntime, allowedUsers: Set<UInt32>, allowedGroups: Set<UInt32>) async -> VehicleRuntime {
        shared.withLock { shared in
            let old = shared.runtime
            shared.runtime = runtime
            shared.allowedUsers = allowedUsers
            shared.allowedGroups = allowedGroups
            return old
        }
    }

    func beginCall() async -> Bool {
        shared.withLock { shared in
            guard !shared.stopping else { return false }
            shared.inFlight += 1
            return true
        }
    }

    func endCall() async {
        let waiting = shared.withLock { shared -> [CheckedContinuation<Void, Never>] in
            shared.inFlight -= 1
            guard shared.inFlight == 0 else { return [] }
            defer { shared.drained.removeAll() }
            return shared.drained
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Refuses new calls; returns once the calls in flight have finished (or `timeout`).
    public func drain(timeout: Duration) async -> Int {
        let busy = shared.withLock { shared -> Bool in
            shared.stopping = true
            return shared.inFlight > 0
        }
        guard busy else { return 0 }
        let waiting = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.releaseWaiters()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = shared.withLock { shared -> Bool in
                guard shared.inFlight > 0 else { return true }
                shared.drained.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
        waiting.cancel()
        return shared.withLock { $0.inFlight }
    }

    private func releaseWaiters() {
        let waiting = shared.withLock { shared in
            defer { shared.drained.removeAll() }
            return shared.drained
        }
        for continuation in waiting { continuation.resume() }
    }
}
