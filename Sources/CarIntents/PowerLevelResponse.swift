import CANKit
import CarplayJSON
import VehicleKit

/// `INGetCarPowerLevelStatusIntentResponse` (iOS 14) in its JSON form, from the state, the
/// profile's `power` section and the time of the newest power status frame. A pure
/// function, so the whole response can be tested without a bus:
///
/// - `carIdentifier`: ListCars' (`INCar.carIdentifier`).
/// - `fuelPercentRemaining`, `chargePercentRemaining`: fractions 0.0…1.0 of the 0…100 state.
/// - `charging` (bool), `minutesToFull` (integer).
/// - `distanceRemaining`, `maximumDistance`, `distanceRemainingElectric`,
///   `distanceRemainingFuel`, `maximumDistanceElectric`, `maximumDistanceFuel`:
///   `{"value": km, "unit": "kilometers"}` (SiriKit's `Measurement<UnitLength>`).
/// - `minimumBatteryCapacity`, `currentBatteryCapacity`, `maximumBatteryCapacity`:
///   `{"value": kWh, "unit": "kilowattHours"}` (`Measurement<UnitEnergy>`); the minimum and
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
public enum PowerLevelResponse {
    public static let dateField = "dateOfLastStateUpdate"

    /// The response's fields; nil when the state knows no power reading at all (the
    /// static facts alone say nothing of the car's power level).
    public static func fields(
        state: VehicleState, power: PowerCapabilities, carIdentifier: String, lastUpdate: CandumpTimestamp?
    ) -> [String: JSONValue]? {
        var fields: [String: JSONValue] = [:]
        func fraction(_ key: PropertyKey, _ field: String) {
            if let percent = state[key]?.doubleValue { fields[field] = .number(min(max(percent, 0), 100) / 100) }
        }
        func measure(_ key: PropertyKey, _ field: String, unit: String, fallback: Double? = nil) {
            if let value = state[key]?.doubleValue ?? fallback { fields[field] = ["value": .number(value), "unit": .string(unit)] }
        }
        let kilometers = "kilometers"
        let kilowattHours = "kilowattHours"
        // Both energies: a total the car does not report is its two ranges added, as a
        // plug-in hybrid's display adds them.
        func total(_ fuel: PropertyKey, _ electric: PropertyKey) -> Double? {
            guard power.fuel, power.battery, let fuel = state[fuel]?.doubleValue, let electric = state[electric]?.doubleValue else { return nil }
            return fuel + electric
        }
        measure(.distanceRemaining, "distanceRemaining", unit: kilometers, fallback: total(.distanceRemainingFuel, .distanceRemainingElectric))
        measure(.maximumDistance, "maximumDistance", unit: kilometers, fallback: total(.maximumDistanceFuel, .maximumDistanceElectric))
        // One energy only: its ranges are the car's.
        let only = power.fuel != power.battery
        let overall = only ? state[.distanceRemaining]?.doubleValue : nil
        let overallMaximum = only ? state[.maximumDistance]?.doubleValue : nil
        if power.fuel {
            fraction(.fuelPercent, "fuelPercentRemaining")
            measure(.distanceRemainingFuel, "distanceRemainingFuel", unit: kilometers, fallback: overall)
            measure(.maximumDistanceFuel, "maximumDistanceFuel", unit: kilometers, fallback: overallMaximum)
        }
        if power.battery {
            fraction(.chargePercent, "chargePercentRemaining")
            if case let .bool(charging)? = state[.charging] { fields["charging"] = .bool(charging) }
            if let minutes = state[.minutesToFull]?.doubleValue { fields["minutesToFull"] = .integer(Int(minutes.rounded())) }
            measure(.distanceRemainingElectric, "distanceRemainingElectric", unit: kilometers, fallback: overall)
            measure(.maximumDistanceElectric, "maximumDistanceElectric", unit: kilometers, fallback: overallMaximum)
            measure(.currentBatteryCapacity, "currentBatteryCapacity", unit: kilowattHours)
            if case let .enumeration(connector)? = state[.activeConnector], connector != PropertyKey.noConnector {
                fields["activeConnector"] = .string(connector)
            }
        }
        // Everything so far is a reading; what follows may come from the profile alone.
        guard !fields.isEmpty else { return nil }
        if power.battery {
            measure(.minimumBatteryCapacity, "minimumBatteryCapacity", unit: kilowattHours, fallback: power.minimumBatteryCapacityKWh)
            measure(.maximumBatteryCapacity, "maximumBatteryCapacity", unit: kilowattHours, fallback: power.batteryCapacityKWh)
            if let arguments = power.consumptionFormulaArguments { fields["consumptionFormulaArguments"] = .object(arguments) }
            if let arguments = power.chargingFormulaArguments { fields["chargingFormulaArguments"] = .object(arguments) }
        }
        fields["carIdentifier"] = .string(carIdentifier)
        if let lastUpdate { fields[dateField] = .string(lastUpdate.iso8601) }
        return fields
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
