import CarplayJSON
import VehicleKit

/// One client's share of the load: a property it alone changes (or shares with clients
/// that use other values), the two values it alternates between, and the Varlink
/// calls that set each value, serialized once.
struct Slot: Sendable {
    var property: PropertyKey
    /// The values the client sets in turn; both differ from every other client's values
    /// for the same property and from the vehicle's state when the run started, so
    /// every intent really changes the vehicle's state.
    var values: [PropertyValue]
    /// One serialized Varlink call (with its NUL) per value.
    var calls: [[UInt8]]
    /// The CAN ID of the command frame that sets the property.
    var commandID: UInt32
    /// The command message's name (intents on one message are handled in order).
    var commandMessage: String
}

enum WorkloadError: Error, CustomStringConvertible {
    case tooManyClients(Int, capacity: Int)
    case unknownState(PropertyKey)

    var description: String {
        switch self {
        case let .tooManyClients(clients, capacity):
            "\(clients) clients need \(clients) distinct value pairs; this profile offers \(capacity)"
        case let .unknownState(key): "the vehicle does not report \(key); cannot pick values that change it"
        }
    }
}

/// Builds the slots of `clients` clients from the profile and the vehicle's state: per
/// property a pool of values (its range in steps, without the current value), cut into
/// pairs; clients take pairs round-robin over the properties, so that they spread over
/// the command messages.
enum Workload {
    struct Pool {
        var key: PropertyKey
        var values: [PropertyValue]
        /// The intent's parameters that set `value`.
        var parameters: (PropertyValue) -> JSONValue
        var intent: String
    }

    static func slots(clients: Int, profile: VehicleProfile, state: [String: JSONValue], method: String) throws(WorkloadError) -> [Slot] {
        var pools = self.pools(profile: profile)
        // Drop each property's current value: the first intent must change it too.
        for index in pools.indices {
            let key = pools[index].key
            guard let current = state[key.rawValue] else { throw .unknownState(key) }
            pools[index].values.removeAll { Self.same($0, current) }
        }
        let pairs: [[(Pool, [PropertyValue])]] = pools.map { pool in
            stride(from: 0, to: pool.values.count - 1, by: 2).map { (pool, [pool.values[$0], pool.values[$0 + 1]]) }
        }
        let capacity = pairs.reduce(0) { $0 + $1.count }
        guard clients <= capacity else { throw .tooManyClients(clients, capacity: capacity) }
        var slots: [Slot] = []
        var round = 0
        while slots.count < clients {
            for index in pairs.indices where round < pairs[index].count && slots.count < clients {
                let (pool, values) = pairs[index][round]
                let binding = profile.bindings[pool.key]!
                let message = binding.command!.message
                let calls = values.map { value in
                    let call: JSONValue = .object([
                        "method": .string("io.carplayd.Vehicle.\(method)"),
                        "parameters": .object(["intent": .string(pool.intent), "parameters": pool.parameters(value)]),
                    ])
                    return Array(call.serialized(sortedKeys: true).utf8) + [0]
                }
                slots.append(
                    Slot(
                        property: pool.key, values: values, calls: calls,
                        commandID: profile.database.message(named: message)!.frameID, commandMessage: message))
            }
            round += 1
        }
        return slots
    }

