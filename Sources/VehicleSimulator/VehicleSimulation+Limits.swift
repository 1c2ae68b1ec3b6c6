import VehicleKit

/// The car's limits: what a real ECU would refuse, the starting state, and the
/// `wrongValue` fault's "one step off".
extension VehicleSimulation {
    struct Violation: Error, Sendable {
        var reason: RejectionReason
        var detail: String
    }

    /// The changes of a command, normalized (snapped to the car's steps), or the first
    /// violation. A command is all or nothing.
    func validate(_ command: HeadUnitCommand) -> Result<[PropertyKey: PropertyValue], Violation> {
        if let key = command.unreadable.first {
            return .failure(Violation(reason: .notAvailable, detail: "\(key): the commanded value maps to nothing this car has"))
        }
        var valid: [PropertyKey: PropertyValue] = [:]
        for key in command.changes.keys.sorted() {
            switch check(key, command.changes[key]!, in: command.changes) {
            case let .success(value): valid[key] = value
            case let .failure(violation): return .failure(violation)
            }
        }
        return .success(valid)
    }

    func check(_ key: PropertyKey, _ value: PropertyValue, in changes: [PropertyKey: PropertyValue]) -> Result<PropertyValue, Violation> {
        func missing(_ what: String) -> Result<PropertyValue, Violation> {
            .failure(Violation(reason: .notAvailable, detail: "\(key)=\(value): this car has no \(what)"))
        }
        func outside(_ range: String) -> Result<PropertyValue, Violation> {
            .failure(Violation(reason: .outOfRange, detail: "\(key)=\(value) outside \(range)"))
        }
        func number(in range: SteppedRange) -> Result<PropertyValue, Violation> {
            guard let number = value.doubleValue, number.isFinite else { return outside("\(range.min)...\(range.max)") }
            guard range.contains(number) else { return outside("\(range.min.plainText())...\(range.max.plainText())") }
            return .success(.number(range.snap(number)))
        }
        func integer(in range: ClosedRange<Int>) -> Result<PropertyValue, Violation> {
            guard case let .integer(level) = value else { return outside("\(range)") }
            guard range.contains(level) else { return outside("\(range.lowerBound)...\(range.upperBound)") }
            return .success(value)
        }
        func flag(_ fitted: Bool, _ what: String) -> Result<PropertyValue, Violation> {
            guard fitted else { return missing(what) }
            guard case .bool = value else { return outside("false/true") }
            return .success(value)
        }

        let parts = KeyParts(key.rawValue)
        if key.isStatusOnly { return missing("command for a status-only property") }
        switch parts.count > 0 ? parts[0] : nil {
        case "climate":
            guard let climate = profile.climate else { return missing("climate control") }
            if parts.count == 3, parts[1] == "temperature" {
                guard climate.zones.contains(where: { $0.id == parts[2] }), let celsius = climate.celsius else {
                    return missing("climate zone \"\(parts[2])\"")
                }
                return number(in: celsius)
            }
            if parts.count == 3, parts[1] == "climateControl" {
                return flag(climate.climateControlZones.contains { $0.id == parts[2] }, "climate control zone \"\(parts[2])\"")
            }
            switch key {
            case .fan: return flag(true, "fan")
            case .fanSpeed:
                guard climate.fanSpeedLevels > 0 else { return missing("fan speed levels") }
                return integer(in: 1...climate.fanSpeedLevels)
            case .airConditioner: return flag(climate.airConditioner, "air conditioner")
            case .autoMode: return flag(climate.autoMode, "automatic climate")
            case .climateControl: return flag(climate.climateControl, "climate control switch")
            case .airCirculation:
                guard case let .enumeration(name) = value, let mode = AirCirculationMode(rawValue: name) else { return missing("such air circulation mode") }
                if mode == .recirculateAir, !climate.recirculation { return missing("recirculation") }
                return .success(value)
            default: return missing("such climate property")
            }
        case "defroster":
            guard parts.count == 2, let defroster = CarDefroster(rawValue: parts[1]), profile.defrosters.contains(defroster) else {
                return missing("\(parts.all.dropFirst().joined(separator: ".")) defroster")
            }
            return flag(true, "defroster")
        case "seat":
            guard parts.count == 3, let seat = CarSeat(rawValue: parts[1]), let feature = SeatFeature(rawValue: parts[2]),
                let capabilities = profile.seat(seat), capabilities.maximum(feature) > 0
            else {
                return missing("seat \(parts.all.dropFirst().joined(separator: " "))")
            }
            return integer(in: 0...capabilities.maximum(feature))
        case "audio":
            guard key == .audioSource, case let .enumeration(name) = value, let source = CarAudioSource(rawValue: name),
                profile.audioSources.contains(source)
            else { return missing("audio source \(value)") }
            return .success(value)
        case "radio":
            guard let radio = profile.radio else { return missing("radio") }
            if key == .radioBand {
                guard case let .enumeration(name) = value, let type = RadioType(rawValue: name), radio.band(type) != nil else {
                    return missing("band \(value)")
                }
                if type == .satellite, !radio.satelliteSubscribed {
                    return .failure(Violation(reason: .notSubscribed, detail: "\(key)=\(value): no satellite radio subscription"))
                }
                return .success(value)
            }
            // The band of the same command, else the current one.
            var bandValue = changes[.radioBand] ?? state[.radioBand]
            if bandValue == nil, let only = radio.bands.first(where: { $0.tunesByChannel == (key == .radioChannel) }) {
                bandValue = .enumeration(only.type.rawValue)
            }
            guard case let .enumeration(bandName)? = bandValue, let type = RadioType(rawValue: bandName), let band = radio.band(type) else {
                return missing("band to tune")
            }
            switch key {
            case .radioFrequency:
                guard !band.tunesByChannel else { return missing("frequency tuning on \(band.type.rawValue)") }
                return number(in: band.range)
            case .radioChannel:
                guard band.tunesByChannel else { return missing("channel tuning on \(band.type.rawValue)") }
                return integer(in: Int(band.range.min.rounded(.up))...Int(band.range.max.rounded(.down)))
            default:
                return missing("such radio property")
            }
        case "profile":
            guard key == .activeCarProfile, profile.carProfileSlots > 0 else { return missing("car profile slots") }
            return integer(in: 0...profile.carProfileSlots)
        case "lock":
            guard key == .locked else { return missing("such lock property") }
            return flag(profile.hasLock, "remote lock")
        case "signal":
            guard parts.count == 2, let signal = CarSignal(rawValue: parts[1]) else { return missing("such signal") }
            return flag(profile.carSignals.contains(signal), "\(signal.rawValue) signal")
        default:
            return missing("property \(key)")
        }
    }

