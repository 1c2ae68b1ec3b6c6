import CarIntents
import CarplayJSON
import VehicleKit

/// Describe: the vehicle's capabilities from its profile (docs/io.carplayd.Vehicle.varlink,
/// `Vehicle`), written by the daemon from the profile and read by clients.
public struct DescribeReply: CarplaydReply {
    public static let method = "io.carplayd.Vehicle.Describe"
    public var json: [String: JSONValue]
    public var vehicle: VehicleDescription

    public init(_ profile: VehicleProfile) {
        vehicle = VehicleDescription(profile)
        json = ["vehicle": vehicle.json]
    }

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        vehicle = try VehicleDescription(json: members.required("vehicle"))
    }
}

/// The profile's capabilities as a client sees them: what it may ask for, and the ranges
/// and names it may draw. The capability types are the profile's own; a car without a
/// climate or a radio has none.
public struct VehicleDescription: Sendable, Hashable {
    public var identifier: String
    /// The profile's display name.
    public var name: String
    public var carNames: [String]
    public var driverSide: DriverSide
    public var defrosters: [CarDefroster]
    public var seats: [SeatCapabilities]
    public var audioSources: [CarAudioSource]
    /// SiriKit's saved car profiles the car holds.
    public var carProfileSlots: Int
    public var hasLock: Bool
    public var carSignals: [CarSignal]
    public var reportsFuel: Bool
    public var reportsBattery: Bool
    /// The state keys the profile binds.
    public var properties: [String]
    public var refusedWhileCarLocked: [String]
    public var confirmationTimeoutMs: Int
    public var climate: ClimateCapabilities?
    public var radio: RadioCapabilities?

    public init(_ profile: VehicleProfile) {
        identifier = profile.identifier
        name = profile.displayName
        carNames = profile.carNames
        driverSide = profile.driverSide
        defrosters = profile.defrosters
        seats = profile.seats
        audioSources = profile.audioSources
        carProfileSlots = profile.carProfileSlots
        hasLock = profile.hasLock
        carSignals = profile.carSignals
        reportsFuel = profile.power.fuel
        reportsBattery = profile.power.battery
        properties = profile.bindings.keys.sorted().map(\.rawValue)
        refusedWhileCarLocked = profile.policies.refusedWhileCarLocked.sorted()
        confirmationTimeoutMs = profile.policies.confirmationTimeout.wholeMilliseconds
        climate = profile.climate
        radio = profile.radio
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "identifier": .string(identifier), "name": .string(name), "carNames": .array(carNames.map { .string($0) }),
            "driverSide": .string(driverSide.rawValue), "defrosters": .array(defrosters.map { .string($0.rawValue) }),
            "seats": .array(seats.map(\.json)), "audioSources": .array(audioSources.map { .string($0.rawValue) }),
            "profileSlots": .integer(carProfileSlots), "lock": .bool(hasLock),
            "carSignals": .array(carSignals.map { .string($0.rawValue) }),
            "power": .object(["fuel": .bool(reportsFuel), "battery": .bool(reportsBattery)]),
            "properties": .array(properties.map { .string($0) }),
            "policies": .object([
                "refusedWhileCarLocked": .array(refusedWhileCarLocked.map { .string($0) }), "confirmationTimeoutMs": .integer(confirmationTimeoutMs),
            ]),
        ]
        if let climate { object["climate"] = climate.json }
        if let radio { object["radio"] = radio.json }
        return .object(object)
    }

    init(json node: JSONNode) throws(JSONContentError) {
        let vehicle = try node.object()
        identifier = try vehicle.required("identifier").string()
        name = try vehicle.required("name").string()
        carNames = try vehicle.required("carNames").strings()
        driverSide = try vehicle.required("driverSide").enumeration(DriverSide.self, what: "driver side")
        defrosters = try vehicle.required("defrosters").array { node throws(JSONContentError) in try node.siriKitCase(CarDefroster.self, what: "defroster") }
        seats = try vehicle.required("seats").array(SeatCapabilities.init)
        audioSources = try vehicle.required("audioSources").array { node throws(JSONContentError) in
            try node.siriKitCase(CarAudioSource.self, what: "audio source")
        }
        carProfileSlots = try vehicle.required("profileSlots").integer()
        hasLock = try vehicle.required("lock").bool()
        carSignals = try vehicle.required("carSignals").array { node throws(JSONContentError) in try node.siriKitCase(CarSignal.self, what: "signal") }
        let power = try vehicle.required("power").object()
        reportsFuel = try power.required("fuel").bool()
        reportsBattery = try power.required("battery").bool()
        properties = try vehicle.required("properties").strings()
        let policies = try vehicle.required("policies").object()
        refusedWhileCarLocked = try policies.required("refusedWhileCarLocked").strings()
        confirmationTimeoutMs = try policies.required("confirmationTimeoutMs").integer()
        climate = try vehicle.optional("climate").map(ClimateCapabilities.init)
        radio = try vehicle.optional("radio").map(RadioCapabilities.init)
    }
}

