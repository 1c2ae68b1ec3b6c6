import CANKit
import VehicleKit

/// A drive state the car cannot take: the parameter and why.
public struct DriveStateError: Error, Sendable, Hashable, CustomStringConvertible {
    public var parameter: String
    public var reason: String
    public var description: String { "\(parameter): \(reason)" }
}

/// The energy model: sizes and consumption from the profile's `power` section, else
/// `SimulationDynamics`' defaults. Plugged in, the battery gains the connector's power
/// (its `maximumPowerKW`, no taper) until full; driving, it loses `consumption` per 100 km
/// at the speed given (a car with both drains the battery to its reserve first, then
/// fuel), and stops when both are empty. Ranges are what is left above the reserve at
/// that consumption. Only the properties the profile binds are written.
struct DrivetrainModel {
    var hasBattery: Bool
    var hasFuel: Bool
    var capacity: Double
    var reserve: Double
    var consumption: Double
    var tank: Double
    var fuelConsumption: Double

    init(_ profile: VehicleProfile, _ dynamics: SimulationDynamics) {
        let power = profile.power
        hasBattery = power.battery
        hasFuel = power.fuel
        capacity = power.batteryCapacityKWh ?? dynamics.batteryCapacityKWh
        reserve = min(power.minimumBatteryCapacityKWh ?? 0, capacity)
        consumption = power.consumptionKWhPer100Km ?? dynamics.consumptionKWhPer100Km
        tank = power.fuelTankLiters ?? dynamics.fuelTankLiters
        fuelConsumption = power.fuelConsumptionLitersPer100Km ?? dynamics.fuelConsumptionLitersPer100Km
    }

    func electricRange(energy: Double) -> Double { max(0, energy - reserve) / consumption * 100 }
    func fuelRange(liters: Double) -> Double { max(0, liters) / fuelConsumption * 100 }

    /// The derived properties of a charge (percent) and a fuel level (percent).
    func derived(charge: Double?, fuel: Double?) -> [PropertyKey: PropertyValue] {
        var values: [PropertyKey: PropertyValue] = [:]
        var range = 0.0
        var maximum = 0.0
        if hasBattery, let charge {
            let energy = capacity * charge / 100
            let electric = electricRange(energy: energy)
            let full = electricRange(energy: capacity)
            values[.currentBatteryCapacity] = .number(energy)
            values[.maximumBatteryCapacity] = .number(capacity)
            values[.minimumBatteryCapacity] = .number(reserve)
            values[.distanceRemainingElectric] = .number(electric)
            values[.maximumDistanceElectric] = .number(full)
            range += electric
            maximum += full
        }
        if hasFuel, let fuel {
            let remaining = fuelRange(liters: tank * fuel / 100)
            let full = fuelRange(liters: tank)
            values[.distanceRemainingFuel] = .number(remaining)
            values[.maximumDistanceFuel] = .number(full)
            range += remaining
            maximum += full
        }
        if !values.isEmpty {
            values[.distanceRemaining] = .number(range)
            values[.maximumDistance] = .number(maximum)
        }
        return values
    }
}

extension VehicleSimulation {
    /// The charging power of `connector` on this car, kW.
    public func chargingPower(_ connector: ChargingConnectorType) -> Double {
        profile.car.chargingConnectors.first { $0.type == connector }?.maximumPowerKilowatts ?? dynamics.chargingPowerKW
    }

