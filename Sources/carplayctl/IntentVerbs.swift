import CarIntents
import CarplayJSON
import CarplayText
import VehicleKit

/// One verb per intent: flags a person types -> the intent's JSON parameters ->
/// `IntentRunner` (Resolve, questions, Perform).
enum IntentVerbs {
    static let common = """
          --param NAME=VALUE   any parameter of the intent by SiriKit's name, as listed
                          under "parameters" below (repeatable)
          --car NAME      the car's name, when the daemon drives one of several names
          --yes           accept the value the car would use when it asks for confirmation
                          (e.g. a temperature above its maximum)
        \(DaemonOptions.usage)

          On a terminal, questions of the daemon (which station? use 28 °C?) are asked;
          otherwise the verb fails with exit code 1 and says what it would have asked.
          exit: 0 success (confirmed by the vehicle), 1 failed or not resolved, 2 usage error,
                3 daemon unreachable
        """

    /// Splits options from positional arguments: the common options, then the verb's
    /// own (`handle` returns true when it took one); anything else starting with `-`
    /// is a usage error.
    /// An intent's verb (`acceptsParameters`) also takes `--param NAME=VALUE`.
    static func parse(
        _ arguments: [String], _ options: inout DaemonOptions, acceptsParameters: Bool = false, _ handle: (String, inout ArgumentList) throws -> Bool
    ) throws -> [String] {
        var list = ArgumentList(arguments)
        var positional: [String] = []
        var optionsEnded = false
        while let argument = list.next() {
            if optionsEnded { positional.append(argument); continue }
            if argument == "--" { optionsEnded = true; continue }
            if try options.consume(argument, &list, acceptsParameters: acceptsParameters) { continue }
            if try handle(argument, &list) { continue }
            if isOption(argument) { throw UsageError("unknown option \(argument)") }
            positional.append(argument)
        }
        return positional
    }

    /// The arguments of a verb whose only own option is `--car NAME` (carName).
    static func parseCarOnly(_ arguments: [String], _ options: inout DaemonOptions, _ parameters: inout [String: JSONValue]) throws -> [String] {
        var carName: JSONValue?
        let positional = try parse(arguments, &options, acceptsParameters: true) { argument, list in
            guard argument == "--car" else { return false }
            carName = .string(try list.value(for: argument))
            return true
        }
        if let carName { parameters["carName"] = carName }
        return positional
    }

    static func setOnce(_ parameters: inout [String: JSONValue], _ name: String, _ value: JSONValue, option: String) throws {
        if let existing = parameters[name], existing != value { throw UsageError("\(option) conflicts with another option setting \(name)") }
        parameters[name] = value
    }

    // MARK: - climate

    static let climateUsage = """
        usage: carplayctl climate [--temperature T | --warmer | --cooler] [--zone ZONE]
                                  [--fan N|on|off|lowest|lower|higher|highest | --fan-percent P]
                                  [--ac on|off] [--auto on|off] [--recirculate on|off]
                                  [--climate on|off] [--car NAME] [--yes] [--json] [--socket PATH]

          SetClimateSettingsInCar.
          --temperature T   21.5 or 21.5C (celsius), 72F (fahrenheit)
          --warmer/--cooler one step up or down (relativeTemperatureSetting higher/lower)
          --zone ZONE       driver, passenger, frontLeft, frontRight, front, rear, all, ...
          --fan N           fan speed level N; on/off switches the fan; lowest, lower,
                            higher, highest change it relative to now
          --fan-percent P   fan speed as 0...100 %
          --ac, --auto, --recirculate, --climate   A/C, automatic mode, recirculated air,
                            the whole climate system on or off
        \(common)

        examples:
          carplayctl climate --temperature 22.5 --zone driver
          carplayctl climate --temperature 72F --fan 3 --ac on
          carplayctl climate --warmer --zone passenger
        """

