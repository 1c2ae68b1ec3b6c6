import CarplayClient
import CarplayProtocol

/// What the dash draws, from the daemon's `Describe`: only what the profile has.
package struct DashVehicle: Sendable, Equatable {
    package struct Zone: Sendable, Equatable {
        /// The zone's name in the state keys (`climate.temperature.ID`).
        var id: String
        /// Its seats, front first; the first is the zone's name in an intent (climateZone).
        var seats: [String]
    }

    /// A seat's features: the highest level of each, 0 for none.
    package struct Seat: Sendable, Equatable {
        var name: String
        var heating = 0
        var cooling = 0
        var massage = 0
        var hasFeatures: Bool { heating + cooling + massage > 0 }
    }

    package var name: String
    package var zones: [Zone]
    package var seats: [Seat]
    package var driverSide: String?
    package var temperatureMin = 16.0
    package var temperatureMax = 28.0
    package var temperatureStep = 0.5
    package var fanSpeedLevels = 0
    package var defrosters: [String]
    /// The state keys the profile binds.
    package var properties: Set<String>
    /// Named stations: band, frequency, name (to name what the radio plays).
    package var stations: [Station] = []

    package struct Station: Sendable, Equatable {
        var band: String
        var frequency: Double
        var name: String
    }

    package init(
        name: String, zones: [Zone], seats: [Seat], driverSide: String? = nil, fanSpeedLevels: Int = 0, defrosters: [String] = [], properties: Set<String>
    ) {
        self.name = name
        self.zones = zones
        self.seats = seats
        self.driverSide = driverSide
        self.fanSpeedLevels = fanSpeedLevels
        self.defrosters = defrosters
        self.properties = properties
    }

    /// From Describe's `vehicle`; members it lacks mean the car lacks them.
    package init(describe vehicle: VehicleDescription) {
        name = vehicle.name
        properties = Set(vehicle.properties)
        zones = (vehicle.climate?.zones ?? []).map { Zone(id: $0.id, seats: $0.seats.map(\.rawValue)) }
        // A profile without a zone list still has its temperature keys.
        if zones.isEmpty {
            zones = properties.filter { $0.hasPrefix("climate.temperature.") }.sorted()
                .map { Zone(id: String($0.dropFirst("climate.temperature.".count)), seats: []) }
        }
        seats = vehicle.seats.map { Seat(name: $0.seat.rawValue, heating: $0.heating, cooling: $0.cooling, massage: $0.massage) }
        driverSide = vehicle.driverSide.rawValue
        if let celsius = vehicle.climate?.celsius {
            temperatureMin = celsius.min
            temperatureMax = celsius.max
            temperatureStep = celsius.step
        }
        fanSpeedLevels = vehicle.climate?.fanSpeedLevels ?? 0
        defrosters = vehicle.defrosters.map(\.rawValue)
        // Stations on a channel (DAB, satellite) are not named by frequency.
        stations = (vehicle.radio?.stations ?? []).compactMap { station in
            station.frequency.map { Station(band: station.type.rawValue, frequency: $0, name: station.name) }
        }
    }

    /// The station on `band` at `frequency`, if the profile names one.
    package func station(band: String, frequency: Double) -> String? {
        stations.first { $0.band == band && abs($0.frequency - frequency) < 1e-6 }?.name
    }

    package func seat(named name: String) -> Seat? { seats.first { $0.name == name } }

    /// The seats the dash can select: those with a feature.
    package var selectableSeats: [Seat] { seats.filter(\.hasFeatures) }
}
