import CANBus
import CarplayJSON
import Synchronization
import VehicleKit

/// The three SiriKit phases over one vehicle: resolve and confirm are pure decisions
/// on the profile and the live state; handle sends frames through the controller and
/// succeeds only on confirmation. Handles that send the same command message run one
/// at a time, in order of arrival, so conflicting intents on the same property apply in
/// that order (and a command frame is always built on the confirmed outcome of the
/// previous one); handles on different command messages run concurrently. Intents that
/// read or save the whole state run alone.
///
/// Its few mutable things (saved car profiles, the claims) sit behind a lock rather than
/// in an actor: an intent then reaches the controller without executor hops.
public final class IntentEngine: Sendable {
    public let profile: VehicleProfile
    public let controller: VehicleController
    private let persist: @Sendable ([SavedCarProfile]) throws -> Void

    private struct Shared {
        var savedCarProfiles: [Int: SavedCarProfile]
        var running: [Int: Claim] = [:]
        var queue: [(id: Int, claim: Claim, continuation: CheckedContinuation<Int, Never>)] = []
        var nextClaim = 0
    }

    private let shared: Mutex<Shared>

    /// What a handle holds while it runs: command message names, or everything.
    enum Claim: Sendable {
        case messages(Set<String>)
        case everything

        func conflicts(with other: Claim) -> Bool {
            switch (self, other) {
            case let (.messages(a), .messages(b)): !a.isDisjoint(with: b)
            default: true
            }
        }
    }

    /// SiriKit's `IntentsRestrictedWhileLocked`: not handled while the caller's device is locked.
    public let restrictedWhileLocked: Set<IntentName>
    /// `INCar.carIdentifier`: stable for this car, never its VIN.
    public let carIdentifier: String

    /// `persist` is called with every saved car profile after each save (the daemon
    /// writes them to its state directory); a throw fails the save.
    public init(
        profile: VehicleProfile, controller: VehicleController, savedCarProfiles: [SavedCarProfile] = [],
        restrictedWhileLocked: Set<IntentName> = [], carIdentifier: String? = nil,
        persist: @escaping @Sendable ([SavedCarProfile]) throws -> Void = { _ in }
    ) {
        self.carIdentifier = carIdentifier ?? "carplayd-\(profile.identifier)"
        self.profile = profile
        self.controller = controller
        self.restrictedWhileLocked = restrictedWhileLocked
        self.shared = Mutex(Shared(savedCarProfiles: Dictionary(savedCarProfiles.map { ($0.slot, $0) }, uniquingKeysWith: { _, last in last })))
        self.persist = persist
    }

    /// Handles running or waiting their turn (0 when idle).
    public var handlesInFlight: Int { shared.withLock { $0.queue.count + $0.running.count } }

    private func savedList() -> [SavedCarProfile] {
        shared.withLock { Self.sorted($0.savedCarProfiles) }
    }

    private static func sorted(_ saved: [Int: SavedCarProfile]) -> [SavedCarProfile] {
        saved.values.sorted { $0.slot < $1.slot }
    }

    /// Runs `phase` (and the phases before it) on `intent`: resolve and confirm on one
    /// reading of the controller's state, then, for Handle and Perform, the action.
    /// `device` is asked only when the intent is restricted while locked.
    ///
    /// A vehicle that has been silent for its reachability window is waited for one window
    /// more before an intent that needs it is refused as unreachable: a gap in its status
    /// frames that a busy bus, ECU or head unit causes costs a wait, not a refusal, and a
    /// silent vehicle is refused within two windows of its last frame.
    public func run(_ phase: IntentPhase, _ intent: Intent, device: () -> CallerDevice = { .unlocked }) async -> IntentOutcome {
        let busOff = controller.busOffInterface
        var (state, reachable) = controller.snapshot()
        var resolution = IntentResolver.resolve(intent, profile: profile, state: state, savedCarProfiles: savedList())
        if !reachable, busOff == nil, phase != .resolve, let action = resolution.action, action != .listCars,
            await controller.waitUntilReachable(timeout: controller.reachabilityWindow)
        {
            (state, reachable) = controller.snapshot()
            resolution = IntentResolver.resolve(intent, profile: profile, state: state, savedCarProfiles: savedList())
        }
        var outcome = IntentOutcome(
            phase: phase, resolution: resolution, response: IntentResponse(code: .ready), refusal: nil, frames: [], state: state, stateVersion: 0)
        if resolution.action == nil {
            outcome.response = .failure(IntentResponse.notResolved)
            outcome.refusal = .notResolved(resolution)
        } else if phase != .resolve,
            let refusal = IntentConfirmer.confirm(
                resolution, profile: profile, state: state, vehicleReachable: reachable, busOffInterface: busOff,
                restrictedWhileLocked: restrictedWhileLocked, device: device)
        {
            outcome.response = refusal.response(for: intent.name)
            outcome.refusal = refusal
        } else if phase == .handle || phase == .perform {
            (outcome.response, outcome.frames) = await handle(resolution)
        }
        // Only codes the intent's SiriKit response defines reach a client.
        outcome.response = outcome.response.within(intent.name)
        (outcome.state, outcome.stateVersion) = controller.versionedState()
        return outcome
    }

