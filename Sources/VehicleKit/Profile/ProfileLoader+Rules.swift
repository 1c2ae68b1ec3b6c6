import CANKit
import CarplayJSON

/// Which bindings the capabilities need, what the messages must have, and whether the
/// signals can carry the capabilities' ranges.
extension ProfileReader {
    /// Whether the car has the capability behind `key`, whether that capability needs
    /// the binding, and what the capability is called (for messages).
    func capability(of key: PropertyKey, in profile: VehicleProfile) -> (enabled: Bool, required: Bool, needs: String) {
        let parts = key.rawValue.split(separator: ".").map(String.init)
        let climate = profile.climate
        switch key.rawValue {
        case "climate.fan": return (climate != nil, (climate?.fanSpeedLevels ?? 0) > 0, "climate control")
        case "climate.fanSpeed": return ((climate?.fanSpeedLevels ?? 0) > 0, (climate?.fanSpeedLevels ?? 0) > 0, "climate.fanSpeedLevels > 0")
        case "climate.airConditioner": return (climate?.airConditioner == true, climate?.airConditioner == true, "climate.airConditioner: true")
        case "climate.autoMode": return (climate?.autoMode == true, climate?.autoMode == true, "climate.autoMode: true")
        case "climate.climateControl": return (climate?.climateControl == true, climate?.climateControl == true, "climate.climateControl: true")
        case "climate.airCirculation": return (climate?.recirculation == true, climate?.recirculation == true, "climate.recirculation: true")
        case "climate.cabinTemperature": return (climate != nil, false, "climate control")
        case "defroster.front", "defroster.rear":
            let has = profile.defrosters.contains { $0.rawValue == parts[1] }
            return (has, has, "\"\(parts[1])\" in defrosters")
        case "audio.source": return (!profile.audioSources.isEmpty, !profile.audioSources.isEmpty, "audioSources")
        case "radio.band": return (profile.radio != nil, profile.radio != nil, "a radio")
        case "radio.frequency":
            let has = profile.radio?.bands.contains { !$0.tunesByChannel } ?? false
            return (has, has, "an AM, FM or HD radio band")
        case "radio.channel":
            let has = profile.radio?.bands.contains { $0.tunesByChannel } ?? false
            return (has, has, "a satellite or DAB radio band")
        case "profile.active": return (profile.carProfileSlots > 0, profile.carProfileSlots > 0, "profileSlots > 0")
        case "lock.locked": return (profile.hasLock, profile.hasLock, "lock: true")
        case "signal.audible", "signal.visible":
            let has = profile.carSignals.contains { $0.rawValue == parts[1] }
            return (has, has, "\"\(parts[1])\" in carSignals")
        case "power.fuelPercent": return (profile.power.fuel, profile.power.fuel, "power.fuel: true")
        case "power.chargePercent": return (profile.power.battery, profile.power.battery, "power.battery: true")
        case "power.charging", "power.minutesToFull": return (profile.power.battery, false, "power.battery: true")
        case "power.distanceRemaining", "power.maximumDistance": return (true, false, "")
        case "power.distanceRemainingElectric", "power.maximumDistanceElectric", "power.minimumBatteryCapacity", "power.currentBatteryCapacity",
            "power.maximumBatteryCapacity", "power.activeConnector":
            return (profile.power.battery, false, "power.battery: true")
        case "power.distanceRemainingFuel", "power.maximumDistanceFuel": return (profile.power.fuel, false, "power.fuel: true")
        case "extension.outsideTemperature", "extension.autoDefog", "extension.temperatureUnit": return (true, false, "")
        default: break
        }
        if parts.count == 3, parts[0] == "climate", parts[1] == "temperature" {
            let has = climate?.zones.contains { $0.id == parts[2] } ?? false
            return (has, has, "a climate zone \"\(parts[2])\"")
        }
        if parts.count == 3, parts[0] == "climate", parts[1] == "climateControl" {
            let has = climate?.climateControlZones.contains { $0.id == parts[2] } ?? false
            return (has, has, "a climate control zone \"\(parts[2])\" (climate.climateControlZones)")
        }
        if parts.count == 3, parts[0] == "seat", let seat = CarSeat(rawValue: parts[1]), let feature = SeatFeature(rawValue: parts[2]) {
            let level = profile.seat(seat)?.maximum(feature) ?? 0
            return (level > 0, level > 0, "a seats entry for \(seat.rawValue) with \(feature.rawValue) > 0")
        }
        return (false, false, "")
    }

