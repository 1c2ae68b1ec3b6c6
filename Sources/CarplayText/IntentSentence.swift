import CarIntents
import CarplayClient
import CarplayJSON
import VehicleKit

/// The sentence a person reads after an intent: what was set (from the parameters sent
/// and how the daemon resolved them, the response's fields and the state afterwards),
/// or why it failed.
public enum IntentSentence {
    static let confirmed = " (confirmed by the vehicle)"

    public static func success(_ intent: Intent, reply: PerformReply) -> String {
        let resolutions = reply.resolutions
        let response = reply.response
        let state = reply.state
        /// The value the daemon resolved `name` to, when it resolved it to one value.
        func resolved(_ name: String) -> JSONValue? {
            let value = resolutions[name]?.value
            if case .array? = value { return nil }
            return value
        }
        switch intent {
        case let .setClimateSettingsInCar(p):
            var clauses: [String] = []
            let zones = temperatureZones(resolutions["climateZone"]?.value, state: state)
            let zone = zoneSubject(asked: p.climateZone?.rawValue, zones: zones)
            // Against the value sent: the daemon's resolution is already snapped to the step.
            if let temperature = p.temperature?.jsonValue ?? resolved("temperature") {
                clauses.append("\(zone ?? "Temperature") set to \(taken(temperature, zones: zones, state: state))")
            }
            if let relative = p.relativeTemperatureSetting {
                var clause = "\(zone ?? "Temperature") \(relativeWord(relative, up: "warmer", down: "cooler"))"
                if case let .object(values)? = resolutions["relativeTemperatureSetting"]?.value, !values.isEmpty {
                    clause += ": " + values.keys.sorted().map { "\(spoken($0)) \(readable(values[$0]!)) °C" }.joined(separator: ", ")
                }
                clauses.append(clause)
            }
            if p.enableFan == false { clauses.append("fan off") }
            if let index = p.fanSpeedIndex { clauses.append("fan speed \(resolved("fanSpeedIndex").map(readable) ?? String(index))") }
            if let percent = p.fanSpeedPercentage {
                let level = resolutions["fanSpeedPercentage"]?.value?.intValue
                clauses.append("fan at \(readableNumber(percent)) %" + (level.map { " (speed \($0))" } ?? ""))
            }
            if let relative = p.relativeFanSpeedSetting {
                let level = resolutions["relativeFanSpeedSetting"]?.value?.intValue
                clauses.append("fan \(relativeWord(relative, up: "faster", down: "slower"))" + (level.map { " (speed \($0))" } ?? ""))
            }
            if p.enableFan == true { clauses.append("fan on") }
            if let flag = p.enableAirConditioner { clauses.append("A/C \(readable(flag))") }
            if let flag = p.enableAutoMode { clauses.append("auto mode \(readable(flag))") }
            if let flag = p.enableClimateControl { clauses.append("climate control \(readable(flag))") }
            if let mode = p.airCirculationMode { clauses.append(mode == .recirculateAir ? "recirculated air" : "fresh air") }
            return capitalizedFirst(clauses.isEmpty ? "climate settings applied" : clauses.joined(separator: ", ")) + confirmed

        case let .setDefrosterSettingsInCar(p):
            let defroster = p.defroster?.rawValue ?? resolved("defroster")?.stringValue
            let name = defroster == "all" ? "All defrosters" : defroster.map { capitalizedFirst($0) + " defroster" } ?? "Defroster"
            return "\(name) \(p.enable.map(readable) ?? "set")" + confirmed

        case let .setSeatSettingsInCar(p):
            let seat = capitalizedFirst(spoken(p.seat?.rawValue ?? "the")) + " seat"
            var clauses: [String] = []
            for (feature, flag) in [("heating", p.enableHeating), ("cooling", p.enableCooling), ("massage", p.enableMassage)] {
                guard let flag else { continue }
                if !flag {
                    clauses.append("\(feature) off")
                } else if let level = resolved("level") ?? p.level.map(JSONValue.integer) {
                    clauses.append("\(feature) set to \(readable(level))")
                } else if let relative = p.relativeLevelSetting {
                    clauses.append("\(feature) \(relativeWord(relative, up: "higher", down: "lower"))")
                } else {
                    clauses.append("\(feature) on")
                }
            }
            if clauses.isEmpty, let level = resolved("level") ?? p.level.map(JSONValue.integer) { clauses.append("level \(readable(level))") }
            if clauses.isEmpty, let relative = p.relativeLevelSetting {
                clauses.append("level \(relativeWord(relative, up: "higher", down: "lower"))")
            }
            return "\(seat) \(clauses.isEmpty ? "set" : clauses.joined(separator: ", "))" + confirmed

        case let .setRadioStation(p):
            let asked: [String: JSONValue] = [
                "radio.band": p.radioType.map { .string($0.rawValue) } ?? .null, "radio.frequency": p.frequency.map(JSONValue.number) ?? .null,
                "radio.channel": p.channel.map(JSONValue.string) ?? .null,
            ]
            let tuned = radioText(state) ?? radioText(asked)
            var what = tuned ?? "the radio station"
            if let station = p.stationName {
                what = resolvedStation(resolutions["stationName"], station) + (tuned.map { " on \($0)" } ?? "")
            } else if let preset = p.presetNumber {
                what = "preset \(preset)" + (tuned.map { ", \($0)" } ?? "")
            }
            return "Tuned to \(what)" + confirmed

        case let .setAudioSourceInCar(p):
            let source = state["audio.source"]?.stringValue ?? p.audioSource?.rawValue
            return (source.map { "Audio source set to \($0)" } ?? "Audio source changed") + confirmed

        case let .saveProfileInCar(p):
            let number = response.profileNumber ?? p.profileNumber
            let name = response.profileName ?? p.profileName
            let count = response.settings
            return "Saved the current settings as profile \(number.map(String.init) ?? "?")" + (name.map { " \"\($0)\"" } ?? "")
                + (count.map { " (\($0) settings)" } ?? "")

        case let .setProfileInCar(p):
            let number = response.profileNumber ?? p.profileNumber
            let name = response.profileName ?? p.profileName
            let which = number.map { "Profile \($0)" + (name.map { " \"\($0)\"" } ?? "") } ?? name.map { "Profile \"\($0)\"" } ?? "The default profile"
            return "\(which) applied" + confirmed

        case let .setCarLockStatus(p):
            return (p.locked == false ? "Car unlocked" : "Car locked") + confirmed

        case .getCarLockStatus:
            switch response.locked {
            case true?: return "The car is locked"
            case false?: return "The car is unlocked"
            case nil: return "The lock status is unknown"
            }

        case let .activateCarSignal(p):
            let signals = response.signals ?? p.signals ?? []
            var actions: [String] = []
            if signals.contains(.visible) { actions.append("flashed the lights") }
            if signals.contains(.audible) { actions.append("sounded the horn") }
            return capitalizedFirst(actions.isEmpty ? "signalled" : actions.joined(separator: " and ")) + confirmed

        case .getCarPowerLevelStatus:
            return powerText(response.powerLevel) ?? "The power level is unknown"

        case .listCars:
            let cars = response.cars ?? []
            guard !cars.isEmpty else { return "No car" }
            return cars.map { car in
                let what = [car.year, car.make, car.model].compactMap { $0 }.joined(separator: " ")
                return car.displayName + (what.isEmpty ? "" : " (\(what))") + ", identifier \(car.carIdentifier)"
            }.joined(separator: "\n")
        }
    }