    static func climate(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        var p: [String: JSONValue] = [:]
        let positional = try parse(arguments, &options, acceptsParameters: true) { argument, list in
            switch argument {
            case "--temperature", "--temp", "-t":
                try setOnce(&p, "temperature", try ParameterInput.temperature(try list.value(for: argument)), option: argument)
            case "--warmer": try setOnce(&p, "relativeTemperatureSetting", "higher", option: argument)
            case "--cooler": try setOnce(&p, "relativeTemperatureSetting", "lower", option: argument)
            case "--zone": p["climateZone"] = .string(try ParameterInput.enumeration(try list.value(for: argument), CarSeat.self, what: argument))
            case "--fan":
                let value = try list.value(for: argument)
                if let level = Int(value) {
                    try setOnce(&p, "fanSpeedIndex", .integer(level), option: argument)
                } else if let relative = RelativeSetting.allCases.first(where: { $0.rawValue == value.lowercased() }) {
                    try setOnce(&p, "relativeFanSpeedSetting", .string(relative.rawValue), option: argument)
                } else {
                    try setOnce(&p, "enableFan", .bool(try ParameterInput.onOff(value, what: argument)), option: argument)
                }
            case "--fan-percent":
                try setOnce(
                    &p, "fanSpeedPercentage", .number(try ParameterInput.number(try list.value(for: argument), what: argument, in: 0...100)), option: argument)
            case "--ac": p["enableAirConditioner"] = .bool(try ParameterInput.onOff(try list.value(for: argument), what: argument))
            case "--auto": p["enableAutoMode"] = .bool(try ParameterInput.onOff(try list.value(for: argument), what: argument))
            case "--climate": p["enableClimateControl"] = .bool(try ParameterInput.onOff(try list.value(for: argument), what: argument))
            case "--recirculate":
                p["airCirculationMode"] = try ParameterInput.onOff(try list.value(for: argument), what: argument) ? "recirculateAir" : "freshAir"
            case "--car": p["carName"] = .string(try list.value(for: argument))
            default: return false
            }
            return true
        }
        if let extra = positional.first { throw UsageError("unexpected argument '\(extra)'") }
        if p["temperature"] != nil, p["relativeTemperatureSetting"] != nil { throw UsageError("give either --temperature or --warmer/--cooler") }
        if p["fanSpeedPercentage"] != nil, p["fanSpeedIndex"] != nil || p["relativeFanSpeedSetting"] != nil {
            throw UsageError("give either --fan or --fan-percent")
        }
        guard !options.parameters.isEmpty || p.keys.contains(where: { $0 != "carName" && $0 != "climateZone" }) else {
            throw UsageError("nothing to set: give a temperature, a fan speed or a setting to switch")
        }
        return try IntentRunner.run(.setClimateSettingsInCar, p, options)
    }

    // MARK: - defrost

    static let defrostUsage = """
        usage: carplayctl defrost [front|rear|all] on|off [--car NAME] [--json] [--socket PATH]

          SetDefrosterSettingsInCar. Without front/rear/all the daemon picks the car's only
          defroster, or asks.
        \(common)

        examples:
          carplayctl defrost rear on
          carplayctl defrost all off
        """

    static func defrost(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        var p: [String: JSONValue] = [:]
        let positional = try parseCarOnly(arguments, &options, &p)
        for word in positional {
            if let defroster = CarDefroster(rawValue: word.lowercased()) {
                try setOnce(&p, "defroster", .string(defroster.rawValue), option: word)
            } else if let flag = try? ParameterInput.onOff(word, what: word) {
                try setOnce(&p, "enable", .bool(flag), option: word)
            } else {
                throw UsageError("'\(word)' is not front, rear, all, on or off")
            }
        }
        guard p["enable"] != nil || !options.parameters.isEmpty else { throw UsageError("say on or off") }
        return try IntentRunner.run(.setDefrosterSettingsInCar, p, options)
    }

    // MARK: - seat

    static let seatUsage = """
        usage: carplayctl seat SEAT [--heating N|on|off] [--cooling N|on|off] [--massage N|on|off]
                                    [--level N] [--relative lowest|lower|higher|highest]
                                    [--car NAME] [--yes] [--json] [--socket PATH]

          SetSeatSettingsInCar. SEAT: driver, passenger, frontLeft, frontRight, front,
          rearLeft, rearRight, rear, thirdRow..., all (left out: the daemon asks).
          --heating N       heating on at level N (enableHeating, level); on/off switch it
          --cooling, --massage   the same for cooling and massage
          --level N         the level of the feature switched on (or the only one the seat has)
          --relative R      change the level relative to now
        \(common)

        examples:
          carplayctl seat driver --heating 2
          carplayctl seat passenger --massage off
          carplayctl seat driver --heating on --relative higher
        """

