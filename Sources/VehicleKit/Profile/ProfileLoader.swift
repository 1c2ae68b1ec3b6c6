import CANKit
import Foundation

/// Loads `VehicleProfiles/<vehicle>/`: `profile.json` and the DBC it names, resolves
/// every reference into the DBC and checks the rules of VehicleProfiles/README.md.
/// Files are read through `readFile` (nil: the file cannot be read), so VehicleKit
/// does no I/O of its own.
public enum ProfileLoader {
    /// The intents a profile's policies may name.
    public static let intentNames: [String] = [
        "SetClimateSettingsInCar", "SetDefrosterSettingsInCar", "SetSeatSettingsInCar", "SetAudioSourceInCar",
        "SetRadioStation", "SaveProfileInCar", "SetProfileInCar", "SetCarLockStatus", "GetCarLockStatus",
        "ActivateCarSignal", "GetCarPowerLevelStatus",
    ]

    /// The profile file inside a vehicle folder.
    public static let profileFileName = "profile.json"

    public static func load(directory: String, readFile: (String) -> [UInt8]?) throws(ProfileError) -> VehicleProfile {
        try withoutActuallyEscaping(readFile) { (readFile) throws(ProfileError) -> VehicleProfile in
            var loader = Loader(directory: directory, readFile: readFile)
            return try loader.load()
        }
    }

    static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty || name.hasPrefix("/") { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}

/// A binding's signal, found in the DBC.
struct ResolvedSignal {
    let message: DBCMessage
    let signal: DBCSignal
    /// JSON path of the reference object, e.g. `bindings["climate.fan"].command`.
    let path: String
}

struct ResolvedBinding {
    let key: PropertyKey
    let path: String
    let command: ResolvedSignal?
    let status: ResolvedSignal
    let binding: PropertyBinding
}

private struct Loader {
    let directory: String
    let readFile: (String) -> [UInt8]?
    let file: String
    var dbcName = ""

    init(directory: String, readFile: @escaping (String) -> [UInt8]?) {
        self.directory = directory
        self.readFile = readFile
        self.file = ProfileLoader.join(directory, ProfileLoader.profileFileName)
    }

    func fail(_ path: String, _ reason: String) -> ProfileError { ProfileError(file: file, path: path, reason: reason) }

    static let topKeys = [
        "schema", "name", "carNames", "driverSide", "dbc", "climate", "defrosters", "seats", "radio", "audioSources",
        "profileSlots", "lock", "carSignals", "power", "policies", "bindings", "e2e", "acknowledgement",
    ]

    mutating func load() throws(ProfileError) -> VehicleProfile {
        guard let bytes = readFile(file) else { throw fail("", "cannot read the file") }
        let json: ProfileJSON
        do {
            json = try ProfileJSON.parse(bytes)
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey].map { "\($0)" } ?? "\(error)"
            throw fail("", "not valid JSON: \(detail)")
        }
        let root = try JSONNode(value: json, path: "", file: file).object(known: Self.topKeys)

        let schema = try root.required("schema")
        guard try schema.integer() == 1 else { throw schema.error("unsupported schema version; this loader reads schema 1") }
        let displayName = try root.required("name").nonEmptyString()
        let carNamesNode = try root.required("carNames")
        var carNames: [String] = []
        for item in try carNamesNode.array() {
            let name = try item.nonEmptyString()
            if carNames.contains(where: { $0.lowercased() == name.lowercased() }) { throw item.error("duplicate car name \"\(name)\"") }
            carNames.append(name)
        }
        guard !carNames.isEmpty else { throw carNamesNode.error("must name the car at least once") }
        let driverSide = try root.required("driverSide").enumeration(DriverSide.self, what: "driver side")

        let climate = try root.optional("climate").map { node throws(ProfileError) in try parseClimate(node) }
        let defrosters = try parseDefrosters(root.optional("defrosters"))
        let seats = try parseSeats(root.optional("seats"))
        let radio = try root.optional("radio").map { node throws(ProfileError) in try parseRadio(node) }
        let audioSources = try uniqueList(root.optional("audioSources"), CarAudioSource.self, what: "audio source")
        let profileSlots = try root.optional("profileSlots")?.integer() ?? 0
        guard profileSlots >= 0 else { throw fail(root.path("profileSlots"), "must not be negative") }
        let hasLock = try root.optional("lock")?.bool() ?? false
        let carSignals = try uniqueList(root.optional("carSignals"), CarSignal.self, what: "car signal")
        var power = PowerCapabilities(fuel: false, battery: false)
        if let node = root.optional("power") {
            let object = try node.object(known: ["fuel", "battery"])
            power.fuel = try object.optional("fuel")?.bool() ?? false
            power.battery = try object.optional("battery")?.bool() ?? false
        }
        let policies = try parsePolicies(root.required("policies"))

