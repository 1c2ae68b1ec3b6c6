import CarIntents
import CarplayJSON
import Varlink

/// The typed methods: one per intent, named as Apple names the intent
/// (`io.carplayd.Vehicle.SetClimateSettingsInCar`), declared with their types in
/// docs/io.carplayd.Vehicle.varlink. A call is checked against that declaration first
/// (`VehicleService.handle`, as every call of the interface; an error names the
/// parameter's path), then runs the generic pipeline: the same intent parser, phases,
/// policies and errors as Perform.
extension VehicleService {
    /// The served interface as data, parsed from the text it serves.
    static let interface = VarlinkInterfaceDefinition(embedded: VehicleInterface.description, source: "docs/io.carplayd.Vehicle.varlink")

    static let intentMethods: [String: Method] = {
        var methods: [String: Method] = [:]
        for name in IntentName.allCases {
            methods["io.carplayd.Vehicle.\(name.rawValue)"] = { @Sendable service, request in await service.runTypedIntent(name, request) }
        }
        return methods
    }()

    func runTypedIntent(_ name: IntentName, _ request: Request) async {
        let (call, replies) = (request.call, request.replies)
        // Its parameters are checked against the declaration already (`handle`).
        var parameters = call.parameters
        let phase = parameters.removeValue(forKey: "phase")?.stringValue.flatMap(IntentPhase.init(rawValue:)) ?? .perform
        guard let intent = Self.intent(named: name.rawValue, parameters: .object(parameters), replies) else { return }
        // The one streaming intent method: SiriKit's power-level observer. Any other
        // answers once (a reply without continues ends a `more` call).
        if call.more, name == .getCarPowerLevelStatus {
            guard phase == .perform else {
                replies.send(error: Self.invalidParameter("phase", "updates are of the whole intent: leave phase out (perform)"))
                return
            }
            await observePowerLevel(intent, parameters: .object(parameters), request)
            return
        }
        guard let outcome = await run(phase, intent, parameters: .object(parameters), request) else { return }
        replies.send(serialized: Self.typedReply(outcome, request.stateJSON))
    }

    /// The phase's members (`IntentOutcome.replyMembers`, the generic methods' too) with
    /// the state grouped as the interface's VehicleState (serialized once per state
    /// version, in `cache`); a serialized reply.
    static func typedReply(_ outcome: IntentOutcome, _ cache: StateJSONCache) -> [UInt8] {
        let (members, raw) = outcome.replyMembers { state, version in cache.groupedJSON(state, version: version) }
        return VarlinkReply(parameters: members).serialized(adding: raw)
    }
}