    /// The properties the load changes, ordered so that neighbours use different
    /// command messages (climate, seat, audio, ...).
    static func pools(profile: VehicleProfile) -> [Pool] {
        func commandable(_ key: PropertyKey) -> Bool { profile.bindings[key]?.command != nil }
        var climate: [Pool] = []
        var seats: [Pool] = []
        var audio: [Pool] = []
        if let capabilities = profile.climate {
            let temperatures = capabilities.celsius.map { steps($0).map { PropertyValue.number($0) } } ?? []
            for zone in capabilities.zones where commandable(.temperature(zone: zone.id)) {
                // The zone's first seat selects exactly the zones serving it.
                guard let seat = zone.seats.first, capabilities.zones(serving: [seat]).count == 1 else { continue }
                climate.append(
                    Pool(
                        key: .temperature(zone: zone.id), values: temperatures,
                        parameters: { value in
                            guard case let .number(celsius) = value else { return .null }
                            return .object([
                                "temperature": .object(["value": .number(celsius), "unit": .string("celsius")]), "climateZone": .string(seat.rawValue),
                            ])
                        }, intent: "SetClimateSettingsInCar"))
            }
            if capabilities.fanSpeedLevels > 1, commandable(.fanSpeed) {
                climate.append(
                    Pool(
                        key: .fanSpeed, values: (1...capabilities.fanSpeedLevels).map { .integer($0) },
                        parameters: { value in
                            guard case let .integer(level) = value else { return .null }
                            return .object(["fanSpeedIndex": .integer(level)])
                        }, intent: "SetClimateSettingsInCar"))
            }
            let flags: [(PropertyKey, String, Bool)] = [
                (.airConditioner, "enableAirConditioner", capabilities.airConditioner),
                (.autoMode, "enableAutoMode", capabilities.autoMode),
            ]
            for (key, parameter, present) in flags where present && commandable(key) {
                climate.append(
                    Pool(
                        key: key, values: [.bool(true), .bool(false)],
                        parameters: { value in
                            guard case let .bool(on) = value else { return .null }
                            return .object([parameter: .bool(on)])
                        }, intent: "SetClimateSettingsInCar"))
            }
            if capabilities.recirculation, commandable(.airCirculation) {
                climate.append(
                    Pool(
                        key: .airCirculation, values: [.enumeration("freshAir"), .enumeration("recirculateAir")],
                        parameters: { value in
                            guard case let .enumeration(mode) = value else { return .null }
                            return .object(["airCirculationMode": .string(mode)])
                        }, intent: "SetClimateSettingsInCar"))
            }
        }
        for defroster in profile.defrosters where commandable(.defroster(defroster)) {
            climate.append(
                Pool(
                    key: .defroster(defroster), values: [.bool(true), .bool(false)],
                    parameters: { value in
                        guard case let .bool(on) = value else { return .null }
                        return .object(["enable": .bool(on), "defroster": .string(defroster.rawValue)])
                    }, intent: "SetDefrosterSettingsInCar"))
        }
        for seat in profile.seats where seat.heating > 0 && commandable(.seat(seat.seat, .heating)) {
            seats.append(
                Pool(
                    key: .seat(seat.seat, .heating), values: (0...seat.heating).map { .integer($0) },
                    parameters: { value in
                        guard case let .integer(level) = value else { return .null }
                        return .object(["seat": .string(seat.seat.rawValue), "enableHeating": .bool(level > 0), "level": .integer(level)]).withoutLevelZero
                    }, intent: "SetSeatSettingsInCar"))
        }
        if let radio = profile.radio, let fm = radio.band(.FM), commandable(.radioFrequency) {
            audio.append(
                Pool(
                    key: .radioFrequency, values: steps(fm.range).map { .number($0) },
                    parameters: { value in
                        guard case let .number(frequency) = value else { return .null }
                        return .object(["radioType": .string("FM"), "frequency": .number(frequency)])
                    }, intent: "SetRadioStation"))
        }
        // Tuning the radio also selects the radio as source (SetRadioStation's targets):
        // with the radio in the pool, a client choosing it would often find it chosen
        // already, and wait for the cyclic status instead of confirming a change.
        let tunes = audio.contains { $0.key == .radioFrequency }
        let sources = profile.audioSources.filter { !(tunes && $0 == .sourceRadio) }
        if sources.count > 1, commandable(.audioSource) {
            audio.append(
                Pool(
                    key: .audioSource, values: sources.map { .enumeration($0.rawValue) },
                    parameters: { value in
                        guard case let .enumeration(source) = value else { return .null }
                        return .object(["audioSource": .string(source)])
                    }, intent: "SetAudioSourceInCar"))
        }
        // Interleave: climate[0], seats[0], audio[0], climate[1], ...
        var ordered: [Pool] = []
        for index in 0..<max(climate.count, seats.count, audio.count) {
            for group in [climate, seats, audio] where index < group.count { ordered.append(group[index]) }
        }
        return ordered
    }

    /// The values of a stepped range, rounded to the step's decimals.
    static func steps(_ range: SteppedRange) -> [Double] {
        let count = Int(((range.max - range.min) / range.step).rounded()) + 1
        return (0..<count).map { ((range.min + Double($0) * range.step) * 1000).rounded() / 1000 }
    }

    static func same(_ value: PropertyValue, _ json: JSONValue) -> Bool {
        switch (value, json) {
        case let (.bool(a), .bool(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.integer(a), .number(b)): Double(a) == b
        case let (.number(a), .number(b)): abs(a - b) < 1e-6 * max(1, abs(b))
        case let (.number(a), .integer(b)): abs(a - Double(b)) < 1e-6
        case let (.enumeration(a), .string(b)): a == b
        default: false
        }
    }
}

extension JSONValue {
    /// Seat parameters for level 0: switching heating off (`enableHeating: false`) takes no level.
    fileprivate var withoutLevelZero: JSONValue {
        guard case var .object(object) = self, case .integer(0)? = object["level"] else { return self }
        object["level"] = nil
        return .object(object)
    }
}
