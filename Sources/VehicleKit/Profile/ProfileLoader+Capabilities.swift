import CANKit
import CarplayJSON

extension ProfileReader {
    func parseRange(_ node: JSONNode) throws(ProfileError) -> SteppedRange {
        try parseRange(node.object(known: ["min", "max", "step"]))
    }

    func parseRange(_ object: JSONObject, integral: Bool = false) throws(ProfileError) -> SteppedRange {
        let minNode = try object.required("min")
        let maxNode = try object.required("max")
        let stepNode = try object.required("step")
        let range = SteppedRange(
            min: integral ? Double(try minNode.integer()) : try minNode.number(),
            max: integral ? Double(try maxNode.integer()) : try maxNode.number(),
            step: integral ? Double(try stepNode.integer()) : try stepNode.number())
        try checkGrid(range, object: object)
        return range
    }

    func checkGrid(_ range: SteppedRange, object: JSONObject) throws(ProfileError) {
        guard range.step > 0 else { throw fail(object.path("step"), "must be greater than 0") }
        guard range.min < range.max else { throw fail(object.path("max"), "max \(range.max.plainText()) must be greater than min \(range.min.plainText())") }
        let steps = (range.max - range.min) / range.step
        guard abs(steps - steps.rounded()) < 1e-6 else {
            throw fail(
                object.path("max"), "max \(range.max.plainText()) is not min \(range.min.plainText()) plus a whole number of steps of \(range.step.plainText())"
            )
        }
    }

    /// `climate`: every capability stands alone (SetClimateSettingsInCar sets any of them
    /// without the others): zones and their temperature ranges, fan levels and the
    /// switches are each optional.
    func parseClimate(_ node: JSONNode) throws(ProfileError) -> ClimateCapabilities {
        let object = try node.object(known: [
            "zones", "temperature", "fanSpeedLevels", "airConditioner", "autoMode", "recirculation", "climateControl", "climateControlZones",
        ])
        let zones = try parseZones(object.optional("zones"), key: "climate.temperature")
        let climateControlZones = try parseZones(object.optional("climateControlZones"), key: "climate.climateControl")
        let levels = try object.optional("fanSpeedLevels")?.integer() ?? 0
        guard levels >= 0 else { throw fail(object.path("fanSpeedLevels"), "must not be negative") }
        var climate = ClimateCapabilities(
            zones: zones, celsius: nil, fahrenheit: nil, fanSpeedLevels: levels,
            airConditioner: try object.optional("airConditioner")?.bool() ?? false,
            autoMode: try object.optional("autoMode")?.bool() ?? false,
            recirculation: try object.optional("recirculation")?.bool() ?? false,
            climateControl: try object.optional("climateControl")?.bool() ?? false,
            climateControlZones: climateControlZones)
        // Temperatures are set per zone: the ranges come with the zones, and only with them.
        guard !zones.isEmpty else {
            if object.has("temperature") {
                throw fail(object.path("temperature"), "a car without climate zones sets no temperature: give zones, or leave temperature out")
            }
            return climate
        }
        let temperatureNode = try object.required("temperature")
        let temperature = try temperatureNode.object(known: ["celsius", "fahrenheit"])
        let celsius = try parseRange(temperature.required("celsius"))
        let fahrenheitNode = try temperature.required("fahrenheit")
        let fahrenheit = try parseRange(fahrenheitNode)
        let low = (fahrenheit.min - 32) * 5 / 9
        let high = (fahrenheit.max - 32) * 5 / 9
        let slack = celsius.step / 2 + 1e-9
        guard low >= celsius.min - slack, high <= celsius.max + slack else {
            throw fahrenheitNode.error(
                "\(fahrenheit.min.plainText()) °F to \(fahrenheit.max.plainText()) °F is \(low.plainText(decimals: 1)) °C to \(high.plainText(decimals: 1)) °C, outside the Celsius range \(celsius.min.plainText()) °C to \(celsius.max.plainText()) °C"
            )
        }
        climate.celsius = celsius
        climate.fahrenheit = fahrenheit
        return climate
    }