    /// Plugs in (`connector`), unplugs (`connector` nil) or drives at `speedKmh` (0 stops),
    /// from `now` on: what elapsed before counts under the previous drive state. Returns
    /// the status frames of the properties that changed (the connector, charging).
    public mutating func setDriveState(_ drive: DriveState, at now: Duration) throws(DriveStateError) -> [CANFrame] {
        if let connector = drive.connector {
            guard profile.power.battery else { throw DriveStateError(parameter: "connector", reason: "\(profile.displayName) has no battery to charge") }
            guard profile.car.chargingConnectors.contains(where: { $0.type == connector }) else {
                let known = profile.car.chargingConnectors.map(\.type.rawValue)
                throw DriveStateError(
                    parameter: "connector",
                    reason: "\(profile.displayName) has no \(connector.rawValue) connector (it has: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
            }
            guard drive.speedKmh == 0 else { throw DriveStateError(parameter: "speedKmh", reason: "a car that is plugged in does not drive (unplug it first)") }
        }
        guard drive.speedKmh.isFinite, drive.speedKmh >= 0, drive.speedKmh <= 400 else {
            throw DriveStateError(parameter: "speedKmh", reason: "km/h from 0 to 400, not \(drive.speedKmh.plainText())")
        }
        guard profile.power.battery || profile.power.fuel || drive.speedKmh == 0 else {
            throw DriveStateError(parameter: "speedKmh", reason: "\(profile.displayName) reports neither fuel nor battery")
        }
        let now = advanceTime(now)
        let before = state
        // The time so far under the old drive state (its status frames follow at their cycle).
        _ = advancePhysics(to: now)
        self.drive = drive
        if state[.activeConnector] != nil { state[.activeConnector] = .enumeration(drive.connector?.rawValue ?? PropertyKey.noConnector) }
        if state[.charging] != nil {
            state[.charging] = .bool(drive.connector != nil && (state[.chargePercent]?.doubleValue ?? 100) < 100)
        }
        if drive.connector == nil, state[.minutesToFull] != nil, state[.charging] != .bool(true) { state[.minutesToFull] = .integer(0) }
        if let connector = drive.connector { updateMinutesToFull(power: chargingPower(connector)) }
        return transmitChanges(state.changes(from: before), at: now)
    }

    var drivetrainIsMoving: Bool {
        if drive.connector != nil { return state[.charging] == .bool(true) }
        return drive.speedKmh > 0
    }

    /// Charges or drives for `seconds` (called by `advancePhysics`).
    mutating func advanceDrivetrain(seconds: Double) {
        guard seconds > 0, drive.connector != nil || drive.speedKmh > 0 else { return }
        let model = DrivetrainModel(profile, dynamics)
        var charge = model.hasBattery ? state[.chargePercent]?.doubleValue : nil
        var fuel = model.hasFuel ? state[.fuelPercent]?.doubleValue : nil
        if let connector = drive.connector {
            guard let current = charge, current < 100 else {
                setIfBound(.charging, .bool(false))
                return
            }
            let power = chargingPower(connector)
            let energy = min(model.capacity, model.capacity * current / 100 + power * seconds / 3600)
            charge = energy / model.capacity * 100
            setIfBound(.chargePercent, .number(charge!))
            setIfBound(.charging, .bool(charge! < 100))
            updateMinutesToFull(power: power)
        } else {
            var kilometers = drive.speedKmh * seconds / 3600
            if let current = charge {
                let energy = model.capacity * current / 100
                let usable = max(0, energy - model.reserve)
                let used = min(usable, model.consumption * kilometers / 100)
                charge = (energy - used) / model.capacity * 100
                kilometers -= used / model.consumption * 100
                setIfBound(.chargePercent, .number(charge!))
            }
            if let current = fuel, kilometers > 0 {
                let liters = model.tank * current / 100
                let used = min(liters, model.fuelConsumption * kilometers / 100)
                fuel = (liters - used) / model.tank * 100
                kilometers -= used / model.fuelConsumption * 100
                setIfBound(.fuelPercent, .number(fuel!))
            }
            // Out of energy: the car rolls to a stop.
            if kilometers > 1e-9 { drive.speedKmh = 0 }
        }
        for (key, value) in model.derived(charge: charge, fuel: fuel) { setIfBound(key, value) }
    }

    private mutating func updateMinutesToFull(power: Double) {
        guard let charge = state[.chargePercent]?.doubleValue else { return }
        let model = DrivetrainModel(profile, dynamics)
        let missing = model.capacity * max(0, 100 - charge) / 100
        setIfBound(.minutesToFull, .integer(Int((missing / power * 60 - 1e-9).rounded(.up))))
    }

    /// Writes a property the car reports (its state holds it), never adds one.
    private mutating func setIfBound(_ key: PropertyKey, _ value: PropertyValue) {
        if state[key] != nil { state[key] = value }
    }

    /// The starting values of the drivetrain's derived properties (`defaultState`).
    static func drivetrainDefaults(for profile: VehicleProfile, charge: Double, fuel: Double) -> [PropertyKey: PropertyValue] {
        var values = DrivetrainModel(profile, .standard).derived(charge: charge, fuel: fuel)
        values[.activeConnector] = .enumeration(PropertyKey.noConnector)
        return values
    }
}
