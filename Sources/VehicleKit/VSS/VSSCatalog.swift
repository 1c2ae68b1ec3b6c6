/// carplayd's vocabulary by COVESA Vehicle Signal Specification paths: VSS 5.1, and
/// carplayd's overlay (vss/carplayd.vspec) for what VSS lacks. One table, read by
/// io.carplayd.VSS, `carplayctl vss` and `status --vss`; vss-tools checks it against
/// the specification (IntegrationTests/support/vss).
///
/// A seat or a climate station is named by row and side: front seats are Row1, rear
/// Row2, third row Row3; the seat on the profile's driver side is DriverSide (a
/// station's Driver), the other PassengerSide. A climate zone serving two seats
/// answers on both stations' paths.
public struct VSSCatalog: Sendable {
    public static let release = "5.1"

    /// The signals, in path order.
    public let signals: [VSSSignal]
    private let byPath: [String: Int]

    public init(signals: [VSSSignal]) {
        self.signals = signals.sorted { $0.path < $1.path }
        byPath = Dictionary(self.signals.enumerated().map { ($0.element.path, $0.offset) }, uniquingKeysWith: { first, _ in first })
    }

    public func signal(_ path: String) -> VSSSignal? { byPath[path].map { signals[$0] } }

    /// What `profile`'s car binds: a signal is listed when the profile reads one of its
    /// keys, and is an actuator when the profile can command the first.
    public init(profile: VehicleProfile) {
        let rows = VSSRows(driverSide: profile.driverSide)
        let bound = Set(profile.bindings.keys)
        let commanded = Set(profile.bindings.filter { $0.value.command != nil }.keys)
        var signals: [VSSSignal] = []
        for template in Self.templates(climate: profile.climate, seats: profile.seats, rows: rows) where template.keys.contains(where: bound.contains) {
            signals.append(template.signal(actuator: template.actuatable && commanded.contains(template.keys[0])))
        }
        self.init(signals: signals)
    }

    /// Every path carplayd can map, whatever the car: every seat and station, the fan's
    /// levels and the seats' as a percentage; actuators as VSS declares them.
    public static let everything: VSSCatalog = {
        let rows = VSSRows(driverSide: .left)
        let seats = CarSeat.physical.map { SeatCapabilities(seat: $0, heating: 3, cooling: 3, massage: 3) }
        let zones = CarSeat.physical.map { ClimateZone(id: $0.rawValue, seats: [$0]) }
        let climate = ClimateCapabilities(
            zones: zones, celsius: nil, fahrenheit: nil, fanSpeedLevels: 3, airConditioner: true, autoMode: true, recirculation: true, climateControl: true,
            climateControlZones: zones)
        let all = templates(climate: climate, seats: seats, rows: rows)
        return VSSCatalog(signals: all.map { $0.signal(actuator: $0.actuatable) })
    }()