    // MARK: - Wrong values

    /// What a `wrongValue` fault applies instead of `value`: a number one step (or 1.0)
    /// off within the car's range, a boolean inverted, an enumeration's next case that
    /// the car has. The value itself when there is no other valid value.
    func wrongValue(for key: PropertyKey, _ value: PropertyValue) -> PropertyValue {
        switch value {
        case let .bool(flag):
            return .bool(!flag)
        case let .enumeration(name):
            var cases: [String]
            switch key {
            case .audioSource: cases = profile.audioSources.map(\.rawValue)
            case .radioBand: cases = (profile.radio?.bands ?? []).map(\.type.rawValue)
            case .airCirculation: cases = profile.climate?.recirculation == false ? [name] : AirCirculationMode.allCases.map(\.rawValue)
            default:
                if case let .enumeration(all)? = key.kind { cases = all.names } else { cases = [name] }
            }
            if let mapped = profile.bindings[key]?.statusValues.values, !mapped.isEmpty { cases = cases.filter { mapped[$0] != nil } }
            guard let index = cases.firstIndex(of: name), cases.count > 1 else { return value }
            return .enumeration(cases[(index + 1) % cases.count])
        case let .integer(number):
            let range = integerRange(for: key)
            if number + 1 <= range.upperBound { return .integer(number + 1) }
            if number - 1 >= range.lowerBound { return .integer(number - 1) }
            return value
        case let .number(number):
            let range = numberRange(for: key)
            if range.contains(number + range.step) { return .number(range.snap(number + range.step)) }
            if range.contains(number - range.step) { return .number(range.snap(number - range.step)) }
            return value
        }
    }