    public static func failure(intent: IntentName, reply: PerformReply) -> String {
        let response = reply.response
        var text: String
        if response.reason == IntentResponse.restrictedWhileLocked {
            text = "\(intent.rawValue) needs an unlocked device" + (response.detail.map { ": \($0)" } ?? "")
        } else if let detail = response.detail {
            text = detail
        } else {
            switch response.reason {
            case "unresolved", IntentResponse.notResolved:
                let resolutions = reply.resolutions
                let problems = ordered(resolutions.keys, intent).compactMap { name -> String? in
                    switch resolutions[name] {
                    case nil, .success?, .notRequired?: nil
                    case let .needsValue(why)?, let .unsupported(why)?, let .confirmationRequired(_, why)?: "\(name): \(why)"
                    case let .disambiguation(options)?: "\(name): one of \(options.map(readableOption).joined(separator: ", "))"
                    }
                }
                text = problems.isEmpty ? "the request did not resolve" : problems.joined(separator: "; ")
            case IntentResponse.carLocked: text = "\(intent.rawValue) is not allowed while the car is locked"
            case IntentResponse.vehicleUnreachable: text = "the vehicle is unreachable (it sends no status frames)"
            case IntentResponse.busOff: text = "the CAN controller is bus-off: nothing can be sent until it restarts"
            case "emptyProfile": text = "profile \(response.profileNumber.map(String.init) ?? "?") is empty"
            case "timeout": text = "the vehicle did not confirm in time"
            case let reason?: text = reason
            case nil: text = response.code == .failure ? "the vehicle did not confirm" : response.code.rawValue
            }
        }
        if let confirmed = response.confirmed, let failed = response.failed {
            text += "; confirmed: \(confirmed.map(\.rawValue).joined(separator: ", ")); not confirmed: \(failed.map(\.rawValue).joined(separator: ", "))"
        }
        return "Failed: \(text)"
    }

    /// Parameter names in SiriKit order, then any others.
    public static func ordered(_ names: some Collection<String>, _ intent: IntentName) -> [String] {
        let known = Intent.parameterNames(of: intent)
        return known.filter(names.contains) + names.filter { !known.contains($0) }.sorted()
    }

    /// "28 °C", "Jazz FM", "heating (level 2)".
    public static func readableOption(_ value: JSONValue) -> String {
        if case var .object(object) = value, let feature = object.removeValue(forKey: "feature")?.stringValue {
            return object.isEmpty ? feature : "\(feature) (\(readable(.object(object))))"
        }
        return readable(value)
    }