    static func templates(climate: ClimateCapabilities?, seats: [SeatCapabilities], rows: VSSRows) -> [Template] {
        let hvac = "Vehicle.Cabin.HVAC"
        var list: [Template] = []
        for zone in climate?.zones ?? [] {
            for seat in zone.seats {
                list.append(
                    Template(
                        "\(hvac).Station.\(rows.station(seat)).Temperature", .float, unit: "celsius", min: climate?.celsius?.min,
                        max: climate?.celsius?.max, keys: [.temperature(zone: zone.id)],
                        "Temperature set point of the climate zone serving this seat, within the car's range.", seat: seat))
            }
        }
        for zone in climate?.climateControlZones ?? [] {
            for seat in zone.seats {
                list.append(
                    Template(
                        "\(hvac).Station.\(rows.station(seat)).IsClimateControlActive", .boolean, keys: [.climateControl(zone: zone.id)],
                        "The climate zone serving this seat is switched on.", overlay: true, seat: seat))
            }
        }
        let levels = climate?.fanSpeedLevels ?? 0
        for station in ["Row1.Driver", "Row1.Passenger"] where levels > 0 {
            list.append(
                Template(
                    "\(hvac).Station.\(station).FanSpeed", .uint8, unit: "percent", min: 0, max: 100, keys: [.fanSpeed, .fan],
                    "Fan level as a percentage of the highest; 0 while the fan is off. One fan for the cabin.",
                    conversion: .levelPercent(levels: levels)))
        }
        list += [
            Template("\(hvac).IsFanActive", .boolean, keys: [.fan], "The blower runs.", overlay: true),
            Template("\(hvac).IsAirConditioningActive", .boolean, keys: [.airConditioner], "Air conditioning is on."),
            Template("\(hvac).IsAutoModeActive", .boolean, keys: [.autoMode], "Automatic climate control is on.", overlay: true),
            Template("\(hvac).IsClimateControlActive", .boolean, keys: [.climateControl], "The climate system is on.", overlay: true),
            Template(
                "\(hvac).IsRecirculationActive", .boolean, keys: [.airCirculation], "Cabin air is recirculated (not fresh air).",
                conversion: .recirculation),
            Template("\(hvac).IsFrontDefrosterActive", .boolean, keys: [.defroster(.front)], "The front defroster is on."),
            Template("\(hvac).IsRearDefrosterActive", .boolean, keys: [.defroster(.rear)], "The rear defroster is on."),
            Template(
                "\(hvac).AmbientAirTemperature", .float, unit: "celsius", keys: [.cabinTemperature], "Measured cabin air temperature.",
                sensor: true),
            Template("\(hvac).IsAutoDefogActive", .boolean, keys: [.autoDefog], "Automatic defogging is enabled.", overlay: true, sensor: true),
            Template(
                "Vehicle.Exterior.AirTemperature", .float, unit: "celsius", keys: [.outsideTemperature], "Measured outside air temperature.", sensor: true),
        ]
        for capability in seats {
            let seat = capability.seat
            if capability.heating > 0 || capability.cooling > 0 {
                list.append(
                    Template(
                        "Vehicle.Cabin.Seat.\(rows.seat(seat)).HeatingCooling", .int8, unit: "percent", min: -100, max: 100,
                        keys: [.seat(seat, .heating), .seat(seat, .cooling)],
                        "Heating (positive) or cooling (negative) level as a percentage of the seat's highest.", overlay: rows.isThirdRow(seat),
                        conversion: .heatingCooling(heating: capability.heating, cooling: capability.cooling), seat: seat))
            }
            if capability.massage > 0 {
                list.append(
                    Template(
                        "Vehicle.Cabin.Seat.\(rows.seat(seat)).MassageLevel", .uint8, unit: "percent", min: 0, max: 100, keys: [.seat(seat, .massage)],
                        "Massage level as a percentage of the seat's highest; 0 is off.", overlay: rows.isThirdRow(seat),
                        conversion: .zeroBasedPercent(levels: capability.massage), seat: seat))
            }
        }
        let media = "Vehicle.Cabin.Infotainment.Media"
        list += [
            Template(
                "\(media).Played.Source", .string, allowed: VSSNames.playedSources, keys: [.audioSource, .radioBand],
                "The audio source playing; the radio by its band.", conversion: .audioSource),
            Template(
                "\(media).Radio.Band", .string, allowed: ["AM", "FM", "HD", "SATELLITE", "DAB"], keys: [.radioBand], "The tuner's band.",
                overlay: true, conversion: .names(VSSNames.radioBand)),
            Template(
                "\(media).Radio.Frequency", .uint32, unit: "Hz", keys: [.radioFrequency, .radioBand], "The tuned frequency.", overlay: true,
                conversion: .radioFrequency),
            Template("\(media).Radio.Channel", .uint16, keys: [.radioChannel], "The satellite or DAB channel.", overlay: true),
            Template(
                "Vehicle.Cabin.Infotainment.HMI.TemperatureUnit", .string, allowed: ["C", "F"], keys: [.temperatureUnit],
                "The unit the car displays temperatures in.", sensor: true, conversion: .names(VSSNames.temperatureUnit)),
            Template(
                "Vehicle.Cabin.CarProfile.ActiveSlot", .uint8, keys: [.activeCarProfile], "The active saved car profile (SiriKit's), 0 for none.",
                overlay: true),
        ]
        for door in ["Row1.DriverSide", "Row1.PassengerSide", "Row2.DriverSide", "Row2.PassengerSide"] {
            list.append(Template("Vehicle.Cabin.Door.\(door).IsLocked", .boolean, keys: [.locked], "Locked by the central lock (all doors together)."))
        }
        let powertrain = "Vehicle.Powertrain"
        let battery = "\(powertrain).TractionBattery"
        list += [
            Template("Vehicle.Body.Horn.IsActive", .boolean, keys: [.signal(.audible)], "The horn sounds (set true: sound it once)."),
            Template("Vehicle.Body.Lights.Hazard.IsSignaling", .boolean, keys: [.signal(.visible)], "The lights flash (set true: flash them once)."),
            Template(
                "\(powertrain).FuelSystem.RelativeLevel", .uint8, unit: "percent", min: 0, max: 100, keys: [.fuelPercent], "Fuel level.",
                sensor: true),
            distance("\(powertrain).Range", .distanceRemaining, "Remaining range, all energy."),
            distance("\(powertrain).FuelSystem.Range", .distanceRemainingFuel, "Remaining range on fuel."),
            distance("\(battery).Range", .distanceRemainingElectric, "Remaining range on the battery."),
            distance("\(powertrain).MaximumRange", .maximumDistance, "Range when full, all energy.", overlay: true),
            distance("\(powertrain).FuelSystem.MaximumRange", .maximumDistanceFuel, "Range on a full tank.", overlay: true),
            distance("\(battery).MaximumRange", .maximumDistanceElectric, "Range on a full battery.", overlay: true),
            Template(
                "\(battery).StateOfCharge.Current", .float, unit: "percent", min: 0, max: 100, keys: [.chargePercent], "State of charge.",
                sensor: true),
            Template("\(battery).StateOfCharge.CurrentEnergy", .float, unit: "kWh", keys: [.currentBatteryCapacity], "Energy stored now.", sensor: true),
            Template("\(battery).NetCapacity", .uint16, unit: "kWh", keys: [.maximumBatteryCapacity], "Energy stored when full.", sensor: true),
            Template(
                "\(battery).ReserveEnergy", .float, unit: "kWh", keys: [.minimumBatteryCapacity], "Energy kept in reserve.", overlay: true,
                sensor: true),
            Template("\(battery).Charging.IsCharging", .boolean, keys: [.charging], "The battery is charging.", sensor: true),
            Template(
                "\(battery).Charging.TimeToComplete", .uint32, unit: "s", keys: [.minutesToFull], "Time until the battery is full.", sensor: true,
                conversion: .scaled(60)),
            Template(
                "\(battery).Charging.ActiveConnector", .string, allowed: ["NONE", "J1772", "CCS1", "CCS2", "CHADEMO", "GBT_AC", "GBT_DC", "TESLA", "MENNEKES"],
                keys: [.activeConnector], "The connector plugged in.", overlay: true, sensor: true, conversion: .names(VSSNames.connector)),
        ]
        return list
    }