    /// The command with its presses made absolute against the current state: a toggle
    /// flips the property, each step moves it by the profile's step, within the car's range.
    func applyingPresses(_ command: HeadUnitCommand) -> HeadUnitCommand {
        guard !command.toggles.isEmpty || !command.steps.isEmpty else { return command }
        var resolved = command
        for key in command.toggles {
            let current = (resolved.changes[key] ?? state[key]) == .bool(true)
            resolved.changes[key] = .bool(!current)
        }
        for (key, count) in command.steps.sorted(by: { $0.key < $1.key }) {
            guard let step = frames.stepCommand(of: key)?.step, let current = (resolved.changes[key] ?? state[key])?.doubleValue else { continue }
            let moved = current + Double(count) * step
            if case .integer? = key.kind {
                let range = integerRange(for: key)
                resolved.changes[key] = .integer(min(max(Int(moved.rounded()), range.lowerBound), range.upperBound))
            } else {
                resolved.changes[key] = .number(numberRange(for: key).snap(moved))
            }
        }
        resolved.toggles = []
        resolved.steps = [:]
        return resolved
    }

    private func integerRange(for key: PropertyKey) -> ClosedRange<Int> {
        switch key {
        case .fanSpeed: return 1...max(1, profile.climate?.fanSpeedLevels ?? 1)
        case .activeCarProfile: return 0...max(0, profile.carProfileSlots)
        case .radioChannel:
            if let band = currentBand(tunesByChannel: true) {
                return Int(band.range.min.rounded(.up))...max(Int(band.range.min.rounded(.up)), Int(band.range.max))
            }
            return 0...Int.max - 1
        default:
            let parts = key.rawValue.split(separator: ".").map(String.init)
            if parts.count == 3, parts[0] == "seat", let seat = CarSeat(rawValue: parts[1]), let feature = SeatFeature(rawValue: parts[2]) {
                return 0...max(0, profile.seat(seat)?.maximum(feature) ?? 0)
            }
            return Int.min + 1...Int.max - 1
        }
    }

    private func numberRange(for key: PropertyKey) -> SteppedRange {
        if key.rawValue.hasPrefix("climate.temperature."), let celsius = profile.climate?.celsius { return celsius }
        if key == .radioFrequency, let band = currentBand(tunesByChannel: false) { return band.range }
        return SteppedRange(min: -Double.greatestFiniteMagnitude, max: Double.greatestFiniteMagnitude, step: 1)
    }

    private func currentBand(tunesByChannel: Bool) -> RadioBand? {
        guard let radio = profile.radio else { return nil }
        if case let .enumeration(name)? = state[.radioBand], let type = RadioType(rawValue: name), let band = radio.band(type),
            band.tunesByChannel == tunesByChannel
        {
            return band
        }
        return radio.bands.first { $0.tunesByChannel == tunesByChannel }
    }

    // MARK: - Starting state

    /// A plausible state for every property the profile binds: 21 °C in every zone,
    /// fan on at level 3 (or the highest level below), A/C and climate on (every zone's too), auto off,
    /// fresh air, defrosters off, seats 0, the first audio source, the first radio band
    /// tuned to its first preset (else station, else its minimum), no car profile,
    /// unlocked, signals off, fuel 62 %, charge 71 %, 420 km, not charging, cabin 24 °C;
    /// no connector plugged in, capacities and the other ranges from the drivetrain model.
    public static func defaultState(for profile: VehicleProfile) -> VehicleState {
        var state = VehicleState()
        for key in profile.bindings.keys {
            if let value = defaultValue(for: key, profile: profile) { state[key] = value }
        }
        // Capacities and the other ranges follow from the charge and fuel (420 km stays as it was).
        for (key, value) in drivetrainDefaults(for: profile, charge: 71, fuel: 62) where profile.bindings[key] != nil && state[key] == nil {
            state[key] = value
        }
        return state
    }