    static func seat(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        var p: [String: JSONValue] = [:]
        let positional = try parse(arguments, &options, acceptsParameters: true) { argument, list in
            switch argument {
            case "--heating", "--cooling", "--massage":
                let name = "enable" + capitalizedFirst(String(argument.dropFirst(2)))
                let value = try list.value(for: argument)
                if let level = Int(value), level > 0 {
                    try setOnce(&p, name, true, option: argument)
                    try setOnce(&p, "level", .integer(level), option: argument)
                } else {
                    try setOnce(&p, name, .bool(value == "0" ? false : try ParameterInput.onOff(value, what: argument)), option: argument)
                }
            case "--level": try setOnce(&p, "level", .integer(try ParameterInput.integer(try list.value(for: argument), what: argument)), option: argument)
            case "--relative":
                p["relativeLevelSetting"] = .string(try ParameterInput.enumeration(try list.value(for: argument), RelativeSetting.self, what: argument))
            case "--car": p["carName"] = .string(try list.value(for: argument))
            default: return false
            }
            return true
        }
        guard positional.count <= 1 else { throw UsageError("give one seat") }
        if let seat = positional.first { p["seat"] = .string(try ParameterInput.enumeration(seat, CarSeat.self, what: "SEAT")) }
        guard !options.parameters.isEmpty || p.keys.contains(where: { $0 != "carName" && $0 != "seat" }) else {
            throw UsageError("nothing to set: give --heating, --cooling, --massage, --level or --relative")
        }
        return try IntentRunner.run(.setSeatSettingsInCar, p, options)
    }

    // MARK: - radio

    static let radioUsage = """
        usage: carplayctl radio [BAND [FREQUENCY|CHANNEL]] [--station NAME] [--preset N]
                                [--yes] [--json] [--socket PATH]

          SetRadioStation. BAND: fm, am, hd (a frequency: MHz, AM in kHz), dab, satellite
          (a channel).
          --station NAME   tune to a station by name (the daemon asks when several match)
          --preset N       tune to preset N
        \(common)

        examples:
          carplayctl radio fm 101.1
          carplayctl radio am 1010
          carplayctl radio dab 12
          carplayctl radio --station "Jazz FM"
          carplayctl radio --preset 3
        """

    static func radio(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        var p: [String: JSONValue] = [:]
        let positional = try parse(arguments, &options, acceptsParameters: true) { argument, list in
            switch argument {
            case "--station": p["stationName"] = .string(try list.value(for: argument))
            case "--preset": p["presetNumber"] = .integer(try ParameterInput.integer(try list.value(for: argument), what: argument))
            case "--frequency": p["frequency"] = .number(try ParameterInput.number(try list.value(for: argument), what: argument))
            case "--channel": p["channel"] = .string(try list.value(for: argument))
            default: return false
            }
            return true
        }
        guard positional.count <= 2 else { throw UsageError("give a band and a frequency or channel") }
        if let band = positional.first {
            let type = try ParameterInput.radioType(band, what: "BAND")
            p["radioType"] = .string(type)
            if positional.count == 2 {
                if type == RadioType.DAB.rawValue || type == RadioType.satellite.rawValue {
                    p["channel"] = .string(positional[1])
                } else {
                    p["frequency"] = .number(try ParameterInput.number(positional[1], what: "FREQUENCY"))
                }
            }
        }
        guard !p.isEmpty || !options.parameters.isEmpty else { throw UsageError("give a band, --station or --preset") }
        return try IntentRunner.run(.setRadioStation, p, options)
    }

    // MARK: - audio

    static let audioUsage = """
        usage: carplayctl audio SOURCE|next|previous [--json] [--socket PATH]

          SetAudioSourceInCar. SOURCE: \(CarAudioSource.names.joined(separator: ", "))
          (SiriKit's names) or the short names \(CarAudioSource.allCases.flatMap(\.aliases).joined(separator: ", ")),
          in any letter case; next / previous step through the car's sources.
        \(DaemonOptions.usage)

        examples:
          carplayctl audio bluetooth
          carplayctl audio next
        """