    /// The range a number property's `"min"`/`"max"` stand for: a set point's (in °C, the
    /// property's unit), a percentage's; nil for numbers without one.
    func numberRange(of key: PropertyKey, in profile: VehicleProfile) -> ClosedRange<Double>? {
        if key.rawValue.hasPrefix("climate.temperature."), let celsius = profile.climate?.celsius { return celsius.min...celsius.max }
        return key.fixedRange
    }

    /// Every key the profile's capabilities need, in a stable order.
    func requiredKeys(for profile: VehicleProfile) -> [PropertyKey] {
        var candidates: [PropertyKey] = (profile.climate?.zones ?? []).map { PropertyKey.temperature(zone: $0.id) }
        candidates += (profile.climate?.climateControlZones ?? []).map { PropertyKey.climateControl(zone: $0.id) }
        candidates += [
            .fan, .fanSpeed, .airConditioner, .autoMode, .climateControl, .airCirculation, "defroster.front", "defroster.rear",
        ]
        for seat in CarSeat.physical { for feature in SeatFeature.allCases { candidates.append(.seat(seat, feature)) } }
        candidates += [
            .audioSource, .radioBand, .radioFrequency, .radioChannel, .activeCarProfile, .locked, "signal.audible", "signal.visible",
            .fuelPercent, .chargePercent,
        ]
        return candidates.filter { capability(of: $0, in: profile).required }
    }

    /// Every status message has a cycle time (reachability counts cycles); protection
    /// signals carry no property.
    func checkCoverage(profile: VehicleProfile, bindings: [PropertyKey: ResolvedBinding]) throws(ProfileError) {
        let sorted = bindings.values.sorted { $0.key < $1.key }
        for reference in sorted.flatMap({ $0.commandSignals + [$0.status] + ($0.qualifier.map { [$0] } ?? []) }) {
            let message = reference.message.name
            if profile.protection[message]?.isProtectionSignal(reference.signal.name) == true {
                throw fail(reference.path + ".signal", "signal \"\(reference.signal.name)\" is the protection checksum or counter of \"\(message)\"")
            }
        }
        for binding in sorted where profile.cycleTime(of: binding.status.message) == nil {
            throw fail(
                "messages[\"\(binding.status.message.name)\"].cycleTimeMs",
                "missing: status message \"\(binding.status.message.name)\" (\(binding.status.path)) has no GenMsgCycleTime in \(dbcName), so the profile gives its period; reachability (unreachableAfterCycles) needs it"
            )
        }
    }

    /// One command signal carries one setting: zones may share a set point (one value for
    /// several places), but a seat's heating and cooling on one level signal could never
    /// be sent together (heating on sets cooling off), so every command would fail.
    func checkSharedCommandSignals(bindings: [PropertyKey: ResolvedBinding]) throws(ProfileError) {
        var owner: [String: ResolvedBinding] = [:]
        for binding in bindings.values.sorted(by: { $0.key < $1.key }) {
            guard case .setpoint? = binding.binding.command else { continue }
            for signal in binding.commandSignals {
                let id = signal.message.name + "." + signal.signal.name
                guard let other = owner[id] else {
                    owner[id] = binding
                    continue
                }
                guard Self.setting(of: other.key) != Self.setting(of: binding.key) else { continue }
                throw fail(
                    binding.path + ".command",
                    "signal \"\(signal.signal.name)\" of message \"\(signal.message.name)\" is also the command signal of \(other.key.rawValue) (\(other.path)): two settings cannot share one command signal (a seat's heating and cooling on one level signal with a mode signal beside it is not supported yet: give one of them the command and bind the other read-only, status only)"
                )
            }
        }
    }

    /// The setting a key stands for, whatever the zone or seat: `climate.temperature`,
    /// `seat.heating`; a key without places is its own.
    static func setting(of key: PropertyKey) -> String {
        let parts = key.rawValue.split(separator: ".")
        if key.rawValue.hasPrefix("climate.temperature.") || key.rawValue.hasPrefix("climate.climateControl.") { return parts.prefix(2).joined(separator: ".") }
        if parts.count == 3, parts[0] == "seat" { return "seat." + parts[2] }
        return key.rawValue
    }

    /// A command frame writes the signals the profile names (`FrameWrites`); two of them
    /// that share a bit cannot both be carried. Checked before the ranges, so an overlap
    /// is reported as itself.
    func checkWrites(profile: VehicleProfile) throws(ProfileError) {
        let commandMessages = Set(profile.bindings.values.compactMap { $0.command?.message })
        for name in commandMessages.sorted() {
            guard let message = profile.database.message(named: name),
                let (earlier, later) = FrameWrites.resolve(profile.commandSignalsNamed(in: name), in: message).collisions.first
            else { continue }
            throw fail(
                later.path,
                "signal \"\(later.signal)\" shares bits with signal \"\(earlier.signal)\" (\(earlier.path)) in message \"\(name)\", and the head unit would write both: a frame carries only one of two overlapping signals (a signal that overlaps another is written only when the profile names it)"
            )
        }
    }

