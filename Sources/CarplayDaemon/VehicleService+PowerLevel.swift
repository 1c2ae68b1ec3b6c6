import CarIntents
import CarplayJSON
import CarplayProtocol
import Varlink
import VehicleKit

/// `io.carplayd.Vehicle.GetCarPowerLevelStatus` called with `more`: SiriKit's
/// power-level observer (`startSendingUpdates(for:to:)` / `stopSendingUpdates(for:)`).
/// Every answer is the intent's response, run through the same phases as the typed
/// method; it answers at once and again whenever the response changes (another
/// `dateOfLastStateUpdate` alone is no change: every status frame brings one), at most
/// once per `powerLevelInterval` -- changes in a pause are coalesced and the newest
/// response goes out after it -- until the client goes.
extension VehicleService {
    /// The least time between two replies of one stream.
    static let powerLevelInterval: Duration = .milliseconds(250)

    func observePowerLevel(_ intent: Intent, parameters: JSONValue, _ request: Request) async {
        let controller = request.session.controller
        // Subscribed before the first answer, so no change falls between the two.
        let events = controller.events()
        guard let first = await powerLevelResponse(intent, parameters: parameters, request, logged: true) else { return }
        guard request.replies.send(VarlinkReply(parameters: ["response": first.response.jsonValue], continues: true)) else { return }

        log.info("GetCarPowerLevelStatus: updates for uid \(request.peer.uid) (pid \(request.peer.pid)) started")
        let clock = ContinuousClock()
        var last = first
        var sentAt = clock.now
        var replies = 1
        var ending = "the client went away"
        for await case let .changed(change) in events where change.keys.contains(where: PowerLevel.isPowerProperty) {
            let due = sentAt + Self.powerLevelInterval
            if clock.now < due { try? await clock.sleep(until: due) }
            // Changes that arrived during the pause are in the state already: answered once.
            if controller.versionedState().version == last.version { continue }
            guard let next = await powerLevelResponse(intent, parameters: parameters, request, logged: false) else {
                ending = "an error was sent"
                break
            }
            if Self.withoutDate(next.response) == Self.withoutDate(last.response) {
                last.version = next.version
                continue
            }
            guard request.replies.send(VarlinkReply(parameters: ["response": next.response.jsonValue], continues: true)) else { break }
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

    /// One run of the intent (Handle: an unresolved carName, a locked device, an
    /// unreachable vehicle are typed errors) and the state version it saw; nil after
    /// sending the error. Only the first run is logged: an update is no new request.
    private func powerLevelResponse(_ intent: Intent, parameters: JSONValue, _ request: Request, logged: Bool) async -> (
        response: IntentResponse, version: Int
    )? {
        guard let outcome = await run(.handle, intent, parameters: parameters, request, logged: logged) else { return nil }
        return (outcome.response, outcome.stateVersion)
    }

    /// A response without its `dateOfLastStateUpdate`, to tell a change from a new frame.
    static func withoutDate(_ response: IntentResponse) -> IntentResponse {
        var response = response
        response.powerLevel.dateOfLastStateUpdate = nil
        return response
    }
}