    static func audio(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        let positional = try parse(arguments, &options, acceptsParameters: true) { _, _ in false }
        var p: [String: JSONValue] = [:]
        if positional.isEmpty, !options.parameters.isEmpty { return try IntentRunner.run(.setAudioSourceInCar, p, options) }
        guard positional.count == 1 else { throw UsageError("give one audio source, next or previous") }
        let word = positional[0]
        if let reference = RelativeReference(rawValue: word.lowercased()) {
            p["relativeAudioSourceReference"] = .string(reference.rawValue)
        } else {
            p["audioSource"] = .string(try ParameterInput.enumeration(word, CarAudioSource.self, what: "SOURCE"))
        }
        return try IntentRunner.run(.setAudioSourceInCar, p, options)
    }

    // MARK: - lock, unlock

    static let lockUsage = """
        usage: carplayctl lock [--status] [--car NAME] [--json] [--socket PATH]
               carplayctl unlock [--car NAME] [--json] [--socket PATH]

          lock / unlock: SetCarLockStatus (locked true / false).
          lock --status: GetCarLockStatus, prints "The car is locked" or "... unlocked".
        \(common)
        """

    static func lock(_ arguments: [String]) throws -> Int32 { try lock(arguments, locked: true) }
    static func unlock(_ arguments: [String]) throws -> Int32 { try lock(arguments, locked: false) }

    static func lock(_ arguments: [String], locked: Bool) throws -> Int32 {
        var options = DaemonOptions()
        var p: [String: JSONValue] = [:]
        var status = false
        let positional = try parse(arguments, &options, acceptsParameters: true) { argument, list in
            switch argument {
            case "--status" where locked: status = true
            case "--car": p["carName"] = .string(try list.value(for: argument))
            default: return false
            }
            return true
        }
        if let extra = positional.first { throw UsageError("unexpected argument '\(extra)'") }
        if status { return try IntentRunner.run(.getCarLockStatus, p, options) }
        p["locked"] = .bool(locked)
        return try IntentRunner.run(.setCarLockStatus, p, options)
    }

    // MARK: - signal

    static let signalUsage = """
        usage: carplayctl signal [--lights] [--horn] [--car NAME] [--json] [--socket PATH]

          ActivateCarSignal: flash the lights (visible), sound the horn (audible), or both
          (neither flag: both).
        \(common)

        example:
          carplayctl signal --lights
        """

    static func signal(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        var p: [String: JSONValue] = [:]
        var chosen = Set<CarSignal>()
        let positional = try parse(arguments, &options, acceptsParameters: true) { argument, list in
            switch argument {
            case "--lights": chosen.insert(.visible)
            case "--horn": chosen.insert(.audible)
            case "--car": p["carName"] = .string(try list.value(for: argument))
            default: return false
            }
            return true
        }
        if let extra = positional.first { throw UsageError("unexpected argument '\(extra)'") }
        if chosen.isEmpty { chosen = Set(CarSignal.allCases) }
        p["signals"] = .array(CarSignal.allCases.filter(chosen.contains).map { .string($0.rawValue) })
        return try IntentRunner.run(.activateCarSignal, p, options)
    }

    // MARK: - power

    static let powerUsage = """
        usage: carplayctl power [--car NAME] [--json] [--socket PATH]

          GetCarPowerLevelStatus: fuel and/or charge level, charging, time to full, range.
        \(common)
        """

    static func power(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        var p: [String: JSONValue] = [:]
        let positional = try parseCarOnly(arguments, &options, &p)
        if let extra = positional.first { throw UsageError("unexpected argument '\(extra)'") }
        return try IntentRunner.run(.getCarPowerLevelStatus, p, options)
    }

    // MARK: - cars

    static let carsUsage = """
        usage: carplayctl cars [--json] [--socket PATH]

          ListCars: the car the daemon drives (INCar: identifier, name, make, model, year,
          colour, head unit, charging connectors).
        \(common)
        """

    static func cars(_ arguments: [String]) throws -> Int32 {
        var options = DaemonOptions()
        let positional = try parse(arguments, &options, acceptsParameters: true) { _, _ in false }
        if let extra = positional.first { throw UsageError("unexpected argument '\(extra)'") }
        return try IntentRunner.run(.listCars, [:], options)
    }
}
