import CarIntents
import CarplayJSON
import Varlink
import VehicleKit

/// `io.carplayd.Vehicle.GetCarPowerLevelStatus(carName)`: SiriKit's power-level
/// observer (`startSendingUpdates(for:to:)` / `stopSendingUpdates(for:)`). Every answer is
/// the response of the GetCarPowerLevelStatus intent, run through the same phases as
/// Perform. Without `more` it answers once; with `more` it answers at once and again
/// whenever the response changes (another `dateOfLastStateUpdate` alone is no change:
/// every status frame brings one), at most once per `powerLevelInterval` -- changes in a
/// pause are coalesced and the newest response goes out after it -- until the client goes.
extension VehicleService {
    /// The least time between two replies of one stream.
    static let powerLevelInterval: Duration = .milliseconds(250)

    func powerLevel(_ request: Request) async {
        guard let intent = Self.powerLevelIntent(request.call, request.replies) else { return }
        let controller = request.session.controller
        // Subscribed before the first answer, so no change falls between the two.
        let changes = request.call.more ? controller.changes() : nil
        guard let first = await powerLevelResponse(intent, request) else { return }
        guard request.replies.send(VarlinkReply(parameters: ["response": first.response], continues: request.call.more)), let changes else { return }

        log.info("GetCarPowerLevelStatus: updates for uid \(request.peer.uid) (pid \(request.peer.pid)) started")
        let clock = ContinuousClock()
        var last = first
        var sentAt = clock.now
        var replies = 1
        var ending = "the client went away"
        for await change in changes where change.keys.contains(where: PowerLevelResponse.isPowerProperty) {
            let due = sentAt + Self.powerLevelInterval
            if clock.now < due { try? await clock.sleep(until: due) }
            // Changes that arrived during the pause are in the state already: answered once.
            if controller.versionedState().version == last.version { continue }
            guard let next = await powerLevelResponse(intent, request) else {
                ending = "an error was sent"
                break
            }
            if Self.withoutDate(next.response) == Self.withoutDate(last.response) {
                last.version = next.version
                continue
            }
            guard request.replies.send(VarlinkReply(parameters: ["response": next.response], continues: true)) else { break }
            last = next
            sentAt = clock.now
            replies += 1
        }
        if request.replies.isOpen, ending == "the client went away" {
            // The session ended (a reload or a stop): the client hears why instead of waiting.
            ending = "the vehicle session ended"
            request.replies.send(error: Self.unavailable("the vehicle session ended; call again"))
        }
        log.info("GetCarPowerLevelStatus: updates for uid \(request.peer.uid) (pid \(request.peer.pid)) stopped after \(replies) replies: \(ending)")
    }

    /// One run of the intent through the phase runner, and the state version it saw;
    /// nil after sending the error (an unresolved carName, an unreachable vehicle, a stop).
    private func powerLevelResponse(_ intent: Intent, _ request: Request) async -> (response: JSONValue, version: Int)? {
        guard state.beginCall() else {
            request.replies.send(error: Self.unavailable("carplayd is shutting down"))
            return nil
        }
        defer { state.endCall() }
        let (deviceLock, peer) = (request.deviceLock, request.peer)
        let outcome = await request.session.engine.run(.perform, intent) { deviceLock.device(of: peer) }
        if case let .notResolved(parameter, reason)? = outcome.refusal {
            request.replies.send(error: VarlinkError("io.carplayd.Vehicle.InvalidParameter", ["parameter": .string(parameter), "reason": .string(reason)]))
            return nil
        }
        if let error = Self.error(for: outcome) {
            request.replies.send(error: error)
            return nil
        }
        return (outcome.response.jsonValue, outcome.stateVersion)
    }

    /// The intent of a call `{"carName": ?string}`, or nil after sending InvalidParameter.
    static func powerLevelIntent(_ call: VarlinkCall, _ replies: VarlinkReplies) -> Intent? {
        func invalid(_ parameter: String, _ reason: String) -> Intent? {
            replies.send(error: VarlinkError("io.carplayd.Vehicle.InvalidParameter", ["parameter": .string(parameter), "reason": .string(reason)]))
            return nil
        }
        for key in call.parameters.keys.sorted() where key != "carName" { return invalid(key, "unknown parameter; GetCarPowerLevelStatus takes carName") }
        var parameters: [String: JSONValue] = [:]
        switch call.parameters["carName"] {
        case nil, .null?: break
        case let .string(name)?: parameters["carName"] = .string(name)
        default: return invalid("carName", "expected the car's name as a string")
        }
        do {
            return try Intent(json: ["intent": "GetCarPowerLevelStatus", "parameters": .object(parameters)])
        } catch {
            return invalid("carName", error.description)
        }
    }

    /// A response without its `dateOfLastStateUpdate`, to tell a change from a new frame.
    static func withoutDate(_ response: JSONValue) -> JSONValue {
        guard case var .object(fields) = response else { return response }
        fields[PowerLevelResponse.dateField] = nil
        return .object(fields)
    }
}