// The profile's capability types as Describe writes and reads them.

extension ClimateCapabilities {
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "zones": .array(zones.map(\.json)), "fanSpeedLevels": .integer(fanSpeedLevels), "airConditioner": .bool(airConditioner),
            "autoMode": .bool(autoMode), "recirculation": .bool(recirculation), "climateControl": .bool(climateControl),
            "climateControlZones": .array(climateControlZones.map(\.json)),
        ]
        // No zones, no temperature: the ranges are left out.
        if let celsius, let fahrenheit {
            members["celsius"] = celsius.json
            members["fahrenheit"] = fahrenheit.json
        }
        return .object(members)
    }

    init(json node: JSONNode) throws(JSONContentError) {
        let climate = try node.object()
        self.init(
            zones: try climate.required("zones").array(ClimateZone.init), celsius: try climate.optional("celsius").map(SteppedRange.init),
            fahrenheit: try climate.optional("fahrenheit").map(SteppedRange.init), fanSpeedLevels: try climate.required("fanSpeedLevels").integer(),
            airConditioner: try climate.required("airConditioner").bool(), autoMode: try climate.required("autoMode").bool(),
            recirculation: try climate.required("recirculation").bool(), climateControl: try climate.required("climateControl").bool(),
            climateControlZones: try climate.required("climateControlZones").array(ClimateZone.init))
    }
}

extension ClimateZone {
    var json: JSONValue { .object(["id": .string(id), "seats": .array(seats.map { .string($0.rawValue) })]) }

    init(json node: JSONNode) throws(JSONContentError) {
        let zone = try node.object()
        self.init(
            id: try zone.required("id").string(),
            seats: try zone.required("seats").array { node throws(JSONContentError) in try node.siriKitCase(CarSeat.self, what: "seat") })
    }
}

extension SeatCapabilities {
    var json: JSONValue {
        .object(["seat": .string(seat.rawValue), "heating": .integer(heating), "cooling": .integer(cooling), "massage": .integer(massage)])
    }

    init(json node: JSONNode) throws(JSONContentError) {
        let seat = try node.object()
        self.init(
            seat: try seat.required("seat").siriKitCase(CarSeat.self, what: "seat"), heating: try seat.required("heating").integer(),
            cooling: try seat.required("cooling").integer(), massage: try seat.required("massage").integer())
    }
}

extension SteppedRange {
    var json: JSONValue { .object(["min": .number(min), "max": .number(max), "step": .number(step)]) }

    init(json node: JSONNode) throws(JSONContentError) {
        let range = try node.object()
        self.init(min: try range.required("min").number(), max: try range.required("max").number(), step: try range.required("step").number())
    }
}

extension RadioCapabilities {
    var json: JSONValue {
        .object([
            "bands": .array(bands.map(\.json)),
            "presets": .array(presets.map { .object(["number": .integer($0.number), "station": $0.station.json]) }),
            "stations": .array(stations.map(\.json)), "satelliteSubscribed": .bool(satelliteSubscribed),
        ])
    }

    init(json node: JSONNode) throws(JSONContentError) {
        let radio = try node.object()
        self.init(
            bands: try radio.required("bands").array(RadioBand.init),
            presets: try radio.required("presets").array { node throws(JSONContentError) in
                let preset = try node.object()
                return RadioPreset(number: try preset.required("number").integer(), station: try RadioStation(json: preset.required("station")))
            },
            stations: try radio.required("stations").array(RadioStation.init), satelliteSubscribed: try radio.required("satelliteSubscribed").bool())
    }
}

extension RadioBand {
    var json: JSONValue {
        .object(["type": .string(type.rawValue), "min": .number(range.min), "max": .number(range.max), "step": .number(range.step), "unit": .string(unit)])
    }

    init(json node: JSONNode) throws(JSONContentError) {
        let band = try node.object()
        self.init(
            type: try band.required("type").siriKitCase(RadioType.self, what: "radio type"),
            range: SteppedRange(min: try band.required("min").number(), max: try band.required("max").number(), step: try band.required("step").number()),
            unit: try band.required("unit").string())
    }
}

extension RadioStation {
    var json: JSONValue {
        var object: [String: JSONValue] = ["name": .string(name), "type": .string(type.rawValue)]
        if let frequency { object["frequency"] = .number(frequency) }
        if let channel { object["channel"] = .integer(channel) }
        return .object(object)
    }

    init(json node: JSONNode) throws(JSONContentError) {
        let station = try node.object()
        self.init(
            name: try station.required("name").string(), type: try station.required("type").siriKitCase(RadioType.self, what: "radio type"),
            frequency: try station.optional("frequency")?.number(), channel: try station.optional("channel")?.integer())
    }
}
