import CANKit
import CarplayJSON

/// Which properties a signal may report, by what its name says (`read`), its unit, size
/// and value table.
extension ProfileDraft {
    struct Match {
        var key: PropertyKey
        var confidence: Double
        var reason: String
        /// How the status reads the signal: `values`, `otherwise`, `linear`.
        var status: [String: JSONValue] = [:]
        /// A fan level's or a seat feature's highest level.
        var levels: Int?
    }

    enum UnitKind { case celsius, fahrenheit, percent, kilometres, miles, litres, other, none }

    /// What a DBC unit says (`"Unit_PerCent"` is VW's %, `"cel"` Mazda's °C).
    static func unitKind(_ unit: String?) -> UnitKind {
        let unit = fold(unit ?? "").map { $0 == "°" ? "deg" : $0 == " " ? "" : String($0) }.joined()
        if unit.isEmpty { return .none }
        if unit.hasPrefix("%") || ["percent", "pct", "unit_percent", "prozent", "pourcent"].contains(unit) { return .percent }
        if ["c", "degc", "deg", "degree", "degrees", "degreesc", "degreec", "cel", "celsius", "unit_degrecelsi", "gradc"].contains(unit) { return .celsius }
        if ["f", "degf", "degreesf", "degreef", "fahrenheit"].contains(unit) { return .fahrenheit }
        if ["km", "kilometer", "kilometers", "kilometre", "kilometres", "unit_kilometer"].contains(unit) { return .kilometres }
        if ["mi", "mile", "miles"].contains(unit) { return .miles }
        if ["l", "liter", "liters", "litre", "litres", "unit_liter", "gal"].contains(unit) { return .litres }
        return .other
    }

    /// The choices of a signal that say on and off (for a lock: locked and unlocked), `nil`
    /// unless both are there. Others (SNA, FAULT, INIT) read as no value.
    static func onOff(_ signal: DBCSignal, lock: Bool = false) -> (on: [String], off: [String])? {
        var on: [String] = []
        var off: [String] = []
        for choice in signal.choices {
            let name = read(choice.name, language: .any)
            let yes = lock ? name.has(.lock) && !name.has(.unlock) : name.has(.on) && !name.has(.off)
            let no = lock ? name.has(.unlock) : name.has(.off)
            if name.hasAny(.qualifier) { continue }
            if yes, !name.has(.negation) { on.append(choice.name) } else if no || (yes && name.has(.negation)) { off.append(choice.name) }
        }
        return on.isEmpty || off.isEmpty ? nil : (on, off)
    }

    /// A bool status's `values`: the choices that say on and off, else 1 and 0 (the
    /// other way round for an inverted name: `DOORS_UNLOCKED`, `AutoDefogSysOff`). A bit
    /// with one choice (VW's `1 "Fahrzeug_aussen_verriegelt_Istzustand"`) names the state
    /// its signal's name says, unless the choice says off; the other raw value is the opposite.
    static func boolValues(_ signal: DBCSignal, inverted: Bool, lock: Bool = false) -> [String: JSONValue] {
        func list(_ names: [String]) -> JSONValue { names.count == 1 ? .string(names[0]) : .array(names.map { .string($0) }) }
        if let (on, off) = onOff(signal, lock: lock) {
            return ["values": .object(inverted ? ["true": list(off), "false": list(on)] : ["true": list(on), "false": list(off)])]
        }
        if signal.length == 1, signal.choices.count == 1, let only = signal.choices.first, only.value == 0 || only.value == 1 {
            let name = read(only.name, language: .any)
            let saysOff = lock ? name.hasAny(.unlock, .negation) : name.hasAny(.off, .negation)
            let other: JSONValue = .integer(only.value == 0 ? 1 : 0)
            let yes = !saysOff != inverted
            return ["values": .object(yes ? ["true": .string(only.name), "false": other] : ["true": other, "false": .string(only.name)])]
        }
        if inverted { return ["values": .object(["true": .integer(0), "false": .integer(1)])] }
        return signal.length > 1 ? ["values": .object(["false": .integer(0), "true": .integer(1)])] : [:]
    }

