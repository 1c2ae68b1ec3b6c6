import CarplayJSON
import VehicleKit

extension IntentResolver {
    /// `SetClimateSettingsInCar`.
    ///
    /// - No climate capabilities: every given parameter is `unsupported`.
    /// - `enableFan` (a car with fan levels, or with a `climate.fan` binding), `enableAirConditioner`, `enableClimateControl`,
    ///   `enableAutoMode`, `airCirculationMode`: `unsupported` when the capability is absent,
    ///   else `success`; the action sets `climate.fan` / `.airConditioner` / `.climateControl` /
    ///   `.autoMode` / `.airCirculation`.
    /// - `fanSpeedIndex`: 1...fanSpeedLevels, else clamped and `confirmationRequired`.
    ///   `fanSpeedPercentage` (with no index): level = max(1, ceil(p/100 × levels)), 0 turns
    ///   the fan off; with an index it is `unsupported`. Both resolve to the level (an integer).
    ///   `relativeFanSpeedSetting`: lowest 1, highest fanSpeedLevels, lower/higher the current
    ///   `climate.fanSpeed` ∓ 1 clamped (`needsValue` when unknown); `unsupported` together with
    ///   an index or a percentage. A fan speed sets `climate.fanSpeed` and `climate.fan = true`
    ///   (`enableFan: false` with a speed is `unsupported` on `enableFan`). Cars with
    ///   `fanSpeedLevels == 0` answer `unsupported` to all three.
    /// - `enableClimateControl`: the switches `ClimateCapabilities.climateControlKeys` gives
    ///   for the `climateZone`'s seats (a rear switch of its own for the rear seats, the whole
    ///   car's for the others; without `climateZone` the whole car's); none -> `unsupported`.
    /// - `climateZone`: the CarSeat's physical seats (`driverSide`), then the temperature
    ///   zones and the climate control zones serving any of them; none -> `unsupported`, but
    ///   on a car with no zones of either kind `success` with `[]` (all it sets is the whole
    ///   car's). Absent with a temperature or relative temperature: every zone ("the whole
    ///   car"); absent otherwise `notRequired`. The success value is the array of zone ids.
    /// - `temperature`: checked in the range of its own unit; outside -> clamped to min/max
    ///   and `confirmationRequired` ("30 °C is above the maximum 28 °C"); inside -> snapped to
    ///   the step, `success` with the snapped value (in the request's unit). The action sets
    ///   `climate.temperature.<zone>` for each zone in °C: Fahrenheit values are converted
    ///   and snapped to the Celsius step (so the status frame can match the target).
    /// - `relativeTemperatureSetting`: per zone, lowest = min, highest = max, lower/higher =
    ///   current `climate.temperature.<zone>` ∓ the Celsius step, clamped; `needsValue("current
    ///   temperature unknown")` when a zone's current value is missing. The success value is
    ///   `{zone: °C}`. With `temperature` too -> `unsupported`.
    /// - A (relative) temperature on a car without zones, or for a `climateZone` that only
    ///   a climate control zone serves -> `unsupported`.
    /// - Nothing settable given -> `needsValue` on `temperature`.
    static func resolveClimate(_ p: SetClimateSettingsInCarParameters, _ context: inout ResolutionContext) {
        context.carName(p.carName)
        let settable: [(String, Bool)] = [
            ("enableFan", p.enableFan != nil), ("enableAirConditioner", p.enableAirConditioner != nil),
            ("enableClimateControl", p.enableClimateControl != nil), ("enableAutoMode", p.enableAutoMode != nil),
            ("airCirculationMode", p.airCirculationMode != nil), ("fanSpeedIndex", p.fanSpeedIndex != nil),
            ("fanSpeedPercentage", p.fanSpeedPercentage != nil), ("relativeFanSpeedSetting", p.relativeFanSpeedSetting != nil),
            ("temperature", p.temperature != nil), ("relativeTemperatureSetting", p.relativeTemperatureSetting != nil),
        ]
        guard let climate = context.profile.climate else {
            let reason = "\(context.car) has no climate control"
            for (name, given) in settable where given { context.results[name] = .unsupported(reason: reason) }
            if p.climateZone != nil { context.results["climateZone"] = .unsupported(reason: reason) }
            if !settable.contains(where: \.1) { context.results["temperature"] = .unsupported(reason: reason) }
            return
        }
        guard settable.contains(where: \.1) else {
            context.results["temperature"] = .needsValue(reason: "nothing to set: give a temperature, a fan speed or a setting to switch on or off")
            return
        }

        // Switches.
        func toggle(_ name: String, _ value: Bool?, available: Bool, missing: String, key: PropertyKey) {
            guard let value else { return }
            if available {
                context.results[name] = .success(.bool(value))
                context.targets[key] = .bool(value)
            } else {
                context.results[name] = .unsupported(reason: "\(context.car) has no \(missing)")
            }
        }
        // A car whose fan has levels binds climate.fan (the loader asks for it); one
        // without levels may still bind it. Unbound, Handle could send nothing.
        let switchesFan = climate.fanSpeedLevels > 0 || context.profile.bindings[.fan] != nil
        toggle("enableFan", p.enableFan, available: switchesFan, missing: "fan switch", key: .fan)
        toggle("enableAirConditioner", p.enableAirConditioner, available: climate.airConditioner, missing: "air conditioner", key: .airConditioner)
        if let enable = p.enableClimateControl {
            let seats = p.climateZone?.physicalSeats(driverSide: context.profile.driverSide)
            let keys = climate.climateControlKeys(serving: seats)
            if keys.isEmpty {
                // No switch serves those seats; or the car has none at all.
                let hasSwitch = climate.climateControl || !climate.climateControlZones.isEmpty
                let missing = if let zone = p.climateZone, hasSwitch { "climate switch for the \(zone.spokenName)" } else { "climate control switch" }
                context.results["enableClimateControl"] = .unsupported(reason: "\(context.car) has no \(missing)")
            } else {
                context.results["enableClimateControl"] = .success(.bool(enable))
                for key in keys { context.targets[key] = .bool(enable) }
            }
        }
        toggle("enableAutoMode", p.enableAutoMode, available: climate.autoMode, missing: "automatic climate mode", key: .autoMode)
        if let mode = p.airCirculationMode {
            if climate.recirculation {
                context.results["airCirculationMode"] = .success(.string(mode.rawValue))
                context.targets[.airCirculation] = .enumeration(mode.rawValue)
            } else {
                context.results["airCirculationMode"] = .unsupported(reason: "\(context.car) cannot switch between fresh and recirculated air")
            }
        }

        resolveFanSpeed(p, climate, &context)
        resolveTemperature(p, climate, &context)
    }