    /// The zones a climate intent set, from `climateZone`'s resolution (the ids of the
    /// zones serving the seats asked for; every zone when none was asked): those whose
    /// temperature the state carries, if any does (a climate control zone sets none).
    static func temperatureZones(_ resolved: JSONValue?, state: [String: JSONValue]) -> [String] {
        let ids = resolved?.arrayValue?.compactMap(\.stringValue) ?? []
        let withTemperature = ids.filter { state[PropertyKey.temperature(zone: $0).rawValue] != nil }
        return withTemperature.isEmpty ? ids : withTemperature
    }

    /// Whose temperature a climate sentence is about: nil for the whole car (no zone
    /// asked), else the zones set -- "Left and right zones (serving the rear)" on a car
    /// whose left and right zones each serve a front and a rear seat, "Rear zone" where a
    /// zone of that name serves them.
    static func zoneSubject(asked: String?, zones: [String]) -> String? {
        guard let asked else { return nil }
        guard !zones.isEmpty else { return capitalizedFirst(spoken(asked)) + " zone" }
        let subject = capitalizedFirst(listed(zones.map(spoken))) + (zones.count == 1 ? " zone" : " zones")
        return zones == [asked] || asked == "all" ? subject : subject + " (serving the \(spoken(asked)))"
    }

    /// The temperature as the car took it: the zones' value in the state after (°C), in
    /// the unit asked, and the value asked when it is not that one -- "71.6 °F (22 °C, the
    /// car's nearest to 72 °F)" on a car in 0.5 °C steps. The value asked when the state
    /// does not hold one value for every zone.
    static func taken(_ asked: JSONValue, zones: [String], state: [String: JSONValue]) -> String {
        let held = zones.compactMap { state[PropertyKey.temperature(zone: $0).rawValue]?.doubleValue }
        guard let celsius = held.first, held.count == zones.count, held.allSatisfy({ abs($0 - celsius) < 0.001 }),
            let value = asked.objectValue?["value"]?.doubleValue, let unit = asked.objectValue?["unit"]?.stringValue
        else { return readable(asked) }
        if unit == "fahrenheit" {
            let fahrenheit = ((celsius * 9 / 5 + 32) * 10).rounded() / 10
            let nearest = abs(fahrenheit - value) < 0.05 ? "" : ", the car's nearest to \(readable(asked))"
            return "\(readable(fahrenheit, unit: unit)) (\(readable(celsius, unit: "celsius"))\(nearest))"
        }
        return readable(celsius, unit: "celsius") + (abs(celsius - value) < 0.001 ? "" : " (the car's nearest to \(readable(asked)))")
    }

    /// "left", "left and right", "front left, front right and rear".
    static func listed(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " and " + words.last!
    }

    static func relativeWord(_ relative: RelativeSetting, up: String, down: String) -> String {
        switch relative {
        case .higher: up
        case .lower: down
        case .highest: "to the highest"
        case .lowest: "to the lowest"
        }
    }

    /// The station a name resolved to (the daemon may correct the spelling).
    static func resolvedStation(_ resolution: ResolutionResult?, _ given: String) -> String {
        resolution?.value?.stringValue ?? given
    }

    /// "FM 101.1 MHz", "AM 1010 kHz", "DAB channel 12" from `radio.*` state keys.
    public static func radioText(_ state: [String: JSONValue]) -> String? {
        guard let band = state["radio.band"]?.stringValue else { return nil }
        if band == "DAB" || band == "satellite", let channel = state["radio.channel"], channel != .null {
            return "\(band) channel \(readable(channel))"
        }
        if let frequency = state["radio.frequency"]?.doubleValue {
            return "\(band) \(readableNumber(frequency)) \(band == "AM" ? "kHz" : "MHz")"
        }
        return band
    }

    /// "Fuel 62 %, range 420 km", "Charge 80 %, charging, 45 min to full".
    public static func powerText(_ power: PowerLevel) -> String? {
        var parts: [String] = []
        if let fuel = power.fuelPercentRemaining { parts.append("fuel \(readableNumber(fuel * 100)) %") }
        if let charge = power.chargePercentRemaining { parts.append("charge \(readableNumber(charge * 100)) %") }
        if power.charging == true { parts.append("charging") }
        if let minutes = power.minutesToFull { parts.append("\(minutes) min to full") }
        if let distance = power.distanceRemaining { parts.append("range \(readable(distance))") }
        return parts.isEmpty ? nil : capitalizedFirst(parts.joined(separator: ", "))
    }
}

extension ResolutionResult {
    /// The value the daemon resolved to (success) or would use (confirmationRequired);
    /// nil for the other kinds and for a success without a value.
    var value: JSONValue? {
        switch self {
        case .success(.null): nil
        case let .success(value), let .confirmationRequired(value, _): value
        case .disambiguation, .needsValue, .notRequired, .unsupported: nil
        }
    }
}