    /// The highest value of a signal: its DBC maximum, or without one (`[0|0]`) the highest
    /// its bits carry.
    static func highest(_ signal: DBCSignal) -> Int {
        let maximum = signal.maximum.map { Int($0.doubleValue) } ?? 0
        return maximum > 0 ? maximum : (1 << min(signal.length, 16)) - 1
    }

    /// The properties a signal may report, with a confidence and the reason.
    static func matches(_ name: Reading, _ signal: DBCSignal, context: Reading = Reading(words: [], senses: [], foreign: [])) -> [Match] {
        // Never a value: a qualifier, another system's, a setting, a warning, a raw count, a load shed.
        if name.hasAny(.qualifier, .other, .setting, .warning, .raw, .loadShed) { return [] }
        let unit = unitKind(signal.unit)
        let switched = onOff(signal) != nil
        // A bool: a bit or two, or a state whose choices say on and off.
        let small = signal.length <= 2 || switched
        let lamp = name.has(.lamp)
        let why = name.text
        var found: [Match] = []

        // Temperatures: outside, cabin, a zone's set point; the display unit.
        let temperature = name.has(.temperature) || (name.has(.setPoint) && name.has(.climate))
        if temperature, !lamp, !name.hasAny(.heating, .cooling, .window, .part, .fuel, .recirculation, .seat) {
            let confidence = unit == .celsius ? 0.8 : 0.6
            if name.has(.unit) {
                let units = signal.choices.map { (unitKind($0.name), $0.name) }
                if let celsius = units.first(where: { $0.0 == .celsius }), let fahrenheit = units.first(where: { $0.0 == .fahrenheit }) {
                    found.append(
                        Match(
                            key: .temperatureUnit, confidence: 0.6, reason: "display unit: \(why)",
                            status: ["values": .object(["celsius": .string(celsius.1), "fahrenheit": .string(fahrenheit.1)])]))
                } else if signal.choices.isEmpty, small {
                    found.append(
                        Match(
                            key: .temperatureUnit, confidence: 0.4, reason: "display unit: \(why) (0 = °C, 1 = °F assumed)",
                            status: ["values": .object(["celsius": .integer(0), "fahrenheit": .integer(1)])]))
                }
            } else if name.has(.outside) {
                found.append(Match(key: .outsideTemperature, confidence: confidence, reason: "outside temperature: \(why)"))
            } else if name.has(.inside) {
                found.append(Match(key: .cabinTemperature, confidence: confidence, reason: "cabin temperature: \(why)"))
            } else if name.hasAny(.setPoint, .climate, .request), unit != .fahrenheit {
                let side = name.hasAny(.left, .driver) ? "left" : name.hasAny(.right, .passenger) ? "right" : nil
                let zone = name.has(.rear) ? side.map { "rear" + $0.prefix(1).uppercased() + $0.dropFirst() } ?? "rear" : side ?? "front"
                found.append(Match(key: .temperature(zone: zone), confidence: confidence, reason: "a set temperature (\(why)); zone from its words"))
            }
        }
        // Climate switches. A compressor, a relay or a load is a part, not the A/C's state.
        if name.has(.airConditioner), small, !lamp, !name.hasAny(.part, .relay, .seat) {
            let status = boolValues(signal, inverted: name.has(.off))
            found.append(Match(key: .airConditioner, confidence: signal.length == 1 ? 0.8 : 0.6, reason: "A/C: \(why)", status: status))
        }
        // The fan; a rear blower, an automatic fan mode and a seat's fan are other things.
        if name.has(.fan), !lamp, !name.hasAny(.rear, .automatic, .seat, .part) {
            if signal.length == 1 {
                found.append(
                    Match(
                        key: .fan, confidence: 0.6, reason: "fan on/off: \(why)", status: ["values": .object(["false": .integer(0)]), "otherwise": .bool(true)])
                )
            } else if name.hasAny(.level, .status) || signal.length <= 5 {
                // As many levels as the signal counts, at most 8; a % fan in 8 steps.
                let levels = unit == .percent ? 8 : max(1, min(8, highest(signal)))
                let status: [String: JSONValue] = unit == .percent ? ["linear": .object(["factor": .number(0.08)])] : [:]
                found.append(Match(key: .fanSpeed, confidence: 0.6, reason: "fan level: \(why)", status: status, levels: levels))
            }
        }
        // Automatic climate: beside a climate word (auto high beams, auto hold, auto volume are others').
        let climateContext = name.hasAny(.climate, .airConditioner, .mode) || context.has(.climate)
        if name.has(.automatic), small, !lamp, climateContext, !name.hasAny(.defrost, .fan, .seat), !context.has(.seat) {
            found.append(Match(key: .autoMode, confidence: 0.5, reason: "automatic climate: \(why)", status: boolValues(signal, inverted: name.has(.off))))
        }
        if name.has(.recirculation), signal.length <= 3, !lamp, !name.has(.part) {
            found.append(Match(key: .airCirculation, confidence: 0.4, reason: "air intake: \(why)", status: intakeValues(signal)))
        }
        // The climate's own on/off, from its "off" display (CF_Datc_RearOffDisp): the
        // whole car's, or the rear's as a zone of its own.
        let feature = name.hasAny(.airConditioner, .fan, .defrost, .automatic, .recirculation, .temperature, .seat, .heating, .cooling)
        if name.has(.climate), name.has(.off), small, !lamp, !feature {
            let key = name.has(.rear) ? PropertyKey.climateControl(zone: "rear") : .climateControl
            found.append(Match(key: key, confidence: 0.5, reason: "climate on/off, from its off display: \(why)", status: boolValues(signal, inverted: true)))
        }
        // Defrosters: a defrost word, or a heated window. A camera's defog, a load shed and
        // a lamp were excluded above; automatic defogging is an extension of its own.
        let defrost = name.has(.defrost) || (name.has(.heating) && name.hasAny(.window, .windscreen, .rearWindow))
        if defrost, small, !lamp, !name.hasAny(.seat, .part) {
            if name.has(.automatic) {
                found.append(
                    Match(key: .autoDefog, confidence: 0.5, reason: "automatic defogging: \(why)", status: boolValues(signal, inverted: name.has(.off))))
            } else {
                // Electric heat (a relay, a heated grid) without a place is the rear window's:
                // a windscreen is cleared by air, unless it is named.
                let rear = name.has(.rearWindow) || (name.hasAny(.rear, .window, .relay, .heating) && !name.hasAny(.windscreen, .front))
                found.append(
                    Match(
                        key: .defroster(rear ? .rear : .front), confidence: 0.6, reason: "\(rear ? "rear" : "front") defroster: \(why)",
                        status: boolValues(signal, inverted: name.has(.off))))
            }
        }
        // Locks: the doors', not a differential's, a steering column's, a window lockout or
        // the lock's chirp (excluded above); "unlocked" reads the other way round; an armed
        // alarm (vw-mqb's STS_Car_under_theft) is the car locked from outside, if nothing better.
        // A climate panel's lock is a lockout, a flash pattern's (VW's Blinkmodi_01.BM_ZV_zu)
        // a flash; a lock's set point (VW's `_soll`) is asked for.
        let lockChoices = onOff(signal, lock: true) != nil
        if name.hasAny(.lock, .unlock, .theft), signal.length <= 3 || lockChoices, !lamp,
            !name.hasAny(.open, .part, .seat, .fuel, .window, .climate, .setPoint),
            !context.hasAny(.climate, .seat, .lamp)
        {
            let inverted = (name.has(.unlock) && !name.has(.lock)) || name.has(.negation)
            let confidence = name.has(.theft) ? 0.3 : name.hasAny(.door, .status) ? 0.6 : 0.4
            found.append(
                Match(
                    key: .locked, confidence: confidence, reason: "locks: \(why) (which raw value means locked needs checking)",
                    status: boolValues(signal, inverted: inverted, lock: true)))
        }
        // Fuel in %: by its unit, or a range of 0...100; a raw count is no percentage.
        let percentRange = (99...110).contains(signal.maximum?.doubleValue ?? 0) && [.none, .other].contains(unit)
        if name.has(.fuel), name.hasAny(.level, .percent), unit == .percent || percentRange, !name.hasAny(.part, .sensor, .seat), !context.has(.seat) {
            found.append(Match(key: .fuelPercent, confidence: unit == .percent ? 0.8 : 0.5, reason: "fuel level in %: \(why)"))
        }
        if name.has(.range), !name.hasAny(.outside, .part), ![.percent, .litres, .celsius].contains(unit) {
            found.append(Match(key: .distanceRemaining, confidence: [.kilometres, .miles].contains(unit) ? 0.8 : 0.6, reason: "range: \(why)"))
        }
        // Horn and flashers: what the car reports of them (an alarm's, a panic's).
        if name.has(.horn), small, !lamp, !name.has(.part) {
            found.append(Match(key: .signal(.audible), confidence: 0.6, reason: "horn sounding: \(why)", status: boolValues(signal, inverted: false)))
        }
        if name.has(.hazard) || (name.has(.alarm) && name.has(.flasher)), small, !name.has(.part) {
            found.append(Match(key: .signal(.visible), confidence: 0.5, reason: "lights flashing: \(why)", status: boolValues(signal, inverted: false)))
        }
        // Seat heating and cooling, for a seat the name places.
        if name.has(.seat), !name.hasAny(.window, .part), let seat = seat(name) {
            let choiceSenses = signal.choices.reduce(into: Set<Sense>()) { $0.formUnion(read($1.name, language: .any).senses) }
            for (feature, sense) in [(SeatFeature.heating, Sense.heating), (.cooling, .cooling)]
            where name.has(sense) || (sense == .cooling && name.has(.fan)) || (!name.hasAny(.heating, .cooling, .fan) && choiceSenses.contains(sense)) {
                let (status, levels) = seatLevels(signal, feature: sense)
                found.append(
                    Match(
                        key: .seat(seat, feature), confidence: 0.6, reason: "seat \(feature.rawValue), \(levels) levels: \(why)", status: status, levels: levels
                    ))
            }
        }
        return found
    }