    // MARK: - Ranges

    func checkRanges(profile: VehicleProfile, bindings: [PropertyKey: ResolvedBinding], root: JSONObject) throws(ProfileError) {
        if let climate = profile.climate {
            for zone in climate.zones {
                guard let celsius = climate.celsius else { continue }
                try expect(
                    bindings[.temperature(zone: zone.id)], [celsius.min, celsius.min + celsius.step, celsius.max],
                    path: "climate.temperature.celsius", describe: { "\($0.plainText()) °C" })
            }
            if climate.fanSpeedLevels > 0 {
                try expect(
                    bindings[.fanSpeed], [1, Double(climate.fanSpeedLevels)], path: "climate.fanSpeedLevels", describe: { "fan level \($0.plainText())" })
            }
        }
        for (index, seat) in profile.seats.enumerated() {
            for feature in SeatFeature.allCases where seat.maximum(feature) > 0 {
                try expect(
                    bindings[.seat(seat.seat, feature)], [0, Double(seat.maximum(feature))],
                    path: "seats[\(index)].\(feature.rawValue)", describe: { "\(feature.rawValue) level \($0.plainText())" })
            }
        }
        if let radio = profile.radio {
            for (index, band) in radio.bands.enumerated() {
                let range = band.range
                let samples = [range.min, range.min + range.step, range.max]
                if band.tunesByChannel {
                    try expect(bindings[.radioChannel], samples, path: "radio.bands[\(index)]", describe: { "\(band.type.rawValue) channel \($0.plainText())" })
                } else {
                    let binding = bindings[.radioFrequency]?.binding
                    if let binding, binding.signalUnit == nil,
                        let other = radio.bands.first(where: { !$0.tunesByChannel && $0.unit != band.unit })
                    {
                        throw fail(
                            "bindings[\"radio.frequency\"].signalUnit",
                            "missing: the \(band.type.rawValue) band is in \(band.unit) and the \(other.type.rawValue) band in \(other.unit), so one signal needs its unit (\"kHz\" or \"MHz\")"
                        )
                    }
                    try expect(
                        bindings[.radioFrequency], samples, path: "radio.bands[\(index)]", describe: { "\(band.type.rawValue) \($0.plainText()) \(band.unit)" },
                        signalValue: { binding?.signalValue(frequency: $0, band: band) ?? $0 })
                }
            }
        }
        if profile.carProfileSlots > 0 {
            // Slot 0 ("none") is reported, never commanded: SetProfileInCar selects 1...slots.
            try expect(
                bindings[.activeCarProfile], [0, Double(profile.carProfileSlots)], path: "profileSlots", describe: { "profile slot \($0.plainText())" },
                commanded: { $0 != 0 })
        }
        // Temperatures a car reports: a signal that cannot carry an ordinary one (the
        // simulated car's 12 °C outside, 24 °C inside) is the wrong signal.
        for (key, samples) in [(PropertyKey.outsideTemperature, [-20.0, 12, 40]), (.cabinTemperature, [12.0, 24, 32])] {
            try expect(bindings[key], samples, path: "bindings[\"\(key.rawValue)\"]", describe: { "\($0.plainText()) °C" })
        }
        for key in [PropertyKey.fuelPercent, .chargePercent] {
            try expect(bindings[key], [0, 100], path: "bindings[\"\(key.rawValue)\"]", describe: { "\($0.plainText()) %" })
        }
        for binding in bindings.values.sorted(by: { $0.key < $1.key }) where binding.key.kind == .bool && binding.binding.statusValues.values.isEmpty {
            try expect(binding, [0, 1], path: binding.path, describe: { $0 == 0 ? "false (0)" : "true (1)" })
        }
    }

