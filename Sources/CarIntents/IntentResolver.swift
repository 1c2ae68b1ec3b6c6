import VehicleKit

/// SiriKit's resolve phase, computed from the vehicle profile, the live state and the
/// saved car profiles. Pure: no bus, no DBC.
///
/// Rules common to every intent:
/// - `carName`: absent -> `notRequired`; one of `profile.carNames`, spoken alike (case, spaces, punctuation ignored) ->
///   `success` with the profile's spelling; otherwise `unsupported("this is <displayName>, not <name>")`.
/// - A parameter that was not given and is not needed -> `notRequired`.
/// - An intent with nothing to do gets `needsValue` on its main parameter.
/// - Two parameters that say the same thing differently (a value and a relative setting)
///   -> `unsupported` on the second (the relative one), so there is no action.
/// - `action` is set only when every parameter is `success` or `notRequired`.
///
/// The per-intent rules are documented on the `resolve…` functions.
public enum IntentResolver {
    public static func resolve(_ intent: Intent, profile: VehicleProfile, state: VehicleState, savedCarProfiles: [SavedCarProfile]) -> IntentResolution {
        var context = ResolutionContext(profile: profile, state: state, savedCarProfiles: savedCarProfiles)
        switch intent {
        case let .setClimateSettingsInCar(p): resolveClimate(p, &context)
        case let .setDefrosterSettingsInCar(p): resolveDefroster(p, &context)
        case let .setSeatSettingsInCar(p): resolveSeat(p, &context)
        case let .setAudioSourceInCar(p): resolveAudioSource(p, &context)
        case let .setRadioStation(p): resolveRadio(p, &context)
        case let .saveProfileInCar(p): resolveSaveProfile(p, &context)
        case let .setProfileInCar(p): resolveSetProfile(p, &context)
        case let .setCarLockStatus(p): resolveSetLock(p, &context)
        case let .getCarLockStatus(p): resolveGetLock(p, &context)
        case .listCars: context.action = .listCars
        case let .activateCarSignal(p): resolveSignals(p, &context)
        case let .getCarPowerLevelStatus(p): resolvePowerLevel(p, &context)
        }
        refuseReadOnlyTargets(&context)
        // Each result put in its parameter's place: fewer results than parameters, and a
        // name compared is cheaper than one hashed.
        let names = Intent.parameterNames(of: intent.name)
        var parameters = names.map { (name: $0, result: ResolutionResult.notRequired) }
        for (name, result) in context.results {
            if let index = names.firstIndex(of: name) { parameters[index].result = result }
        }
        let resolved = parameters.allSatisfy { $0.result.isResolved }
        var action = context.action
        if action == nil, !context.targets.isEmpty { action = .set(context.targets) }
        return IntentResolution(intent: intent, parameters: parameters, action: resolved ? action : nil)
    }

    /// A property the car reports but takes no command for on its bus (a read-only
    /// binding: the Hyundai's seat warmers are shown by the climate unit, not set by the
    /// head unit), or a value no request of the car sets (the Ford's auto mode has an "on"
    /// request and no "off"): the parameters that would set it are `unsupported`. A target no
    /// parameter asked for (fan on, implied by a fan speed) is left to the car.
    static func refuseReadOnlyTargets(_ context: inout ResolutionContext) {
        let refused = context.targets.compactMap { context.profile.accepts($0.key, $0.value) ? nil : $0.key }.sorted()
        guard !refused.isEmpty else { return }
        let asked = context.results
        func isSuccess(_ name: String) -> Bool { if case .success? = asked[name] { true } else { false } }
        // The properties a parameter of their own asked for (enableHeating for heating) name
        // the reason before those the intent implies (cooling off while heating).
        let targets = context.targets
        func setting(_ key: PropertyKey) -> [String] { parameters(setting: key, to: targets[key]) }
        let ordered =
            refused.filter { setting($0).first.map(isSuccess) ?? false }
            + refused.filter { !(setting($0).first.map(isSuccess) ?? false) }
        var named = Set<String>()
        for key in ordered {
            if let other = context.fulfilledBy[key], context.targets[other] != nil {
                // Asked for and implied at once: the other target's command brings it.
                context.targets[key] = nil
                continue
            }
            if context.implied.contains(key) {
                context.targets[key] = nil
                continue
            }
            let reason =
                context.profile.isReadOnly(key)
                ? "\(context.car) reports \(key.rawValue) but takes no command for it on its bus"
                : "\(context.car) takes no request to set \(key.rawValue) to \(targets[key]!)"
            for name in setting(key) where isSuccess(name) && named.insert(name).inserted {
                context.results[name] = .unsupported(reason: reason)
            }
            context.targets[key] = nil
        }
    }