    private static func resolveFanSpeed(_ p: SetClimateSettingsInCarParameters, _ climate: ClimateCapabilities, _ context: inout ResolutionContext) {
        let levels = climate.fanSpeedLevels
        var speed: Int?
        // A function: the text is made only for a car without fan speeds.
        func noSpeed(_ context: ResolutionContext) -> ResolutionResult { .unsupported(reason: "\(context.car) cannot set the fan speed") }
        if let index = p.fanSpeedIndex {
            if levels < 1 {
                context.results["fanSpeedIndex"] = noSpeed(context)
            } else if index < 1 {
                context.results["fanSpeedIndex"] = .confirmationRequired(.integer(1), reason: "fan speed \(index) is below the lowest level 1")
            } else if index > levels {
                context.results["fanSpeedIndex"] = .confirmationRequired(.integer(levels), reason: "fan speed \(index) is above the highest level \(levels)")
            } else {
                context.results["fanSpeedIndex"] = .success(.integer(index))
                speed = index
            }
        }
        if let percentage = p.fanSpeedPercentage {
            if levels < 1 {
                context.results["fanSpeedPercentage"] = noSpeed(context)
            } else if p.fanSpeedIndex != nil {
                context.results["fanSpeedPercentage"] = .unsupported(reason: "give either fanSpeedIndex or fanSpeedPercentage")
            } else {
                let level = percentage <= 0 ? 0 : max(1, min(levels, Int((percentage / 100 * Double(levels)).rounded(.up))))
                context.results["fanSpeedPercentage"] = .success(.integer(level))
                speed = level
            }
        }
        if let relative = p.relativeFanSpeedSetting {
            if levels < 1 {
                context.results["relativeFanSpeedSetting"] = noSpeed(context)
            } else if p.fanSpeedIndex != nil || p.fanSpeedPercentage != nil {
                context.results["relativeFanSpeedSetting"] = .unsupported(reason: "give either a fan speed or a relative setting")
            } else {
                var level: Int?
                switch relative {
                case .lowest: level = 1
                case .highest: level = levels
                case .lower, .higher:
                    if let current = context.integer(.fanSpeed) {
                        level = min(max(current + (relative == .lower ? -1 : 1), 1), levels)
                    }
                }
                if let level {
                    context.results["relativeFanSpeedSetting"] = .success(.integer(level))
                    speed = level
                } else {
                    context.results["relativeFanSpeedSetting"] = .needsValue(reason: "current fan speed unknown")
                }
            }
        }
        guard let speed else { return }
        if speed == 0 {
            if p.enableFan == true {
                context.results["enableFan"] = .unsupported(reason: "enableFan is true but fanSpeedPercentage 0 turns the fan off")
            }
            context.targets[.fan] = .bool(false)
        } else {
            if p.enableFan == false {
                context.results["enableFan"] = .unsupported(reason: "enableFan is false but a fan speed (\(speed)) was given")
            }
            context.targets[.fan] = .bool(true)
            context.targets[.fanSpeed] = .integer(speed)
            context.fulfilledBy[.fan] = .fanSpeed
        }
    }

