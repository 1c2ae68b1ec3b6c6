import CarplayJSON
import VehicleKit

extension VSSSignal {
    /// The intent that sets this signal to `value`, SiriKit's own way: the same
    /// parameters a SiriKit client would send, so resolution, policies and the car's
    /// confirmation are the intents'. `state` gives what the value depends on (the
    /// radio's band for a frequency; which of heating and cooling to switch off).
    public func intent(setting value: VSSValue, state: VehicleState) throws(VSSActuationError) -> Intent {
        guard entryType == .actuator else {
            throw .notActuatable(keys[0].isStatusOnly ? "a sensor" : "this car's profile only reads it")
        }
        try check(value)
        let (name, parameters) = try intentParameters(value, state: state)
        do {
            return try Intent(named: name.rawValue, parameters: .object(parameters))
        } catch {
            throw .invalidValue(error.description)
        }
    }

    // One case per kind of key: what SiriKit's intent for it takes.
    private func intentParameters(_ value: VSSValue, state: VehicleState) throws(VSSActuationError) -> (IntentName, [String: JSONValue]) {
        let key = keys[0]
        let seatName: JSONValue = seat.map { .string($0.rawValue) } ?? .null
        switch (key.rawValue, value) {
        case let (text, number) where text.hasPrefix("climate.temperature."):
            let degrees = number.doubleValue ?? 0
            return (.setClimateSettingsInCar, ["temperature": .object(["value": .number(degrees), "unit": .string("celsius")]), "climateZone": seatName])
        case let (text, .bool(on)) where text.hasPrefix("climate.climateControl."):
            return (.setClimateSettingsInCar, ["enableClimateControl": .bool(on), "climateZone": seatName])
        case let ("climate.fanSpeed", .integer(percent)):
            return (.setClimateSettingsInCar, percent == 0 ? ["enableFan": .bool(false)] : ["fanSpeedPercentage": .number(Double(percent))])
        case let ("climate.fan", .bool(on)): return (.setClimateSettingsInCar, ["enableFan": .bool(on)])
        case let ("climate.airConditioner", .bool(on)): return (.setClimateSettingsInCar, ["enableAirConditioner": .bool(on)])
        case let ("climate.autoMode", .bool(on)): return (.setClimateSettingsInCar, ["enableAutoMode": .bool(on)])
        case let ("climate.climateControl", .bool(on)): return (.setClimateSettingsInCar, ["enableClimateControl": .bool(on)])
        case let ("climate.airCirculation", .bool(recirculate)):
            let mode: AirCirculationMode = recirculate ? .recirculateAir : .freshAir
            return (.setClimateSettingsInCar, ["airCirculationMode": .string(mode.rawValue)])
        case let (text, .bool(on)) where text.hasPrefix("defroster."):
            return (.setDefrosterSettingsInCar, ["enable": .bool(on), "defroster": .string(String(text.dropFirst("defroster.".count)))])
        case let (text, .integer(percent)) where text.hasSuffix(".heating") || text.hasSuffix(".massage"):
            return (.setSeatSettingsInCar, seatParameters(percent, state: state).merging(["seat": seatName]) { own, _ in own })
        case let ("audio.source", .string(source)):
            guard let name = VSSNames.audioSource.first(where: { $0.value == source })?.key ?? radioSource(source) else {
                throw .invalidValue("\(source) is no source this car has a SiriKit name for")
            }
            return (.setAudioSourceInCar, ["audioSource": .string(name)])
        case let ("radio.band", .string(band)):
            guard let type = VSSNames.radioBand.first(where: { $0.value == band })?.key else { throw .invalidValue("no such band \(band)") }
            return (.setRadioStation, ["radioType": .string(type)])
        case let ("radio.frequency", .integer(hertz)):
            guard case let .enumeration(band)? = state[.radioBand] else {
                throw .invalidValue("the radio's band is not known yet, so neither is the unit of its frequency: set Radio.Band first")
            }
            let frequency = Double(hertz) / (band == RadioType.AM.rawValue ? 1e3 : 1e6)
            return (.setRadioStation, ["radioType": .string(band), "frequency": .number(frequency)])
        case let ("radio.channel", .integer(channel)): return (.setRadioStation, ["channel": .string(String(channel))])
        case let ("profile.active", .integer(slot)):
            guard slot > 0 else { throw .invalidValue("0 means no profile; select a slot 1 or higher") }
            return (.setProfileInCar, ["profileNumber": .integer(slot)])
        case let ("lock.locked", .bool(locked)): return (.setCarLockStatus, ["locked": .bool(locked)])
        case let (text, .bool(on)) where text.hasPrefix("signal."):
            guard on else { throw .invalidValue("a momentary signal: set true to sound or flash once; it stops by itself") }
            return (.activateCarSignal, ["signals": .array([.string(String(text.dropFirst("signal.".count)))])])
        default:
            throw .invalidValue("expected \(datatype.rawValue), found \(value.kindName)")
        }
    }

    /// A seat's heating/cooling or massage percentage as SiriKit's seat parameters: the
    /// level that percentage of the seat's highest gives (at least 1), 0 switching off.
    private func seatParameters(_ percent: Int, state: VehicleState) -> [String: JSONValue] {
        func level(_ levels: Int) -> JSONValue { .integer(Swift.max(1, Int((Double(abs(percent)) * Double(levels) / 100).rounded()))) }
        switch conversion {
        case let .heatingCooling(heating, cooling):
            if percent > 0 { return ["enableHeating": .bool(true), "level": level(heating)] }
            if percent < 0 { return ["enableCooling": .bool(true), "level": level(cooling)] }
            let cooling = (state[keys[1]]?.doubleValue ?? 0) > 0
            return [cooling ? "enableCooling" : "enableHeating": .bool(false)]
        case let .zeroBasedPercent(levels):
            return percent == 0 ? ["enableMassage": .bool(false)] : ["enableMassage": .bool(true), "level": level(levels)]
        default:
            return [:]
        }
    }

    /// Played.Source's radio names select the radio (its band stays as it is).
    private func radioSource(_ source: String) -> String? {
        VSSNames.radioSource.values.contains(source) ? CarAudioSource.sourceRadio.rawValue : nil
    }
}
