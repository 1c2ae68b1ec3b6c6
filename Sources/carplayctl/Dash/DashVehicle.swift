import CarplayJSON

/// What the dash draws, from the daemon's `Describe`: only what the profile has.
struct DashVehicle: Sendable, Equatable {
    struct Zone: Sendable, Equatable {
        /// The zone's name in the state keys (`climate.temperature.ID`).
        var id: String
        /// Its seats, front first; the first is the zone's name in an intent (climateZone).
        var seats: [String]
    }

    /// A seat's features: the highest level of each, 0 for none.
    struct Seat: Sendable, Equatable {
        var name: String
        var heating = 0
        var cooling = 0
        var massage = 0
        var hasFeatures: Bool { heating + cooling + massage > 0 }
    }

    var name: String
    var zones: [Zone]
    var seats: [Seat]
    var driverSide: String?
    var temperatureMin = 16.0
    var temperatureMax = 28.0
    var temperatureStep = 0.5
    var fanSpeedLevels = 0
    var defrosters: [String]
    /// The state keys the profile binds.
    var properties: Set<String>
    /// Named stations: band, frequency, name (to name what the radio plays).
    var stations: [Station] = []

    struct Station: Sendable, Equatable {
        var band: String
        var frequency: Double
        var name: String
    }

    init(name: String, zones: [Zone], seats: [Seat], driverSide: String? = nil, fanSpeedLevels: Int = 0, defrosters: [String] = [], properties: Set<String>) {
        self.name = name
        self.zones = zones
        self.seats = seats
        self.driverSide = driverSide
        self.fanSpeedLevels = fanSpeedLevels
        self.defrosters = defrosters
        self.properties = properties
    }

    /// From Describe's `vehicle` object; members it lacks mean the car lacks them.
    init(describe vehicle: [String: JSONValue]) {
        name = vehicle["name"]?.stringValue ?? vehicle["identifier"]?.stringValue ?? "vehicle"
        properties = Set((vehicle["properties"]?.arrayValue ?? []).compactMap(\.stringValue))
        let climate = vehicle["climate"]?.objectValue ?? [:]
        zones = (climate["zones"]?.arrayValue ?? []).compactMap { zone in
            guard let object = zone.objectValue, let id = object["id"]?.stringValue else { return nil }
            return Zone(id: id, seats: (object["seats"]?.arrayValue ?? []).compactMap(\.stringValue))
        }
        // A profile without a zone list still has its temperature keys.
        if zones.isEmpty {
            zones = properties.filter { $0.hasPrefix("climate.temperature.") }.sorted()
                .map { Zone(id: String($0.dropFirst("climate.temperature.".count)), seats: []) }
        }
        seats = (vehicle["seats"]?.arrayValue ?? []).compactMap { seat in
            guard let object = seat.objectValue, let name = object["seat"]?.stringValue else { return nil }
            return Seat(
                name: name, heating: object["heating"]?.intValue ?? 0, cooling: object["cooling"]?.intValue ?? 0, massage: object["massage"]?.intValue ?? 0)
        }
        driverSide = vehicle["driverSide"]?.stringValue
        if let celsius = climate["celsius"]?.objectValue {
            temperatureMin = celsius["min"]?.doubleValue ?? temperatureMin
            temperatureMax = celsius["max"]?.doubleValue ?? temperatureMax
            temperatureStep = celsius["step"]?.doubleValue ?? temperatureStep
        }
        fanSpeedLevels = climate["fanSpeedLevels"]?.intValue ?? 0
        defrosters = (vehicle["defrosters"]?.arrayValue ?? []).compactMap(\.stringValue)
        stations = (vehicle["radio"]?.objectValue?["stations"]?.arrayValue ?? []).compactMap { station in
            guard let object = station.objectValue, let band = object["type"]?.stringValue,
                let frequency = object["frequency"]?.doubleValue, let name = object["name"]?.stringValue
            else { return nil }
            return Station(band: band, frequency: frequency, name: name)
        }
    }

    /// The station on `band` at `frequency`, if the profile names one.
    func station(band: String, frequency: Double) -> String? {
        stations.first { $0.band == band && abs($0.frequency - frequency) < 1e-6 }?.name
    }

    func seat(named name: String) -> Seat? { seats.first { $0.name == name } }

    /// The seats the dash can select: those with a feature.
    var selectableSeats: [Seat] { seats.filter(\.hasFeatures) }
}