    private static func resolveTemperature(_ p: SetClimateSettingsInCarParameters, _ climate: ClimateCapabilities, _ context: inout ResolutionContext) {
        let wantsTemperature = p.temperature != nil || p.relativeTemperatureSetting != nil
        var zones: [ClimateZone]
        if let zone = p.climateZone {
            let seats = zone.physicalSeats(driverSide: context.profile.driverSide)
            zones = climate.zones(serving: seats)
            let ids = zones.map(\.id) + climate.climateControlZones(serving: seats).map(\.id).filter { id in !zones.contains { $0.id == id } }
            if !ids.isEmpty {
                context.results["climateZone"] = .success(.array(ids.map { .string($0) }))
            } else if climate.zones.isEmpty, climate.climateControlZones.isEmpty {
                // Nothing of this car is per zone: what it sets, it sets for the whole car.
                context.results["climateZone"] = .success(.array([]))
            } else {
                context.results["climateZone"] = .unsupported(reason: "\(context.car) has no climate zone for the \(zone.spokenName)")
            }
            // A zone that only switches its climate on and off sets no temperature.
            if wantsTemperature, zones.isEmpty, case .success = context.results["climateZone"], !climate.zones.isEmpty {
                let reason = "\(context.car) has no temperature zone for the \(zone.spokenName)"
                if p.temperature != nil { context.results["temperature"] = .unsupported(reason: reason) }
                if p.relativeTemperatureSetting != nil { context.results["relativeTemperatureSetting"] = .unsupported(reason: reason) }
                return
            }
        } else {
            zones = climate.zones
            // Absent with a temperature: the whole car.
            context.results["climateZone"] = wantsTemperature ? .success(.array(zones.map { .string($0.id) })) : .notRequired
        }
        guard wantsTemperature else { return }
        guard !climate.zones.isEmpty, let celsius = climate.celsius, let fahrenheit = climate.fahrenheit else {
            let reason = "\(context.car) cannot set a temperature"
            if p.temperature != nil { context.results["temperature"] = .unsupported(reason: reason) }
            if p.relativeTemperatureSetting != nil { context.results["relativeTemperatureSetting"] = .unsupported(reason: reason) }
            return
        }
        if let temperature = p.temperature {
            let range = temperature.unit == .celsius ? celsius : fahrenheit
            let resolved: Double
            if temperature.value > range.max + 1e-9 {
                resolved = range.max
                context.results["temperature"] = .confirmationRequired(
                    Temperature(value: range.max, unit: temperature.unit).jsonValue,
                    reason: "\(temperature.text) is above the maximum \(Temperature(value: range.max, unit: temperature.unit).text)")
            } else if temperature.value < range.min - 1e-9 {
                resolved = range.min
                context.results["temperature"] = .confirmationRequired(
                    Temperature(value: range.min, unit: temperature.unit).jsonValue,
                    reason: "\(temperature.text) is below the minimum \(Temperature(value: range.min, unit: temperature.unit).text)")
            } else {
                resolved = range.snap(temperature.value)
                context.results["temperature"] = .success(Temperature(value: resolved, unit: temperature.unit).jsonValue)
            }
            let target = temperature.unit == .celsius ? resolved : celsius.snap((resolved - 32) * 5 / 9)
            for zone in zones { context.targets[.temperature(zone: zone.id)] = .number(target) }
        }
        if let relative = p.relativeTemperatureSetting {
            if p.temperature != nil {
                context.results["relativeTemperatureSetting"] = .unsupported(reason: "give either a temperature or a relative setting")
                return
            }
            let range = celsius
            var values: [String: JSONValue] = [:]
            var targets: [PropertyKey: PropertyValue] = [:]
            for zone in zones.isEmpty ? climate.zones : zones {
                let key = PropertyKey.temperature(zone: zone.id)
                let value: Double
                switch relative {
                case .lowest: value = range.min
                case .highest: value = range.max
                case .lower, .higher:
                    guard let current = context.state[key]?.doubleValue else {
                        context.results["relativeTemperatureSetting"] = .needsValue(reason: "current temperature unknown")
                        return
                    }
                    value = range.snap(current + (relative == .lower ? -range.step : range.step))
                }
                values[zone.id] = .number(value)
                targets[key] = .number(value)
            }
            context.results["relativeTemperatureSetting"] = .success(.object(values))
            if !zones.isEmpty { context.targets.merge(targets) { _, new in new } }
        }
    }
}