    private static func distance(_ path: String, _ key: PropertyKey, _ description: String, overlay: Bool = false) -> Template {
        Template(path, .uint32, unit: "m", keys: [key], description, overlay: overlay, sensor: true, conversion: .scaled(1000))
    }

    /// A signal before the car says whether it can be commanded.
    struct Template {
        let path: String
        let datatype: VSSDatatype
        let unit: String?
        let min: Double?
        let max: Double?
        let allowed: [String]?
        let keys: [PropertyKey]
        let description: String
        let overlay: Bool
        /// False for what VSS or carplayd only reads.
        let actuatable: Bool
        let conversion: VSSConversion
        let seat: CarSeat?

        init(
            _ path: String, _ datatype: VSSDatatype, unit: String? = nil, min: Double? = nil, max: Double? = nil, allowed: [String]? = nil,
            keys: [PropertyKey], _ description: String, overlay: Bool = false, sensor: Bool = false, conversion: VSSConversion = .identity,
            seat: CarSeat? = nil
        ) {
            self.path = path
            self.datatype = datatype
            self.unit = unit
            self.min = min
            self.max = max
            self.allowed = allowed
            self.keys = keys
            self.description = description
            self.overlay = overlay
            actuatable = !sensor
            self.conversion = conversion
            self.seat = seat
        }

        func signal(actuator: Bool) -> VSSSignal {
            VSSSignal(
                path: path, datatype: datatype, entryType: actuator ? .actuator : .sensor, unit: unit, min: min, max: max, allowed: allowed,
                description: description, overlay: overlay, keys: keys, conversion: conversion, seat: seat)
        }
    }
}

/// Row and side of a physical seat, for a car whose driver sits on one side.
struct VSSRows {
    let driverSide: DriverSide

    private func row(_ seat: CarSeat) -> Int {
        switch seat {
        case .rearLeft, .rearRight: 2
        case .thirdRowLeft, .thirdRowRight: 3
        default: 1
        }
    }

    private func isDriverSide(_ seat: CarSeat) -> Bool {
        let left = seat == .frontLeft || seat == .rearLeft || seat == .thirdRowLeft
        return left == (driverSide == .left)
    }

    /// VSS 5.1 has two rows of seats; carplayd's overlay adds the third (its HVAC
    /// stations have three).
    func isThirdRow(_ seat: CarSeat) -> Bool { row(seat) == 3 }

    /// `Row1.DriverSide`.
    func seat(_ seat: CarSeat) -> String { "Row\(row(seat)).\(isDriverSide(seat) ? "DriverSide" : "PassengerSide")" }

    /// `Row1.Driver` (an HVAC station).
    func station(_ seat: CarSeat) -> String { "Row\(row(seat)).\(isDriverSide(seat) ? "Driver" : "Passenger")" }
}
