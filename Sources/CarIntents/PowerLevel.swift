import CANKit
import CarplayJSON
import VehicleKit

/// `INGetCarPowerLevelStatusIntentResponse`'s members (iOS 14), from the state, the
/// profile's `power` section and the time of the newest power status frame. A pure
/// function, so the whole response can be tested without a bus:
///
/// - `carIdentifier`: ListCars' (`INCar.carIdentifier`).
/// - `fuelPercentRemaining`, `chargePercentRemaining`: fractions 0.0…1.0 of the 0…100 state.
/// - `charging` (bool), `minutesToFull` (integer).
/// - `distanceRemaining`, `maximumDistance`, `distanceRemainingElectric`,
///   `distanceRemainingFuel`, `maximumDistanceElectric`, `maximumDistanceFuel`:
///   kilometers (SiriKit's `Measurement<UnitLength>`).
/// - `minimumBatteryCapacity`, `currentBatteryCapacity`, `maximumBatteryCapacity`:
///   kilowatt-hours (`Measurement<UnitEnergy>`); the minimum and
///   maximum from the profile when no status signal reports them.
/// - `activeConnector`: an `INCarChargingConnectorType` name; left out when nothing is
///   plugged in (the state's `none`).
/// - `consumptionFormulaArguments`, `chargingFormulaArguments`: the profile's objects.
/// - `dateOfLastStateUpdate`: the wall-clock stamp of the newest trusted status frame that
///   carried a power property, as ISO 8601 UTC text (`2026-12-01T14:24:13.250Z`;
///   SiriKit's `DateComponents`).
///
/// A car with both energies that reports no total range answers with the sum of its
/// fuel and electric ranges (a plug-in hybrid's display adds them).
///
/// Electric fields need `power.battery`, fuel fields `power.fuel`, as the profile says;
/// fields whose state is unknown are left out. A car with only one of the two reports
/// all its range in that one: its electric (or fuel) ranges are the overall ones when no
/// signal of their own reports them.
public struct PowerLevel: Sendable, Hashable {
    public var carIdentifier: String?
    public var fuelPercentRemaining: Double?
    public var chargePercentRemaining: Double?
    public var distanceRemaining: Quantity?
    public var charging: Bool?
    public var minutesToFull: Int?
    public var maximumDistance: Quantity?
    public var distanceRemainingElectric: Quantity?
    public var distanceRemainingFuel: Quantity?
    public var maximumDistanceElectric: Quantity?
    public var maximumDistanceFuel: Quantity?
    public var consumptionFormulaArguments: [String: JSONValue]?
    public var chargingFormulaArguments: [String: JSONValue]?
    public var dateOfLastStateUpdate: String?
    public var activeConnector: ChargingConnectorType?
    public var minimumBatteryCapacity: Quantity?
    public var currentBatteryCapacity: Quantity?
    public var maximumBatteryCapacity: Quantity?

    /// No member known: another intent's response.
    public init() {}

    /// The car's power level; nil when the state knows no power reading at all (the
    /// static facts alone say nothing of the car's power level).
    public init?(state: VehicleState, power: PowerCapabilities, carIdentifier: String, lastUpdate: CandumpTimestamp?) {
        func fraction(_ key: PropertyKey) -> Double? { state[key]?.doubleValue.map { min(max($0, 0), 100) / 100 } }
        func kilometers(_ key: PropertyKey, fallback: Double? = nil) -> Quantity? {
            (state[key]?.doubleValue ?? fallback).map { Quantity(value: $0, unit: .kilometers) }
        }
        func kilowattHours(_ key: PropertyKey, fallback: Double? = nil) -> Quantity? {
            (state[key]?.doubleValue ?? fallback).map { Quantity(value: $0, unit: .kilowattHours) }
        }
        // Both energies: a total the car does not report is its two ranges added, as a
        // plug-in hybrid's display adds them.
        func total(_ fuel: PropertyKey, _ electric: PropertyKey) -> Double? {
            guard power.fuel, power.battery, let fuel = state[fuel]?.doubleValue, let electric = state[electric]?.doubleValue else { return nil }
            return fuel + electric
        }
        distanceRemaining = kilometers(.distanceRemaining, fallback: total(.distanceRemainingFuel, .distanceRemainingElectric))
        maximumDistance = kilometers(.maximumDistance, fallback: total(.maximumDistanceFuel, .maximumDistanceElectric))
        // One energy only: its ranges are the car's.
        let only = power.fuel != power.battery
        let overall = only ? state[.distanceRemaining]?.doubleValue : nil
        let overallMaximum = only ? state[.maximumDistance]?.doubleValue : nil
        if power.fuel {
            fuelPercentRemaining = fraction(.fuelPercent)
            distanceRemainingFuel = kilometers(.distanceRemainingFuel, fallback: overall)
            maximumDistanceFuel = kilometers(.maximumDistanceFuel, fallback: overallMaximum)
        }
        if power.battery {
            chargePercentRemaining = fraction(.chargePercent)
            if case let .bool(isCharging)? = state[.charging] { charging = isCharging }
            minutesToFull = state[.minutesToFull]?.doubleValue.map { Int($0.rounded()) }
            distanceRemainingElectric = kilometers(.distanceRemainingElectric, fallback: overall)
            maximumDistanceElectric = kilometers(.maximumDistanceElectric, fallback: overallMaximum)
            currentBatteryCapacity = kilowattHours(.currentBatteryCapacity)
            if case let .enumeration(connector)? = state[.activeConnector], connector != PropertyKey.noConnector {
                activeConnector = ChargingConnectorType(rawValue: connector)
            }
        }
        // Everything so far is a reading; what follows may come from the profile alone.
        guard self != PowerLevel() else { return nil }
        if power.battery {
            minimumBatteryCapacity = kilowattHours(.minimumBatteryCapacity, fallback: power.minimumBatteryCapacityKWh)
            maximumBatteryCapacity = kilowattHours(.maximumBatteryCapacity, fallback: power.batteryCapacityKWh)
            consumptionFormulaArguments = power.consumptionFormulaArguments
            chargingFormulaArguments = power.chargingFormulaArguments
        }
        self.carIdentifier = carIdentifier
        dateOfLastStateUpdate = lastUpdate?.iso8601
    }

    /// The power properties' status frames: whose newest stamp is `dateOfLastStateUpdate`.
    public static func isPowerProperty(_ key: PropertyKey) -> Bool { key.rawValue.hasPrefix("power.") }

    /// What the car's power level is read from: the fuel and charge levels its `power`
    /// section says it has, else every power property it binds (a range without a level:
    /// the Hyundai's distance to empty). Empty: the car reports no power level at all.
    public static func readings(of profile: VehicleProfile) -> [PropertyKey] {
        var levels: [PropertyKey] = []
        if profile.power.fuel { levels.append(.fuelPercent) }
        if profile.power.battery { levels.append(.chargePercent) }
        return levels.isEmpty ? profile.bindings.keys.filter(isPowerProperty).sorted() : levels
    }
}

/// A measurement as SiriKit's responses carry it (`Measurement<UnitLength>`, ...): a
/// value in one of the units carplayd answers in.
public struct Quantity: Sendable, Hashable {
    public var value: Double
    public var unit: Unit

    public enum Unit: String, Sendable, Hashable, CaseIterable {
        case kilometers, kilowatts, kilowattHours
    }

    public init(value: Double, unit: Unit) {
        self.value = value
        self.unit = unit
    }
}