    /// The intent parameters that can set `key` to `value`.
    static func parameters(setting key: PropertyKey, to value: PropertyValue?) -> [String] {
        if key.rawValue.hasPrefix("climate.temperature.") { return ["temperature", "relativeTemperatureSetting"] }
        if key.rawValue.hasPrefix("defroster.") { return ["defroster", "enable"] }
        if key.rawValue.hasPrefix("seat."), let feature = key.rawValue.split(separator: ".").last {
            return ["enable" + feature.prefix(1).uppercased() + feature.dropFirst(), "level", "relativeLevelSetting"]
        }
        if key.rawValue.hasPrefix("signal.") { return ["signals"] }
        // The whole car's switch and each climate control zone's own.
        if key.rawValue.hasPrefix("climate.climateControl") { return ["enableClimateControl"] }
        return switch key {
        // 0 % asks for the fan off; a level above 0 turns it on by itself.
        case .fan: value == .bool(false) ? ["enableFan", "fanSpeedPercentage"] : ["enableFan"]
        case .fanSpeed: ["fanSpeedIndex", "fanSpeedPercentage", "relativeFanSpeedSetting"]
        case .airConditioner: ["enableAirConditioner"]
        case .autoMode: ["enableAutoMode"]
        case .airCirculation: ["airCirculationMode"]
        case .audioSource: ["audioSource", "relativeAudioSourceReference"]
        case .radioBand, .radioFrequency, .radioChannel: ["frequency", "channel", "stationName", "presetNumber", "radioType"]
        case .activeCarProfile: ["profileNumber", "profileName"]
        case .locked: ["locked"]
        default: []
        }
    }

    /// The `carName` rule.
    static func resolveCarName(_ name: String?, profile: VehicleProfile) -> ResolutionResult {
        guard let name else { return .notRequired }
        // A speakable string: case, spacing and punctuation do not count (SpokenName).
        let wanted = SpokenName.key(name)
        if let match = profile.carNames.first(where: { SpokenName.key($0) == wanted }) { return .success(.string(match)) }
        return .unsupported(reason: "this is \(profile.displayName), not \(name)")
    }
}

/// What the resolvers fill in.
struct ResolutionContext {
    let profile: VehicleProfile
    let state: VehicleState
    let savedCarProfiles: [SavedCarProfile]
    var results: [String: ResolutionResult] = [:]
    /// Target values, for an action `.set(targets)`.
    var targets: [PropertyKey: PropertyValue] = [:]
    /// Targets another target of the same intent brings about on the car (the fan on by
    /// its speed): a parameter asking for one is fulfilled even where the car takes no
    /// command for it.
    var fulfilledBy: [PropertyKey: PropertyKey] = [:]
    /// Targets no parameter asked for, that the intent implies (a seat's cooling off when
    /// its heating goes on): where the car takes no command for one, it is left to the car.
    var implied: Set<PropertyKey> = []
    /// Any other action.
    var action: IntentAction?

    init(profile: VehicleProfile, state: VehicleState, savedCarProfiles: [SavedCarProfile]) {
        self.profile = profile
        self.state = state
        self.savedCarProfiles = savedCarProfiles
    }

    /// "the Example Sedan"
    var car: String { "the \(profile.displayName)" }

    mutating func carName(_ name: String?) {
        results["carName"] = IntentResolver.resolveCarName(name, profile: profile)
    }

    func integer(_ key: PropertyKey) -> Int? {
        guard let value = state[key]?.doubleValue, value.isFinite else { return nil }
        return Int(value.rounded())
    }
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return String(text)
    }
}

extension CarSeat {
    /// "front left seat", "driver's seat", "rear seats".
    var spokenName: String {
        switch self {
        case .driver: "driver's seat"
        case .passenger: "passenger seat"
        case .frontLeft: "front left seat"
        case .frontRight: "front right seat"
        case .front: "front seats"
        case .rearLeft: "rear left seat"
        case .rearRight: "rear right seat"
        case .rear: "rear seats"
        case .thirdRowLeft: "third-row left seat"
        case .thirdRowRight: "third-row right seat"
        case .thirdRow: "third-row seats"
        case .all: "seats"
        }
    }

    var isPlural: Bool { [.front, .rear, .thirdRow, .all].contains(self) }
}