    /// Each value (through `signalValue`) must encode into the setpoint command and the
    /// status signals and read back as itself: within the DBC minimum/maximum, the bits,
    /// and the scale. A value that a table maps is carried by its raw value; one that a
    /// linear mapping converts, or a read-only status, need only fit (the signal's grid
    /// may be coarser). A
    /// setpoint value must not encode as the command's idle value: the vehicle could not
    /// tell it from no request.
    func expect(
        _ binding: ResolvedBinding?, _ values: [Double], path: String, describe: (Double) -> String, signalValue: (Double) -> Double = { $0 },
        commanded: (Double) -> Bool = { _ in true }
    ) throws(ProfileError) {
        guard let binding else { return }
        // A status that is only read need only fit: the signal's grid may miss the value
        // (a fuel scale of 0.108696 reads full as 100.00032 %, clamped to 100 on reading).
        let readOnly = binding.binding.command == nil
        var sides: [(reference: ResolvedSignal, mapping: ValueMapping, idle: Int128?, exact: Bool)] = [
            (binding.status, binding.binding.statusValues, nil, !readOnly)
        ]
        if case let .setpoint(setpoint)? = binding.binding.command {
            sides.insert(contentsOf: binding.commandSignals.map { ($0, setpoint.values, setpoint.idle, true) }, at: 0)
        }
        // A mapping's table is keyed by the property value as a profile writes it: a
        // boolean by "false"/"true", not by the 0/1 it is checked as here.
        let isBool = binding.key.kind == .bool
        for side in sides {
            for value in values {
                if let names = side.mapping.values[isBool ? String(value != 0) : value.plainText()] {
                    // Carried by its raw value: the first one named is the one sent.
                    if case let .raw(raw)? = names.first, let problem = Self.rawProblem(raw, side.reference) {
                        throw fail(
                            path, "\(describe(value)) is raw value \(raw) of signal \"\(side.reference.signal.name)\" (\(side.reference.path)): \(problem)")
                    }
                    continue
                }
                var carried = signalValue(value)
                if let linear = side.mapping.linear { carried = linear.signal(fromProperty: carried) }
                let written = isBool ? String(value != 0) : value.plainText()
                if let problem = Self.roundTrip(carried, side.reference, exact: side.exact && side.mapping.linear == nil, writtenAs: written) {
                    throw fail(
                        path,
                        "\(describe(value)) cannot be carried by signal \"\(side.reference.signal.name)\" of message \"\(side.reference.message.name)\" (\(side.reference.path)): \(problem)"
                    )
                }
                let signal = side.reference.signal
                if let idle = side.idle, commanded(value), ((carried - signal.offset.doubleValue) / signal.scale.doubleValue).rounded() == Double(idle) {
                    throw fail(
                        side.reference.path + ".idle",
                        "\(describe(value)) is sent as raw value \(idle), the idle value of signal \"\(signal.name)\": the vehicle could not tell it from no request (give no idle where the signal always carries the value: the frame then repeats the current one; else map it to another raw value, or use a momentary or toggle command)"
                    )
                }
            }
        }
    }

    /// Why raw value `raw` cannot be sent in the signal (its DBC minimum and maximum,
    /// which a sentinel such as LO/HI often lies outside), with the fix; nil when it can.
    static func rawProblem(_ raw: Int128, _ reference: ResolvedSignal) -> String? {
        let codec = reference.message.codec
        let index = codec.index(ofSignal: reference.signal.name)!
        do {
            _ = try codec.carried(codec.input(forRaw: raw, signalAt: index), signalAt: index)
            return nil
        } catch {
            let signal = reference.signal
            return
                "\(error.description) A raw value the car sends outside the DBC's range is named as a choice, which the range does not bind: \"messages\": {\"\(reference.message.name)\": {\"choices\": {\"\(signal.name)\": {\"\(raw)\": \"…\"}}}}, and the mapping names that choice"
        }
    }

    /// Encodes `value` into the signal alone (its range, bits and choices: the message's
    /// other signals, overlapping or not, play no part) and decodes it again; nil when it
    /// reads back unchanged, else the problem. `written` is the value as a profile's
    /// mapping writes it (a boolean "true"/"false"), for the advice.
    static func roundTrip(_ value: Double, _ reference: ResolvedSignal, exact: Bool = true, writtenAs written: String? = nil) -> String? {
        let codec = reference.message.codec
        let input: SignalInput = value.rounded() == value && abs(value) < 1e15 ? .integer(Int128(value)) : .float(value)
        let result: SignalValue
        do {
            result = try codec.carried(input, signalAt: codec.index(ofSignal: reference.signal.name)!)
        } catch {
            return error.description
        }
        if case let .choice(name, raw) = result {
            let key = written ?? value.plainText()
            // A boolean's mapping names both of its values: the other one is the
            // other choice of the signal (whichever the DBC gives).
            let both = key == "true" || key == "false" ? ", and the other boolean value's choice beside it" : ""
            return
                "it encodes as raw value \(raw), which is the choice \"\(name)\" (if that choice means this value, map it: \"values\": {\"\(key)\": \"\(name)\"}\(both))"
        }
        if exact, abs(result.doubleValue - value) > 1e-6 * max(1, abs(value)) {
            return "the signal's scale \(reference.signal.scale) cannot represent it (it reads back as \(result))"
        }
        return nil
    }
}
