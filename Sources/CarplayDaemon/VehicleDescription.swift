import CarplayJSON
import VehicleKit

/// The profile as `Describe` returns it.
enum VehicleDescription {
    static func json(_ profile: VehicleProfile) -> JSONValue {
        var object: [String: JSONValue] = [
            "identifier": .string(profile.identifier),
            "name": .string(profile.displayName),
            "carNames": .array(profile.carNames.map { .string($0) }),
            "driverSide": .string(profile.driverSide.rawValue),
            "defrosters": .array(profile.defrosters.map { .string($0.rawValue) }),
            "seats": .array(
                profile.seats.map { seat in
                    .object([
                        "seat": .string(seat.seat.rawValue), "heating": .integer(seat.heating), "cooling": .integer(seat.cooling),
                        "massage": .integer(seat.massage),
                    ])
                }),
            "audioSources": .array(profile.audioSources.map { .string($0.rawValue) }),
            "profileSlots": .integer(profile.carProfileSlots),
            "lock": .bool(profile.hasLock),
            "carSignals": .array(profile.carSignals.map { .string($0.rawValue) }),
            "power": .object(["fuel": .bool(profile.power.fuel), "battery": .bool(profile.power.battery)]),
            "properties": .array(profile.bindings.keys.sorted().map { .string($0.rawValue) }),
            "policies": .object([
                "refusedWhileCarLocked": .array(profile.policies.refusedWhileCarLocked.sorted().map { .string($0) }),
                "confirmationTimeoutMs": .integer(
                    Int(
                        profile.policies.confirmationTimeout.components.seconds * 1000 + profile.policies.confirmationTimeout.components.attoseconds
                            / 1_000_000_000_000_000)),
            ]),
        ]
        if let climate = profile.climate {
            func zones(_ zones: [ClimateZone]) -> JSONValue {
                .array(zones.map { .object(["id": .string($0.id), "seats": .array($0.seats.map { .string($0.rawValue) })]) })
            }
            var members: [String: JSONValue] = [
                "zones": zones(climate.zones), "fanSpeedLevels": .integer(climate.fanSpeedLevels),
                "airConditioner": .bool(climate.airConditioner), "autoMode": .bool(climate.autoMode),
                "recirculation": .bool(climate.recirculation), "climateControl": .bool(climate.climateControl),
                "climateControlZones": zones(climate.climateControlZones),
            ]
            // No zones, no temperature: the ranges are left out.
            if let celsius = climate.celsius, let fahrenheit = climate.fahrenheit {
                members["celsius"] = range(celsius)
                members["fahrenheit"] = range(fahrenheit)
            }
            object["climate"] = .object(members)
        }
        if let radio = profile.radio {
            object["radio"] = .object([
                "bands": .array(
                    radio.bands.map { band in
                        .object([
                            "type": .string(band.type.rawValue), "min": .number(band.range.min), "max": .number(band.range.max),
                            "step": .number(band.range.step), "unit": .string(band.unit),
                        ])
                    }),
                "presets": .array(radio.presets.map { .object(["number": .integer($0.number), "station": station($0.station)]) }),
                "stations": .array(radio.stations.map(station)),
                "satelliteSubscribed": .bool(radio.satelliteSubscribed),
            ])
        }
        return .object(object)
    }

    private static func range(_ range: SteppedRange) -> JSONValue {
        .object(["min": .number(range.min), "max": .number(range.max), "step": .number(range.step)])
    }

    private static func station(_ station: RadioStation) -> JSONValue {
        var object: [String: JSONValue] = ["name": .string(station.name), "type": .string(station.type.rawValue)]
        if let frequency = station.frequency { object["frequency"] = .number(frequency) }
        if let channel = station.channel { object["channel"] = .integer(channel) }
        return .object(object)
    }
}