    private static func defaultValue(for key: PropertyKey, profile: VehicleProfile) -> PropertyValue? {
        if key.rawValue.hasPrefix("climate.temperature.") {
            return .number(profile.climate?.celsius?.snap(21) ?? 21)
        }
        if key.rawValue.hasPrefix("climate.climateControl.") { return .bool(true) }
        if key.rawValue.hasPrefix("seat.") { return .integer(0) }
        if key.rawValue.hasPrefix("defroster.") || key.rawValue.hasPrefix("signal.") { return .bool(false) }
        switch key {
        case .fan, .airConditioner, .climateControl: return .bool(true)
        case .autoMode, .locked, .charging: return .bool(false)
        case .fanSpeed: return .integer(max(1, min(3, profile.climate?.fanSpeedLevels ?? 3)))
        case .airCirculation: return .enumeration(AirCirculationMode.freshAir.rawValue)
        case .cabinTemperature: return .number(24)
        case .outsideTemperature: return .number(12)
        case .autoDefog: return .bool(true)
        case .temperatureUnit: return .enumeration("celsius")
        case .audioSource: return profile.audioSources.first.map { .enumeration($0.rawValue) }
        case .radioBand: return profile.radio?.bands.first.map { .enumeration($0.type.rawValue) }
        case .radioFrequency:
            guard let radio = profile.radio, let band = radio.bands.first(where: { !$0.tunesByChannel }) else { return nil }
            return defaultTuning(for: band, radio: radio)
        case .radioChannel:
            guard let radio = profile.radio, let band = radio.bands.first(where: \.tunesByChannel) else { return nil }
            return defaultTuning(for: band, radio: radio)
        case .activeCarProfile: return .integer(0)
        case .fuelPercent: return .number(62)
        case .chargePercent: return .number(71)
        case .distanceRemaining: return .number(420)
        case .minutesToFull: return .integer(0)
        default: return nil
        }
    }

    /// A valid tuning of `band`: its first preset, else its first station, else its minimum.
    static func defaultTuning(for band: RadioBand, radio: RadioCapabilities) -> PropertyValue {
        let stations = radio.presets.map(\.station) + radio.stations
        let station = stations.first { $0.type == band.type && (band.tunesByChannel ? $0.channel != nil : $0.frequency != nil) }
        if band.tunesByChannel {
            let channel = station?.channel ?? Int(band.range.min.rounded(.up))
            return .integer(band.range.contains(Double(channel)) ? channel : Int(band.range.min.rounded(.up)))
        }
        let frequency = station?.frequency ?? band.range.min
        return .number(band.range.contains(frequency) ? band.range.snap(frequency) : band.range.min)
    }
}

/// A key's dot-separated parts, as `rawValue.split(separator: ".").map(String.init)`
/// gives them (empty parts left out), without building arrays: the first three are
/// kept (short strings need no allocation), the rest only counted.
struct KeyParts {
    let text: String
    private(set) var count = 0
    private var first = ""
    private var second = ""
    private var third = ""

    init(_ text: String) {
        self.text = text
        let utf8 = text.utf8
        var start = utf8.startIndex
        var index = start
        while true {
            let atEnd = index == utf8.endIndex
            if atEnd || utf8[index] == UInt8(ascii: ".") {
                if start < index {
                    switch count {
                    case 0: first = String(text[start..<index])
                    case 1: second = String(text[start..<index])
                    case 2: third = String(text[start..<index])
                    default: break
                    }
                    count += 1
                }
                if atEnd { break }
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
    }

    /// Part `index` (0, 1 or 2; below `count`).
    subscript(index: Int) -> String {
        switch index {
        case 0: first
        case 1: second
        default: third
        }
    }

    /// Every part (for messages).
    var all: [String] { text.split(separator: ".").map(String.init) }
}