    /// `zones` or `climateControlZones`: ids unique (they become part of `<key>.<id>`),
    /// physical seats, each seat in at most one zone of the list.
    func parseZones(_ node: JSONNode?, key: String) throws(ProfileError) -> [ClimateZone] {
        guard let node else { return [] }
        var zones: [ClimateZone] = []
        var zoneOfSeat: [CarSeat: String] = [:]
        for zoneNode in try node.array() {
            let zoneObject = try zoneNode.object(known: ["id", "seats"])
            let idNode = try zoneObject.required("id")
            let id = try idNode.nonEmptyString()
            guard id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                throw idNode.error("zone id \"\(id)\" may only contain letters, digits, '_' and '-' (it becomes part of \(key).\(id))")
            }
            if zones.contains(where: { $0.id == id }) { throw idNode.error("duplicate zone id \"\(id)\"") }
            let seatsNode = try zoneObject.required("seats")
            var seats: [CarSeat] = []
            for seatNode in try seatsNode.array() {
                let seat = try seatNode.siriKitCase(CarSeat.self, what: "seat")
                guard seat.isPhysical else {
                    throw seatNode.error("\"\(seat.rawValue)\" is not a physical seat; zones list \(CarSeat.physical.map(\.rawValue).joined(separator: ", "))")
                }
                if let other = zoneOfSeat[seat] {
                    throw seatNode.error("seat \"\(seat.rawValue)\" mapped twice: it is already in zone \"\(other)\"")
                }
                zoneOfSeat[seat] = id
                seats.append(seat)
            }
            guard !seats.isEmpty else { throw seatsNode.error("a zone serves at least one seat") }
            zones.append(ClimateZone(id: id, seats: seats))
        }
        return zones
    }

    func parseDefrosters(_ node: JSONNode?) throws(ProfileError) -> [CarDefroster] {
        let list = try uniqueList(node, CarDefroster.self, what: "defroster")
        if list.contains(.all), let items = try node?.array(), let index = list.firstIndex(of: .all) {
            throw items[index].error("\"all\" is not a defroster; list \"front\" and \"rear\"")
        }
        return list
    }

    func uniqueList<E: SiriKitEnumeration>(_ node: JSONNode?, _ type: E.Type, what: String) throws(ProfileError) -> [E] {
        guard let node else { return [] }
        var list: [E] = []
        for item in try node.array() {
            let value = try item.siriKitCase(type, what: what)
            if list.contains(value) { throw item.error("\(what) \"\(value.rawValue)\" listed twice") }
            list.append(value)
        }
        return list
    }

    func parseSeats(_ node: JSONNode?) throws(ProfileError) -> [SeatCapabilities] {
        guard let node else { return [] }
        var seats: [SeatCapabilities] = []
        for item in try node.array() {
            let object = try item.object(known: ["seat", "heating", "cooling", "massage"])
            let seatNode = try object.required("seat")
            let seat = try seatNode.siriKitCase(CarSeat.self, what: "seat")
            guard seat.isPhysical else {
                throw seatNode.error("\"\(seat.rawValue)\" is not a physical seat; seats list \(CarSeat.physical.map(\.rawValue).joined(separator: ", "))")
            }
            if seats.contains(where: { $0.seat == seat }) { throw seatNode.error("seat \"\(seat.rawValue)\" listed twice") }
            var capabilities = SeatCapabilities(seat: seat)
            for feature in SeatFeature.allCases {
                guard let levelNode = object.optional(feature.rawValue) else { continue }
                let level = try levelNode.integer()
                guard level >= 0 else { throw levelNode.error("must not be negative (0 = not fitted)") }
                switch feature {
                case .heating: capabilities.heating = level
                case .cooling: capabilities.cooling = level
                case .massage: capabilities.massage = level
                }
            }
            seats.append(capabilities)
        }
        return seats
    }

    func parseRadio(_ node: JSONNode) throws(ProfileError) -> RadioCapabilities {
        let object = try node.object(known: ["bands", "presets", "stations", "satelliteSubscribed"])
        let bandsNode = try object.required("bands")
        var bands: [RadioBand] = []
        for item in try bandsNode.array() {
            let band = try item.object(known: ["type", "min", "max", "step", "unit"])
            let typeNode = try band.required("type")
            let type = try typeNode.siriKitCase(RadioType.self, what: "radio band")
            if bands.contains(where: { $0.type == type }) { throw typeNode.error("band \"\(type.rawValue)\" listed twice") }
            let unitNode = try band.required("unit")
            let unit = try unitNode.string()
            let expected =
                switch type {
                case .AM: "kHz"
                case .FM, .HD: "MHz"
                case .satellite, .DAB: "channel"
                }
            guard unit == expected else { throw unitNode.error("the \(type.rawValue) band's unit is \"\(expected)\", not \"\(unit)\"") }
            let range = try parseRange(band, integral: type == .satellite || type == .DAB)
            bands.append(RadioBand(type: type, range: range, unit: unit))
        }
        guard !bands.isEmpty else { throw bandsNode.error("a radio has at least one band") }

        var presets: [RadioPreset] = []
        if let presetsNode = object.optional("presets") {
            for item in try presetsNode.array() {
                let preset = try item.object(known: ["number", "name", "type", "frequency", "channel"])
                let numberNode = try preset.required("number")
                let number = try numberNode.integer()
                guard number >= 1 else { throw numberNode.error("preset numbers start at 1") }
                if presets.contains(where: { $0.number == number }) { throw numberNode.error("preset \(number) listed twice") }
                let name = try preset.optional("name")?.nonEmptyString() ?? "Preset \(number)"
                let station = try parseTuning(preset, name: name, bands: bands)
                presets.append(RadioPreset(number: number, station: station))
            }
        }
        var stations: [RadioStation] = []
        if let stationsNode = object.optional("stations") {
            for item in try stationsNode.array() {
                let entry = try item.object(known: ["name", "type", "frequency", "channel"])
                let nameNode = try entry.required("name")
                let name = try nameNode.nonEmptyString()
                let words = RadioCapabilities.words(of: name)
                guard !words.isEmpty else { throw nameNode.error("a station name needs at least one letter or digit") }
                if let other = stations.first(where: { RadioCapabilities.words(of: $0.name) == words }) {
                    throw nameNode.error("station \"\(name)\" has the same name as \"\(other.name)\" (names are compared case-insensitively, word by word)")
                }
                stations.append(try parseTuning(entry, name: name, bands: bands))
            }
        }
        let subscribed = try object.optional("satelliteSubscribed")?.bool() ?? true
        return RadioCapabilities(bands: bands, presets: presets, stations: stations, satelliteSubscribed: subscribed)
    }

    /// A preset's or station's band and frequency or channel: the band exists and the
    /// value is in its range, on its steps.
    func parseTuning(_ object: JSONObject, name: String, bands: [RadioBand]) throws(ProfileError) -> RadioStation {
        let typeNode = try object.required("type")
        let type = try typeNode.siriKitCase(RadioType.self, what: "radio band")
        guard let band = bands.first(where: { $0.type == type }) else {
            throw typeNode.error("the radio has no \(type.rawValue) band (bands: \(bands.map(\.type.rawValue).joined(separator: ", ")))")
        }
        let (wanted, unwanted) = band.tunesByChannel ? ("channel", "frequency") : ("frequency", "channel")
        if object.has(unwanted) {
            throw fail(object.path(unwanted), "the \(type.rawValue) band tunes by \(wanted), not by \(unwanted)")
        }
        let valueNode = try object.required(wanted)
        let value = band.tunesByChannel ? Double(try valueNode.integer()) : try valueNode.number()
        guard band.range.contains(value) else {
            throw valueNode.error(
                "\(value.plainText()) \(band.unit) is outside the \(type.rawValue) band (\(band.range.min.plainText())...\(band.range.max.plainText()) \(band.unit))"
            )
        }
        guard abs(band.range.snap(value) - value) < 1e-6 else {
            throw valueNode.error(
                "\(value.plainText()) \(band.unit) is not on the \(type.rawValue) band's \(band.range.step.plainText()) \(band.unit) steps from \(band.range.min.plainText()) (nearest: \(band.range.snap(value).plainText()))"
            )
        }
        return band.tunesByChannel
            ? RadioStation(name: name, type: type, channel: Int(value))
            : RadioStation(name: name, type: type, frequency: value)
    }

    func parsePolicies(_ node: JSONNode) throws(ProfileError) -> Policies {
        let object = try node.object(known: ["refusedWhileCarLocked", "restrictedWhileLocked", "confirmationTimeoutMs", "unreachableAfterCycles"])
        // `restrictedWhileLocked` is this policy's old name (it meant the car's lock then
        // too); SiriKit's restriction of that name is the caller's device, set in the
        // daemon's configuration.
        if object.has("refusedWhileCarLocked"), object.has("restrictedWhileLocked") {
            throw object.node.error("give refusedWhileCarLocked or its old name restrictedWhileLocked, not both")
        }
        var restricted: [String] = []
        let refusedNode = object.optional("refusedWhileCarLocked") ?? object.optional("restrictedWhileLocked")
        for item in try refusedNode?.array() ?? [] {
            let name = try item.string()
            guard ProfileLoader.intentNames.contains(name) else {
                throw item.error("unknown intent \"\(name)\"; expected one of \(ProfileLoader.intentNames.joined(separator: ", "))")
            }
            if restricted.contains(name) { throw item.error("intent \"\(name)\" listed twice") }
            restricted.append(name)
        }
        let timeoutNode = try object.required("confirmationTimeoutMs")
        let timeout = try timeoutNode.integer()
        guard timeout > 0 else { throw timeoutNode.error("must be greater than 0 (milliseconds)") }
        var cycles = 5
        if let cyclesNode = object.optional("unreachableAfterCycles") {
            cycles = try cyclesNode.integer()
            guard cycles > 0 else { throw cyclesNode.error("must be greater than 0") }
        }
        return Policies(refusedWhileCarLocked: Set(restricted), confirmationTimeout: .milliseconds(timeout), unreachableAfterCycles: cycles)
    }

    /// `car`: what `INCar` says besides the identifier and name (all optional).
    func parseCar(_ node: JSONNode) throws(ProfileError) -> CarDescription {
        let object = try node.object(known: ["make", "model", "year", "color", "headUnit", "chargingConnectors"])
        var car = CarDescription()
        car.make = try object.optional("make")?.nonEmptyString()
        car.model = try object.optional("model")?.nonEmptyString()
        if let yearNode = object.optional("year") {
            let year = try yearNode.integer()
            guard (1886...9999).contains(year) else { throw yearNode.error("a model year such as 2015, not \(year)") }
            car.year = String(year)
        }
        if let colorNode = object.optional("color") {
            let color = try colorNode.string()
            let hex = color.dropFirst()
            guard color.hasPrefix("#"), hex.count == 6, hex.allSatisfy(\.isHexDigit) else {
                throw colorNode.error("an sRGB colour as \"#RRGGBB\", not \"\(color)\"")
            }
            car.color = color.uppercased()
        }
        if let headUnitNode = object.optional("headUnit") {
            let headUnit = try headUnitNode.object(known: ["bluetoothIdentifier", "iAP2Identifier"])
            car.headUnit = CarDescription.HeadUnit(
                bluetoothIdentifier: try headUnit.optional("bluetoothIdentifier")?.nonEmptyString(),
                iAP2Identifier: try headUnit.optional("iAP2Identifier")?.nonEmptyString())
        }
        for item in try object.optional("chargingConnectors")?.array() ?? [] {
            let connector = try item.object(known: ["type", "maximumPowerKW"])
            let type = try connector.required("type").enumeration(ChargingConnectorType.self, what: "charging connector")
            if car.chargingConnectors.contains(where: { $0.type == type }) { throw item.error("connector \(type.rawValue) listed twice") }
            var power: Double?
            if let powerNode = connector.optional("maximumPowerKW") {
                let kilowatts = try powerNode.number()
                guard kilowatts > 0, kilowatts <= 1000 else { throw powerNode.error("kW, greater than 0 and at most 1000, not \(kilowatts)") }
                power = kilowatts
            }
            car.chargingConnectors.append(CarDescription.ChargingConnector(type: type, maximumPowerKilowatts: power))
        }
        return car
    }

    /// `power`: fuel and/or battery, and the static facts of the power level.
    func parsePower(_ node: JSONNode) throws(ProfileError) -> PowerCapabilities {
        let object = try node.object(known: [
            "fuel", "battery", "batteryCapacityKWh", "minimumBatteryCapacityKWh", "consumptionKWhPer100km", "fuelTankLiters",
            "fuelConsumptionLPer100km", "consumptionFormulaArguments", "chargingFormulaArguments",
        ])
        var power = PowerCapabilities(fuel: try object.optional("fuel")?.bool() ?? false, battery: try object.optional("battery")?.bool() ?? false)
        func positive(_ key: String, _ what: String, needs flag: Bool, _ flagName: String) throws(ProfileError) -> Double? {
            guard let valueNode = object.optional(key) else { return nil }
            guard flag else { throw valueNode.error("only for a car with \(flagName): true") }
            let value = try valueNode.number()
            guard value > 0, value <= 10_000 else { throw valueNode.error("\(what), greater than 0, not \(value.plainText())") }
            return value
        }
        power.batteryCapacityKWh = try positive("batteryCapacityKWh", "kWh", needs: power.battery, "battery")
        power.minimumBatteryCapacityKWh = try positive("minimumBatteryCapacityKWh", "kWh", needs: power.battery, "battery")
        power.consumptionKWhPer100Km = try positive("consumptionKWhPer100km", "kWh per 100 km", needs: power.battery, "battery")
        power.fuelTankLiters = try positive("fuelTankLiters", "litres", needs: power.fuel, "fuel")
        power.fuelConsumptionLitersPer100Km = try positive("fuelConsumptionLPer100km", "litres per 100 km", needs: power.fuel, "fuel")
        if let minimum = power.minimumBatteryCapacityKWh, let maximum = power.batteryCapacityKWh, minimum >= maximum {
            throw fail(object.path("minimumBatteryCapacityKWh"), "must be below batteryCapacityKWh (\(maximum.plainText()))")
        }
        for key in ["consumptionFormulaArguments", "chargingFormulaArguments"] {
            guard let argumentsNode = object.optional(key) else { continue }
            guard power.battery else { throw argumentsNode.error("only for a car with battery: true") }
            guard case let .object(arguments) = argumentsNode.value else {
                throw argumentsNode.error("expected an object (SiriKit's formula arguments, passed on as given)")
            }
            if key == "consumptionFormulaArguments" { power.consumptionFormulaArguments = arguments } else { power.chargingFormulaArguments = arguments }
        }
        return power
    }
}