        // The DBC.
        let dbcNode = try root.required("dbc")
        dbcName = try dbcNode.nonEmptyString()
        let dbcPath = ProfileLoader.join(directory, dbcName)
        guard let dbcBytes = readFile(dbcPath) else { throw dbcNode.error("cannot read the DBC file \"\(dbcPath)\"") }
        let database: DBCDatabase
        do {
            database = try DBCDatabase(parsing: dbcBytes, source: dbcPath)
        } catch {
            throw dbcNode.error(error.description)
        }

        var profile = VehicleProfile(
            identifier: Self.identifier(of: directory), displayName: displayName, carNames: carNames, driverSide: driverSide,
            database: database, climate: climate, defrosters: defrosters, seats: seats, radio: radio,
            audioSources: audioSources, profileSlots: profileSlots, hasLock: hasLock, carSignals: carSignals, power: power,
            bindings: [:], e2e: [:], acknowledgement: nil, policies: policies)

        let resolved = try resolveBindings(try root.required("bindings"), profile: profile, database: database)
        profile.bindings = resolved.mapValues { $0.binding }
        profile.e2e = try resolveE2E(root.required("e2e"), database: database)
        profile.acknowledgement = try resolveAcknowledgement(root.optional("acknowledgement"), database: database, bindings: resolved)
        try checkCoverage(profile: profile, bindings: resolved, acknowledgementPath: root.path("acknowledgement"))
        try checkRanges(profile: profile, bindings: resolved, root: root)
        return profile
    }

    static func identifier(of directory: String) -> String {
        var trimmed = directory
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        let last = trimmed.split(separator: "/").last.map(String.init) ?? trimmed
        return last == "." || last.isEmpty ? "vehicle" : last
    }

    // MARK: - Capabilities

    func parseRange(_ node: JSONNode) throws(ProfileError) -> SteppedRange {
        try parseRange(node.object(known: ["min", "max", "step"]))
    }

    func parseRange(_ object: JSONObject, integral: Bool = false) throws(ProfileError) -> SteppedRange {
        let minNode = try object.required("min"), maxNode = try object.required("max"), stepNode = try object.required("step")
        let range = SteppedRange(
            min: integral ? Double(try minNode.integer()) : try minNode.number(),
            max: integral ? Double(try maxNode.integer()) : try maxNode.number(),
            step: integral ? Double(try stepNode.integer()) : try stepNode.number())
        try checkGrid(range, object: object)
        return range
    }

    func checkGrid(_ range: SteppedRange, object: JSONObject) throws(ProfileError) {
        guard range.step > 0 else { throw fail(object.path("step"), "must be greater than 0") }
        guard range.min < range.max else { throw fail(object.path("max"), "max \(format(range.max)) must be greater than min \(format(range.min))") }
        let steps = (range.max - range.min) / range.step
        guard abs(steps - steps.rounded()) < 1e-6 else {
            throw fail(object.path("max"), "max \(format(range.max)) is not min \(format(range.min)) plus a whole number of steps of \(format(range.step))")
        }
    }