    /// The physical seat a name places: the driver's or the left front, the passenger's or
    /// the right front, and the same behind (driver on the left).
    static func seat(_ name: Reading) -> CarSeat? {
        let left = name.hasAny(.left, .driver)
        let right = name.hasAny(.right, .passenger)
        guard left != right else { return nil }
        if name.has(.rear) { return left ? .rearLeft : .rearRight }
        return left ? .frontLeft : .frontRight
    }

    /// A seat feature's levels: choices with a number (`Level2`, `Heat3`, `Stufe 1`) and an
    /// off, else the signal's range (3 levels where the DBC gives none).
    static func seatLevels(_ signal: DBCSignal, feature: Sense) -> ([String: JSONValue], Int) {
        var values: [String: JSONValue] = [:]
        for choice in signal.choices {
            let name = read(choice.name, language: .any)
            if name.hasAny(.off) {
                values["0"] = .string(choice.name)
            } else if let digit = choice.name.last(where: \.isNumber)?.wholeNumberValue, digit > 0,
                !name.hasAny(.heating, .cooling) || name.has(feature)
            {
                values[String(digit)] = .string(choice.name)
            }
        }
        let levels = values.keys.compactMap { Int($0) }.max() ?? 0
        if levels > 0, values["0"] != nil { return (["values": .object(values)], levels) }
        let maximum = signal.maximum.map { Int($0.doubleValue) } ?? 0
        return ([:], signal.length == 1 ? 1 : maximum > 0 ? min(maximum, 7) : min(3, highest(signal)))
    }

    /// An air intake's values: its choices that say fresh and recirculated, else 0 and 1.
    static func intakeValues(_ signal: DBCSignal) -> [String: JSONValue] {
        let names = signal.choices.map { (read($0.name, language: .any), $0.name) }
        if let fresh = names.first(where: { $0.0.hasAny(.fresh, .outside) }), let inside = names.first(where: { $0.0.hasAny(.recirculation, .inside) }) {
            return ["values": .object(["freshAir": .string(fresh.1), "recirculateAir": .string(inside.1)])]
        }
        return ["values": .object(["freshAir": .integer(0), "recirculateAir": .integer(1)])]
    }
}