    /// Resolve, confirm and handle.
    public func perform(_ intent: Intent) async -> IntentOutcome {
        await run(.perform, intent)
    }

    /// Sends the resolved action and waits for the vehicle to confirm it.
    func handle(_ resolution: IntentResolution) async -> (IntentResponse, [ReceivedFrame]) {
        guard let action = resolution.action else {
            return (.failure(IntentResponse.notResolved), [])
        }
        let ticket = await acquire(claim(for: action))
        defer { release(ticket) }
        let timeout = profile.policies.confirmationTimeout
        switch action {
        case let .set(targets):
            let outcome = await controller.apply(targets, timeout: timeout, for: resolution.intent.name)
            return (response(for: outcome), outcome.frames)

        case let .activateSignals(signals):
            var targets: [PropertyKey: PropertyValue] = [:]
            for signal in signals { targets[.signal(signal)] = .bool(true) }
            let outcome = await controller.apply(targets, timeout: timeout, for: resolution.intent.name)
            var response = response(for: outcome)
            if outcome.succeeded { response.signals = signals }
            return (response, outcome.frames)

        case let .saveCarProfile(slot, name):
            let state = controller.currentState
            var settings: [PropertyKey: PropertyValue] = [:]
            for key in state.keys where Self.isSavedInCarProfile(key) && profile.bindings[key]?.command != nil {
                settings[key] = state[key]
            }
            // The tuner setting that belongs to the band: a channel or a frequency, not both.
            if case let .enumeration(name)? = settings[.radioBand], let band = RadioType(rawValue: name).flatMap({ profile.radio?.band($0) }) {
                settings[band.tunesByChannel ? .radioFrequency : .radioChannel] = nil
            }
            // Nothing is sent: `profile.active` selects a slot, and on a real car selecting a
            // memory slot recalls it (moves the seats), the opposite of saving.
            let saved = SavedCarProfile(slot: slot, name: name, settings: settings)
            // Saves claim everything: no other save runs between these steps.
            let (previous, all) = shared.withLock { shared in
                let previous = shared.savedCarProfiles[slot]
                shared.savedCarProfiles[slot] = saved
                return (previous, Self.sorted(shared.savedCarProfiles))
            }
            do {
                try persist(all)
            } catch {
                shared.withLock { $0.savedCarProfiles[slot] = previous }
                return (.failure("storageError", detail: "\(error)"), [])
            }
            var response = IntentResponse(code: .success)
            (response.profileNumber, response.profileName, response.settings) = (slot, name, settings.count)
            return (response, [])

        case let .restoreCarProfile(slot):
            guard let saved = shared.withLock({ $0.savedCarProfiles[slot] }) else {
                var response = IntentResponse.failure("emptyProfile")
                response.profileNumber = slot
                return (response, [])
            }
            var targets = saved.settings.filter { profile.bindings[$0.key]?.command != nil }
            if profile.bindings[.activeCarProfile]?.command != nil { targets[.activeCarProfile] = .integer(slot) }
            // One command per message, all at once: a rejection of one (say the audio
            // settings) does not hide what the others achieved.
            var groups: [String: [PropertyKey: PropertyValue]] = [:]
            for (key, value) in targets { groups[profile.bindings[key]!.command!.message, default: [:]][key] = value }
            let (controller, intentName) = (self.controller, resolution.intent.name)
            let outcomes = await withTaskGroup(of: CommandOutcome.self) { group in
                for targets in groups.values { group.addTask { await controller.apply(targets, timeout: timeout, for: intentName) } }
                var all: [CommandOutcome] = []
                for await outcome in group { all.append(outcome) }
                return all
            }
            let failures = outcomes.compactMap(\.failure)
            var response =
                failures.isEmpty
                ? IntentResponse(code: .success)
                : .failure(failures[0].reason, detail: failures.map(\.description).joined(separator: "; "))
            (response.profileNumber, response.profileName) = (slot, saved.name)
            if !failures.isEmpty {
                // Partial failure: say what was confirmed and what was not.
                var confirmed = Set<PropertyKey>()
                for outcome in outcomes where outcome.succeeded { confirmed.formUnion(outcome.targets.keys) }
                response.confirmed = confirmed.sorted()
                response.failed = targets.keys.filter { !confirmed.contains($0) }.sorted()
            }
            let frames = outcomes.flatMap(\.frames).sorted { $0.timestamp < $1.timestamp }
            return (response, Self.unique(frames))

        case .listCars:
            var response = IntentResponse(code: .success)
            response.cars = [Car(profile, identifier: carIdentifier)]
            return (response, [])

        case .readLockStatus:
            let state = await controller.state(knowing: [.locked], timeout: timeout) ?? VehicleState()
            guard case let .bool(locked)? = state[.locked] else { return (.failure("unknownState"), []) }
            var response = IntentResponse(code: .success)
            response.locked = locked
            return (response, [])

        case .readPowerLevel:
            let readings = PowerLevel.readings(of: profile).filter { profile.bindings[$0] != nil }
            let known = await controller.state(knowing: readings, timeout: timeout)
            let state: VehicleState
            if let known { state = known } else { state = controller.currentState }
            let lastUpdate = controller.newestStatusStamp(carrying: PowerLevel.isPowerProperty)
            guard let powerLevel = PowerLevel(state: state, power: profile.power, carIdentifier: carIdentifier, lastUpdate: lastUpdate) else {
                return (.failure("unknownState"), [])
            }
            var response = IntentResponse(code: .success)
            response.powerLevel = powerLevel
            return (response, [])
        }
    }