    func parseClimate(_ node: JSONNode) throws(ProfileError) -> ClimateCapabilities {
        let object = try node.object(known: ["zones", "temperature", "fanSpeedLevels", "airConditioner", "autoMode", "recirculation", "climateControl"])
        let zonesNode = try object.required("zones")
        var zones: [ClimateZone] = []
        var zoneOfSeat: [CarSeat: String] = [:]
        for zoneNode in try zonesNode.array() {
            let zoneObject = try zoneNode.object(known: ["id", "seats"])
            let idNode = try zoneObject.required("id")
            let id = try idNode.nonEmptyString()
            guard id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                throw idNode.error("zone id \"\(id)\" may only contain letters, digits, '_' and '-' (it becomes part of climate.temperature.\(id))")
            }
            if zones.contains(where: { $0.id == id }) { throw idNode.error("duplicate zone id \"\(id)\"") }
            let seatsNode = try zoneObject.required("seats")
            var seats: [CarSeat] = []
            for seatNode in try seatsNode.array() {
                let seat = try seatNode.enumeration(CarSeat.self, what: "seat")
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
        guard !zones.isEmpty else { throw zonesNode.error("climate control has at least one zone") }

        let temperatureNode = try object.required("temperature")
        let temperature = try temperatureNode.object(known: ["celsius", "fahrenheit"])
        let celsius = try parseRange(temperature.required("celsius"))
        let fahrenheitNode = try temperature.required("fahrenheit")
        let fahrenheit = try parseRange(fahrenheitNode)
        let low = (fahrenheit.min - 32) * 5 / 9, high = (fahrenheit.max - 32) * 5 / 9
        let slack = celsius.step / 2 + 1e-9
        guard low >= celsius.min - slack, high <= celsius.max + slack else {
            throw fahrenheitNode.error(
                "\(format(fahrenheit.min)) °F to \(format(fahrenheit.max)) °F is \(format(low, digits: 1)) °C to \(format(high, digits: 1)) °C, outside the Celsius range \(format(celsius.min)) °C to \(format(celsius.max)) °C")
        }
        let levelsNode = try object.required("fanSpeedLevels")
        let levels = try levelsNode.integer()
        guard levels >= 0 else { throw levelsNode.error("must not be negative") }
        return ClimateCapabilities(
            zones: zones, celsius: celsius, fahrenheit: fahrenheit, fanSpeedLevels: levels,
            airConditioner: try object.optional("airConditioner")?.bool() ?? false,
            autoMode: try object.optional("autoMode")?.bool() ?? false,
            recirculation: try object.optional("recirculation")?.bool() ?? false,
            climateControl: try object.optional("climateControl")?.bool() ?? false)
    }

    func parseDefrosters(_ node: JSONNode?) throws(ProfileError) -> [CarDefroster] {
        let list = try uniqueList(node, CarDefroster.self, what: "defroster")
        if list.contains(.all), let items = try node?.array(), let index = list.firstIndex(of: .all) {
            throw items[index].error("\"all\" is not a defroster; list \"front\" and \"rear\"")
        }
        return list
    }

    func uniqueList<E: RawRepresentable & CaseIterable & Equatable>(_ node: JSONNode?, _ type: E.Type, what: String) throws(ProfileError) -> [E] where E.RawValue == String {
        guard let node else { return [] }
        var list: [E] = []
        for item in try node.array() {
            let value = try item.enumeration(type, what: what)
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
            let seat = try seatNode.enumeration(CarSeat.self, what: "seat")
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
            let type = try typeNode.enumeration(RadioType.self, what: "radio band")
            if bands.contains(where: { $0.type == type }) { throw typeNode.error("band \"\(type.rawValue)\" listed twice") }
            let unitNode = try band.required("unit")
            let unit = try unitNode.string()
            let expected = switch type {
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
        let type = try typeNode.enumeration(RadioType.self, what: "radio band")
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
            throw valueNode.error("\(format(value)) \(band.unit) is outside the \(type.rawValue) band (\(format(band.range.min))...\(format(band.range.max)) \(band.unit))")
        }
        guard abs(band.range.snap(value) - value) < 1e-6 else {
            throw valueNode.error("\(format(value)) \(band.unit) is not on the \(type.rawValue) band's \(format(band.range.step)) \(band.unit) steps from \(format(band.range.min)) (nearest: \(format(band.range.snap(value))))")
        }
        return band.tunesByChannel
            ? RadioStation(name: name, type: type, channel: Int(value))
            : RadioStation(name: name, type: type, frequency: value)
    }

    func parsePolicies(_ node: JSONNode) throws(ProfileError) -> Policies {
        let object = try node.object(known: ["restrictedWhileLocked", "confirmationTimeoutMs", "unreachableAfterCycles"])
        var restricted: [String] = []
        for item in try object.required("restrictedWhileLocked").array() {
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
        return Policies(restrictedWhileLocked: Set(restricted), confirmationTimeout: .milliseconds(timeout), unreachableAfterCycles: cycles)
    }

    // MARK: - Bindings

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
        case "profile.active": return (profile.profileSlots > 0, profile.profileSlots > 0, "profileSlots > 0")
        case "lock.locked": return (profile.hasLock, profile.hasLock, "lock: true")
        case "signal.audible", "signal.visible":
            let has = profile.carSignals.contains { $0.rawValue == parts[1] }
            return (has, has, "\"\(parts[1])\" in carSignals")
        case "power.fuelPercent": return (profile.power.fuel, profile.power.fuel, "power.fuel: true")
        case "power.chargePercent": return (profile.power.battery, profile.power.battery, "power.battery: true")
        case "power.charging", "power.minutesToFull": return (profile.power.battery, false, "power.battery: true")
        case "power.distanceRemaining": return (true, false, "")
        default: break
        }
        if parts.count == 3, parts[0] == "climate", parts[1] == "temperature" {
            let has = climate?.zones.contains { $0.id == parts[2] } ?? false
            return (has, has, "a climate zone \"\(parts[2])\"")
        }
        if parts.count == 3, parts[0] == "seat", let seat = CarSeat(rawValue: parts[1]), let feature = SeatFeature(rawValue: parts[2]) {
            let level = profile.seat(seat)?.maximum(feature) ?? 0
            return (level > 0, level > 0, "a seats entry for \(seat.rawValue) with \(feature.rawValue) > 0")
        }
        return (false, false, "")
    }

    /// Every key the profile's capabilities need, in a stable order.
    func requiredKeys(for profile: VehicleProfile) -> [PropertyKey] {
        var candidates: [PropertyKey] = (profile.climate?.zones ?? []).map { PropertyKey.temperature(zone: $0.id) }
        candidates += [
            .fan, .fanSpeed, .airConditioner, .autoMode, .climateControl, .airCirculation, "defroster.front", "defroster.rear",
        ]
        for seat in CarSeat.physical { for feature in SeatFeature.allCases { candidates.append(.seat(seat, feature)) } }
        candidates += [
            .audioSource, .radioBand, .radioFrequency, .radioChannel, .activeProfile, .locked, "signal.audible", "signal.visible",
            .fuelPercent, .chargePercent,
        ]
        return candidates.filter { capability(of: $0, in: profile).required }
    }

    func resolveBindings(_ node: JSONNode, profile: VehicleProfile, database: DBCDatabase) throws(ProfileError) -> [PropertyKey: ResolvedBinding] {
        var resolved: [PropertyKey: ResolvedBinding] = [:]
        var owners: [String: String] = [:]  // "message.signal" -> binding path
        for (rawKey, bindingNode) in try node.map() {
            let key = PropertyKey(rawKey)
            guard let kind = key.kind else {
                throw bindingNode.error("unknown property key \"\(rawKey)\" (not in the vocabulary of VehicleProfiles/README.md)")
            }
            let capability = capability(of: key, in: profile)
            guard capability.enabled else {
                throw bindingNode.error("the car has no such capability: \(rawKey) needs \(capability.needs)")
            }
            let object = try bindingNode.object(known: ["command", "status", "values", "signalUnit"])
            let status = try resolveSignal(object.required("status"), known: ["message", "signal"], database: database)
            var command: ResolvedSignal?
            var idle: Int128?
            if let commandNode = object.optional("command") {
                guard !key.isStatusOnly else {
                    throw commandNode.error("\(rawKey) is status only: the vehicle reports it and nothing sets it, so it cannot have a command")
                }
                let resolvedCommand = try resolveSignal(commandNode, known: ["message", "signal", "idle"], database: database)
                let commandObject = try commandNode.object(known: ["message", "signal", "idle"])
                guard let idleNode = commandObject.optional("idle") else {
                    throw fail(commandObject.path("idle"),
                        "missing idle: the value signal \"\(resolvedCommand.signal.name)\" carries when a command frame does not change \(rawKey) (a choice name such as \"NoRequest\", or a raw number)")
                }
                idle = try idleRawValue(idleNode, resolvedCommand)
                command = resolvedCommand
            } else if !key.isStatusOnly {
                throw fail(object.path("command"), "missing command: \(rawKey) is set by intents, so it needs a command signal (message, signal, idle)")
            }
            for reference in [command, status].compactMap({ $0 }) {
                let id = "\(reference.message.name).\(reference.signal.name)"
                if let owner = owners[id] {
                    throw fail(reference.path + ".signal", "signal \"\(reference.signal.name)\" of message \"\(reference.message.name)\" is already bound by \(owner)")
                }
                owners[id] = reference.path
            }

            var values: [String: String] = [:]
            if let valuesNode = object.optional("values") {
                values = try resolveValues(valuesNode, key: key, kind: kind, command: command, status: status, idle: idle)
            }
            if case .enumeration = kind {
                let needed: [String] = switch key {
                case .audioSource: profile.audioSources.map(\.rawValue)
                case .radioBand: profile.radio?.bands.map(\.type.rawValue) ?? []
                default: AirCirculationMode.allCases.map(\.rawValue)
                }
                let valuesPath = object.path("values")
                for name in needed where values[name] == nil {
                    throw fail("\(valuesPath)[\"\(name)\"]", "missing: the car has \(name), so \(rawKey) maps it to a choice of the DBC signal")
                }
                for name in values.keys.sorted() where !needed.contains(name) {
                    throw fail("\(valuesPath)[\"\(name)\"]", "the car has no \(name) (\(key == .audioSource ? "audioSources" : "radio.bands") does not list it)")
                }
            }
            var signalUnit: String?
            if let unitNode = object.optional("signalUnit") {
                guard key == .radioFrequency else { throw unitNode.error("signalUnit is only for radio.frequency") }
                let unit = try unitNode.string()
                guard FrequencyUnit.kilohertz(unit) != nil else { throw unitNode.error("signalUnit is \"kHz\" or \"MHz\", not \"\(unit)\"") }
                for reference in [command, status].compactMap({ $0 }) {
                    if let dbcUnit = reference.signal.unit, !dbcUnit.isEmpty, dbcUnit != unit {
                        throw unitNode.error("signal \"\(reference.signal.name)\" of message \"\(reference.message.name)\" is in \"\(dbcUnit)\" according to \(dbcName), not \"\(unit)\"")
                    }
                }
                signalUnit = unit
            }

            let binding = PropertyBinding(
                command: command.map { SignalReference(message: $0.message.name, signal: $0.signal.name) }, idleRawValue: idle,
                status: SignalReference(message: status.message.name, signal: status.signal.name), values: values, signalUnit: signalUnit)
            resolved[key] = ResolvedBinding(key: key, path: bindingNode.path, command: command, status: status, binding: binding)
        }
        for key in requiredKeys(for: profile) where resolved[key] == nil {
            throw fail(node.childPath(key.rawValue, quoted: true), "missing binding: the car has \(capability(of: key, in: profile).needs), so \(key.rawValue) must be bound")
        }
        return resolved
    }

    func resolveSignal(_ node: JSONNode, known: [String], database: DBCDatabase) throws(ProfileError) -> ResolvedSignal {
        let object = try node.object(known: known)
        let messageNode = try object.required("message")
        let messageName = try messageNode.string()
        guard let message = database.message(named: messageName) else {
            throw messageNode.error("no message \"\(messageName)\" in \(dbcName)")
        }
        guard !message.isMultiplexed else {
            throw messageNode.error("message \"\(messageName)\" of \(dbcName) is multiplexed; bindings use plain messages")
        }
        let signalNode = try object.required("signal")
        let signalName = try signalNode.string()
        guard let signal = message.signal(named: signalName) else {
            throw signalNode.error("no signal \"\(signalName)\" in message \"\(messageName)\" of \(dbcName)")
        }
        return ResolvedSignal(message: message, signal: signal, path: node.path)
    }

    func idleRawValue(_ node: JSONNode, _ command: ResolvedSignal) throws(ProfileError) -> Int128 {
        let signal = command.signal
        switch node.value {
        case let .string(name):
            guard let raw = signal.choiceValue(named: name) else {
                throw node.error("no choice \"\(name)\" in signal \"\(signal.name)\" of message \"\(command.message.name)\"\(choiceList(signal))")
            }
            return raw
        case .number:
            let number = try node.integer()
            let raw = Int128(number)
            let (low, high) = rawLimits(signal)
            guard raw >= low, raw <= high else {
                throw node.error("raw value \(number) does not fit the \(signal.length) bits of signal \"\(signal.name)\" (\(low)...\(high))")
            }
            return raw
        default:
            throw node.error("expected a choice name or a raw number, found \(node.value.typeName)")
        }
    }

    func rawLimits(_ signal: DBCSignal) -> (Int128, Int128) {
        let length = Int128(signal.length)
        return signal.isSigned ? (-(Int128(1) << (length - 1)), (Int128(1) << (length - 1)) - 1) : (0, (Int128(1) << length) - 1)
    }

    func choiceList(_ signal: DBCSignal) -> String {
        signal.choices.isEmpty ? " (it has no choices)" : " (choices: \(signal.choices.map(\.name).joined(separator: ", ")))"
    }

    func resolveValues(
        _ node: JSONNode, key: PropertyKey, kind: PropertyKind, command: ResolvedSignal?, status: ResolvedSignal, idle: Int128?
    ) throws(ProfileError) -> [String: String] {
        let allowed: [String]
        switch kind {
        case .bool: allowed = ["false", "true"]
        case let .enumeration(cases): allowed = cases
        case .integer, .number: throw node.error("values map booleans and enumerations; \(key.rawValue) is a number")
        }
        var values: [String: String] = [:]
        var bySignalChoice: [String: String] = [:]
        for (name, entry) in try node.map() {
            guard allowed.contains(name) else {
                throw entry.error("\"\(name)\" is not a value of \(key.rawValue); expected \(allowed.joined(separator: ", "))")
            }
            let choice = try entry.string()
            for reference in [command, status].compactMap({ $0 }) {
                guard let raw = reference.signal.choiceValue(named: choice) else {
                    throw entry.error("no choice \"\(choice)\" in signal \"\(reference.signal.name)\" of message \"\(reference.message.name)\"\(choiceList(reference.signal))")
                }
                if reference.path == command?.path, raw == idle {
                    throw entry.error("choice \"\(choice)\" is the idle value of signal \"\(reference.signal.name)\"")
                }
            }
            if let other = bySignalChoice[choice] { throw entry.error("choice \"\(choice)\" is already the value of \"\(other)\"") }
            bySignalChoice[choice] = name
            values[name] = choice
        }
        if kind == .bool, values.count != 2 {
            throw node.error("a boolean maps both \"false\" and \"true\"")
        }
        return values
    }

    // MARK: - E2E and acknowledgement

    func resolveE2E(_ node: JSONNode, database: DBCDatabase) throws(ProfileError) -> [String: E2EBinding] {
        var result: [String: E2EBinding] = [:]
        var dataIDs: [Int: String] = [:]
        for (name, entryNode) in try node.map() {
            let entry = try entryNode.object(known: ["dataID", "crc", "counter"])
            guard let message = database.message(named: name) else { throw entryNode.error("no message \"\(name)\" in \(dbcName)") }
            let idNode = try entry.required("dataID")
            let dataID = try idNode.integer()
            guard (0...0xFFFF).contains(dataID) else { throw idNode.error("a data ID is 16 bits (0...65535), not \(dataID)") }
            if let other = dataIDs[dataID] { throw idNode.error("data ID \(dataID) is also used by \(other)") }
            dataIDs[dataID] = name

            let crcNode = try entry.required("crc")
            let crc = try e2eSignal(crcNode, message: message)
            guard crc.length == 8 else { throw crcNode.error("the CRC signal \"\(crc.name)\" must be 8 bits, not \(crc.length)") }
            let crcBit = crc.byteOrder == .littleEndian ? crc.startBit % 8 : 7 - crc.startBit % 8
            guard crcBit == 0 else {
                throw crcNode.error("the CRC signal \"\(crc.name)\" (start bit \(crc.startBit)) is not byte-aligned: it must fill one byte")
            }
            let crcOffset = crc.startBit / 8

            let counterNode = try entry.required("counter")
            let counter = try e2eSignal(counterNode, message: message)
            guard counter.length == 4 else { throw counterNode.error("the alive counter \"\(counter.name)\" must be 4 bits, not \(counter.length)") }
            let nibble: E2ENibble
            switch (counter.byteOrder, counter.startBit % 8) {
            case (.littleEndian, 0), (.bigEndian, 3): nibble = .low
            case (.littleEndian, 4), (.bigEndian, 7): nibble = .high
            default:
                throw counterNode.error("the alive counter \"\(counter.name)\" (start bit \(counter.startBit)) is not one nibble of a byte")
            }
            let counterOffset = counter.startBit / 8
            guard counterOffset != crcOffset else {
                throw counterNode.error("the alive counter \"\(counter.name)\" is in the CRC's byte \(crcOffset); it must be in another byte")
            }
            do {
                let protection = try E2EProtection(dataID: UInt16(dataID), crcOffset: crcOffset, counterOffset: counterOffset, counterNibble: nibble)
                result[name] = E2EBinding(message: name, crcSignal: crc.name, counterSignal: counter.name, protection: protection)
            } catch {
                throw entryNode.error(error.description)
            }
        }
        return result
    }

    func e2eSignal(_ node: JSONNode, message: DBCMessage) throws(ProfileError) -> DBCSignal {
        let name = try node.string()
        guard let signal = message.signal(named: name) else { throw node.error("no signal \"\(name)\" in message \"\(message.name)\" of \(dbcName)") }
        guard signal.valueType == .integer(signed: false) else { throw node.error("signal \"\(name)\" must be an unsigned integer") }
        return signal
    }

    func resolveAcknowledgement(
        _ node: JSONNode?, database: DBCDatabase, bindings: [PropertyKey: ResolvedBinding]
    ) throws(ProfileError) -> AcknowledgementBinding? {
        guard let node else { return nil }
        let object = try node.object(known: ["message", "commandId", "counter", "result", "accepted"])
        let messageNode = try object.required("message")
        let name = try messageNode.string()
        guard let message = database.message(named: name) else { throw messageNode.error("no message \"\(name)\" in \(dbcName)") }
        func signal(_ key: String) throws(ProfileError) -> DBCSignal {
            let signalNode = try object.required(key)
            let signalName = try signalNode.string()
            guard let signal = message.signal(named: signalName) else {
                throw signalNode.error("no signal \"\(signalName)\" in message \"\(name)\" of \(dbcName)")
            }
            return signal
        }
        let commandID = try signal("commandId")
        let commands = bindings.values.compactMap(\.command?.message)
        let needed = commands.contains { $0.isExtended } ? 29 : 11
        let largest = commands.map(\.frameID).max() ?? 0
        let fits = commandID.valueType == .integer(signed: false) && commandID.length >= needed
            && commandID.scale.doubleValue == 1 && commandID.offset.doubleValue == 0
            && (commandID.maximum.map { $0.doubleValue >= Double(largest) } ?? true)
        guard fits else {
            throw fail(object.path("commandId"),
                "signal \"\(commandID.name)\" cannot hold the command frame IDs (up to 0x\(String(largest, radix: 16, uppercase: true))): it needs \(needed) unsigned bits, scale 1, offset 0, and a maximum of at least \(largest)")
        }
        let counter = try signal("counter")
        guard counter.length == 4 else { throw fail(object.path("counter"), "the acknowledged alive counter \"\(counter.name)\" must be 4 bits, not \(counter.length)") }
        let result = try signal("result")
        let acceptedNode = try object.required("accepted")
        let accepted = try acceptedNode.string()
        guard result.choiceValue(named: accepted) != nil else {
            throw acceptedNode.error("no choice \"\(accepted)\" in signal \"\(result.name)\" of message \"\(name)\"\(choiceList(result))")
        }
        return AcknowledgementBinding(message: name, commandIDSignal: commandID.name, counterSignal: counter.name, resultSignal: result.name, acceptedChoice: accepted)
    }

    /// Every bound message is E2E-protected, every status message has a cycle time, every
    /// command signal is bound (so a command frame can be built), the acknowledgement exists.
    func checkCoverage(profile: VehicleProfile, bindings: [PropertyKey: ResolvedBinding], acknowledgementPath: String) throws(ProfileError) {
        let sorted = bindings.values.sorted { $0.key < $1.key }
        var used: [(message: DBCMessage, by: String)] = []
        for binding in sorted {
            if let command = binding.command { used.append((command.message, command.path)) }
            used.append((binding.status.message, binding.status.path))
        }
        if let acknowledgement = profile.acknowledgement, let message = profile.database.message(named: acknowledgement.message) {
            used.append((message, acknowledgementPath))
        }
        for (message, by) in used {
            guard let protection = profile.e2e[message.name] else {
                throw fail("e2e[\"\(message.name)\"]", "missing: message \"\(message.name)\" is used by \(by), and every command and status message is E2E-protected")
            }
            for reference in sorted.flatMap({ [$0.command, $0.status] }).compactMap({ $0 }) where reference.message.name == message.name {
                if reference.signal.name == protection.crcSignal || reference.signal.name == protection.counterSignal {
                    throw fail(reference.path + ".signal", "signal \"\(reference.signal.name)\" is the E2E CRC or alive counter of \"\(message.name)\"")
                }
            }
        }
        for binding in sorted where binding.status.message.cycleTime == nil {
            throw fail(binding.status.path + ".message",
                "status message \"\(binding.status.message.name)\" has no GenMsgCycleTime in \(dbcName); reachability (unreachableAfterCycles) needs it")
        }
        let commandMessages = Set(sorted.compactMap { $0.command?.message.name })
        for name in commandMessages.sorted() {
            guard let message = profile.database.message(named: name) else { continue }
            let protection = profile.e2e[name]
            for signal in message.signals where signal.name != protection?.crcSignal && signal.name != protection?.counterSignal {
                let bound = sorted.contains { $0.command?.message.name == name && $0.command?.signal.name == signal.name }
                if !bound {
                    throw fail("bindings",
                        "signal \"\(signal.name)\" of command message \"\(name)\" is not bound to a property, so a command frame could not say what it carries")
                }
            }
        }
        if !commandMessages.isEmpty, profile.acknowledgement == nil {
            throw fail(acknowledgementPath, "missing: the profile has commands, so it needs the vehicle's acknowledgement message")
        }
    }

    // MARK: - Ranges

    func checkRanges(profile: VehicleProfile, bindings: [PropertyKey: ResolvedBinding], root: JSONObject) throws(ProfileError) {
        if let climate = profile.climate {
            let celsius = climate.celsius
            for zone in climate.zones {
                try expect(bindings[.temperature(zone: zone.id)], [celsius.min, celsius.min + celsius.step, celsius.max],
                    path: "climate.temperature.celsius", describe: { "\(format($0)) °C" })
            }
            if climate.fanSpeedLevels > 0 {
                try expect(bindings[.fanSpeed], [1, Double(climate.fanSpeedLevels)], path: "climate.fanSpeedLevels", describe: { "fan level \(format($0))" })
            }
        }
        for (index, seat) in profile.seats.enumerated() {
            for feature in SeatFeature.allCases where seat.maximum(feature) > 0 {
                try expect(bindings[.seat(seat.seat, feature)], [0, Double(seat.maximum(feature))],
                    path: "seats[\(index)].\(feature.rawValue)", describe: { "\(feature.rawValue) level \(format($0))" })
            }
        }
        if let radio = profile.radio {
            for (index, band) in radio.bands.enumerated() {
                let range = band.range
                let samples = [range.min, range.min + range.step, range.max]
                if band.tunesByChannel {
                    try expect(bindings[.radioChannel], samples, path: "radio.bands[\(index)]", describe: { "\(band.type.rawValue) channel \(format($0))" })
                } else {
                    let binding = bindings[.radioFrequency]?.binding
                    if let binding, binding.signalUnit == nil,
                        let other = radio.bands.first(where: { !$0.tunesByChannel && $0.unit != band.unit }) {
                        throw fail("bindings[\"radio.frequency\"].signalUnit",
                            "missing: the \(band.type.rawValue) band is in \(band.unit) and the \(other.type.rawValue) band in \(other.unit), so one signal needs its unit (\"kHz\" or \"MHz\")")
                    }
                    try expect(bindings[.radioFrequency], samples, path: "radio.bands[\(index)]", describe: { "\(band.type.rawValue) \(format($0)) \(band.unit)" },
                        signalValue: { binding?.signalValue(frequency: $0, band: band) ?? $0 })
                }
            }
        }
        if profile.profileSlots > 0 {
            try expect(bindings[.activeProfile], [0, Double(profile.profileSlots)], path: "profileSlots", describe: { "profile slot \(format($0))" })
        }
        for key in [PropertyKey.fuelPercent, .chargePercent] {
            try expect(bindings[key], [0, 100], path: "bindings[\"\(key.rawValue)\"]", describe: { "\(format($0)) %" })
        }
        for binding in bindings.values.sorted(by: { $0.key < $1.key }) where binding.key.kind == .bool && binding.binding.values.isEmpty {
            try expect(binding, [0, 1], path: binding.path, describe: { $0 == 0 ? "false (0)" : "true (1)" })
        }
    }

    /// Each value (through `signalValue`) must encode into the command and status signals
    /// and read back as itself: within the DBC minimum/maximum, the bits, and the scale.
    func expect(
        _ binding: ResolvedBinding?, _ values: [Double], path: String, describe: (Double) -> String, signalValue: (Double) -> Double = { $0 }
    ) throws(ProfileError) {
        guard let binding else { return }
        for reference in [binding.command, binding.status].compactMap({ $0 }) {
            for value in values {
                if let problem = Self.roundTrip(signalValue(value), reference) {
                    throw fail(path,
                        "\(describe(value)) cannot be carried by signal \"\(reference.signal.name)\" of message \"\(reference.message.name)\" (\(reference.path)): \(problem)")
                }
            }
        }
    }

    /// Encodes `value` into the signal (the message's other signals at a neutral value)
    /// and decodes it again; nil when it reads back unchanged, else the problem.
    static func roundTrip(_ value: Double, _ reference: ResolvedSignal) -> String? {
        let message = reference.message, target = reference.signal.name
        var inputs: [String: SignalInput] = [:]
        for signal in message.signals where signal.name != target {
            if let choice = signal.choices.first {
                inputs[signal.name] = .choice(choice.name)
            } else {
                var neutral = signal.offset.doubleValue
                if let low = signal.minimum?.doubleValue, let high = signal.maximum?.doubleValue, !(low...high).contains(neutral) { neutral = low }
                inputs[signal.name] = .float(neutral)
            }
        }
        let input: SignalInput = value.rounded() == value && abs(value) < 1e15 ? .integer(Int128(value)) : .float(value)
        inputs[target] = input
        let payload: [UInt8]
        let decoded: [(name: String, value: SignalValue)]
        do {
            payload = try message.codec.encode(inputs)
        } catch {
            return error.description
        }
        do {
            decoded = try message.codec.decode(payload)
        } catch {
            return error.description
        }
        guard let result = decoded.first(where: { $0.name == target })?.value else { return "it is not decoded" }
        if case let .choice(name, raw) = result {
            return "it encodes as raw value \(raw), which is the choice \"\(name)\""
        }
        if abs(result.doubleValue - value) > 1e-6 * max(1, abs(value)) {
            return "the signal's scale \(reference.signal.scale) cannot represent it (it reads back as \(result))"
        }
        return nil
    }
}

/// A number without a needless ".0"; at most `digits` decimals.
func format(_ value: Double, digits: Int = 6) -> String {
    if value.rounded() == value, abs(value) < 1e15 { return String(Int(value)) }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return rounded.rounded() == rounded && abs(rounded) < 1e15 ? String(Int(rounded)) : "\(rounded)"
}