    /// Frames recorded by concurrent commands appear once each.
    static func unique(_ frames: [ReceivedFrame]) -> [ReceivedFrame] {
        var seen = Set<ReceivedFrame>()
        return frames.filter { seen.insert($0).inserted }
    }

    private func response(for outcome: CommandOutcome) -> IntentResponse {
        guard let failure = outcome.failure else {
            return IntentResponse(code: .success)
        }
        return .failure(failure.reason, detail: failure.description)
    }

    /// What a car profile stores: comfort settings, not locks, signals or readings.
    static func isSavedInCarProfile(_ key: PropertyKey) -> Bool {
        let name = key.rawValue
        if key.isStatusOnly { return false }
        return name.hasPrefix("climate.") || name.hasPrefix("seat.") || name == "audio.source" || name.hasPrefix("radio.")
    }

    /// The command messages an action sends; everything for the actions that read or
    /// save the whole state (or touch properties without a command binding).
    private func claim(for action: IntentAction) -> Claim {
        let keys: [PropertyKey]
        switch action {
        case let .set(targets): keys = Array(targets.keys)
        case let .activateSignals(signals): keys = signals.map { .signal($0) }
        // Sends nothing: in the way of nobody.
        case .listCars: return .messages([])
        default: return .everything
        }
        var messages = Set<String>()
        for key in keys {
            guard let message = profile.bindings[key]?.command?.message else { return .everything }
            messages.insert(message)
        }
        return .messages(messages)
    }

    /// Waits until no running handle, and no earlier waiting one, conflicts with `claim`.
    private func acquire(_ claim: Claim) async -> Int {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            let admitted = shared.withLock { shared -> Int? in
                let id = shared.nextClaim
                shared.nextClaim += 1
                if shared.queue.isEmpty, !shared.running.values.contains(where: { $0.conflicts(with: claim) }) {
                    shared.running[id] = claim
                    return id
                }
                shared.queue.append((id, claim, continuation))
                return nil
            }
            // Admitted at once: resumed before suspending, so the task runs straight on.
            if let admitted { continuation.resume(returning: admitted) }
        }
    }

    private func release(_ id: Int) {
        let started = shared.withLock { shared -> [(id: Int, continuation: CheckedContinuation<Int, Never>)] in
            shared.running[id] = nil
            // Start the waiting handles in order of arrival, each only when it conflicts
            // neither with a running one nor with an earlier one still waiting.
            var started: [(id: Int, continuation: CheckedContinuation<Int, Never>)] = []
            var blocked: [Claim] = []
            var index = 0
            while index < shared.queue.count {
                let waiting = shared.queue[index]
                if shared.running.values.contains(where: { $0.conflicts(with: waiting.claim) })
                    || blocked.contains(where: { $0.conflicts(with: waiting.claim) })
                {
                    blocked.append(waiting.claim)
                    index += 1
                    continue
                }
                shared.queue.remove(at: index)
                shared.running[waiting.id] = waiting.claim
                started.append((waiting.id, waiting.continuation))
            }
            return started
        }
        for (id, continuation) in started { continuation.resume(returning: id) }
    }
}
