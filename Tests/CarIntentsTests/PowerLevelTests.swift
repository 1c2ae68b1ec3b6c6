import CANKit
import CarplayJSON
import Testing

@testable import CarIntents
@testable import VehicleKit

/// `PowerLevel`: every member of INGetCarPowerLevelStatusIntentResponse from the state,
/// the profile's power facts and the newest power frame's time. Its JSON form:
/// CarplayProtocolTests' IntentResponseWireTests.
@Suite struct PowerLevelTests {
    static let electric: PowerCapabilities = {
        var power = PowerCapabilities(fuel: false, battery: true)
        power.batteryCapacityKWh = 90
        power.minimumBatteryCapacityKWh = 3
        power.consumptionFormulaArguments = ["vehicleMassKg": 2150]
        power.chargingFormulaArguments = ["taperStartPercent": 80]
        return power
    }()

    static let full = VehicleState([
        .chargePercent: .number(80), .charging: .bool(true), .minutesToFull: .integer(45), .fuelPercent: .number(50),
        .distanceRemaining: .number(312.5), .maximumDistance: .number(600), .currentBatteryCapacity: .number(72),
        .maximumBatteryCapacity: .number(88.5), .minimumBatteryCapacity: .number(2.5), .activeConnector: .enumeration("ccs2"),
    ])

    static let stamp = CandumpTimestamp(seconds: 1_700_000_000, microseconds: 250_000)

    static func km(_ value: Double) -> Quantity { Quantity(value: value, unit: .kilometers) }
    static func kWh(_ value: Double) -> Quantity { Quantity(value: value, unit: .kilowattHours) }

    @Test func everyFieldOfAnElectricCar() throws {
        let level = try #require(PowerLevel(state: Self.full, power: Self.electric, carIdentifier: "car-1", lastUpdate: Self.stamp))
        var expected = PowerLevel()
        expected.carIdentifier = "car-1"
        expected.chargePercentRemaining = 0.8
        expected.charging = true
        expected.minutesToFull = 45
        expected.distanceRemaining = Self.km(312.5)
        expected.distanceRemainingElectric = Self.km(312.5)
        expected.maximumDistance = Self.km(600)
        expected.maximumDistanceElectric = Self.km(600)
        expected.currentBatteryCapacity = Self.kWh(72)
        expected.maximumBatteryCapacity = Self.kWh(88.5)
        expected.minimumBatteryCapacity = Self.kWh(2.5)
        expected.activeConnector = .ccs2
        expected.consumptionFormulaArguments = ["vehicleMassKg": 2150]
        expected.chargingFormulaArguments = ["taperStartPercent": 80]
        expected.dateOfLastStateUpdate = "2023-11-14T22:13:20.250Z"
        #expect(level == expected)
    }

    @Test func theProfileGivesWhatTheCarDoesNotSend() throws {
        let state = VehicleState([.chargePercent: .number(50), .activeConnector: .enumeration("none")])
        let level = try #require(PowerLevel(state: state, power: Self.electric, carIdentifier: "car-1", lastUpdate: nil))
        #expect(level.maximumBatteryCapacity == Self.kWh(90))
        #expect(level.minimumBatteryCapacity == Self.kWh(3))
        #expect(level.activeConnector == nil, "nothing plugged in")
        #expect(level.dateOfLastStateUpdate == nil, "no frame yet")
        #expect(level.currentBatteryCapacity == nil)
    }

    @Test func aHybridKeepsItsRangesApart() throws {
        var hybrid = PowerCapabilities(fuel: true, battery: true)
        hybrid.batteryCapacityKWh = 12
        var state = Self.full
        state[.distanceRemainingElectric] = .number(40)
        state[.distanceRemainingFuel] = .number(272.5)
        state[.maximumDistanceFuel] = .number(550)
        let level = try #require(PowerLevel(state: state, power: hybrid, carIdentifier: "h", lastUpdate: nil))
        #expect(level.fuelPercentRemaining == 0.5)
        #expect(level.distanceRemainingElectric == Self.km(40))
        #expect(level.distanceRemainingFuel == Self.km(272.5))
        #expect(level.maximumDistanceFuel == Self.km(550))
        #expect(level.maximumDistanceElectric == nil, "no signal, and the overall range is not all electric")
    }

    /// A plug-in hybrid that reports its fuel and electric ranges and no total: the total
    /// (`distanceRemaining`) is their sum, as the car's own display adds them; a total the
    /// car reports is kept as it is.
    @Test func aHybridsTotalRangeIsItsTwoRanges() throws {
        let hybrid = PowerCapabilities(fuel: true, battery: true)
        var state = VehicleState([.fuelPercent: .number(50), .chargePercent: .number(80)])
        state[.distanceRemainingElectric] = .number(40)
        state[.distanceRemainingFuel] = .number(272.5)
        state[.maximumDistanceElectric] = .number(50)
        state[.maximumDistanceFuel] = .number(550)
        let level = try #require(PowerLevel(state: state, power: hybrid, carIdentifier: "h", lastUpdate: nil))
        #expect(level.distanceRemaining == Self.km(312.5))
        #expect(level.maximumDistance == Self.km(600))
        state[.distanceRemaining] = .number(300)
        let reported = try #require(PowerLevel(state: state, power: hybrid, carIdentifier: "h", lastUpdate: nil))
        #expect(reported.distanceRemaining == Self.km(300))
        state[.distanceRemaining] = nil
        state[.distanceRemainingFuel] = nil
        let half = try #require(PowerLevel(state: state, power: hybrid, carIdentifier: "h", lastUpdate: nil))
        #expect(half.distanceRemaining == nil, "one range of two is no total")
    }

    /// A car that reports its range and neither level answers with the range alone.
    @Test func aRangeWithoutALevel() throws {
        let state = VehicleState([.distanceRemaining: .number(380)])
        let level = try #require(PowerLevel(state: state, power: PowerCapabilities(fuel: false, battery: false), carIdentifier: "h", lastUpdate: nil))
        var expected = PowerLevel()
        (expected.carIdentifier, expected.distanceRemaining) = ("h", Self.km(380))
        #expect(level == expected)
        let hyundai = try ShippedProfiles.load("hyundai-mcan")
        #expect(PowerLevel.readings(of: hyundai) == [.distanceRemaining])
        #expect(PowerLevel.readings(of: try ShippedProfiles.load("sedan")) == [.fuelPercent], "a level first")
        #expect(PowerLevel.readings(of: try ShippedProfiles.load("ford-cgea")).isEmpty)
    }

    @Test func aFuelCarHasNoElectricFields() throws {
        let level = try #require(PowerLevel(state: Self.full, power: PowerCapabilities(fuel: true, battery: false), carIdentifier: "s", lastUpdate: nil))
        var expected = PowerLevel()
        (expected.carIdentifier, expected.fuelPercentRemaining) = ("s", 0.5)
        (expected.distanceRemaining, expected.maximumDistance) = (Self.km(312.5), Self.km(600))
        (expected.distanceRemainingFuel, expected.maximumDistanceFuel) = (Self.km(312.5), Self.km(600))
        #expect(level == expected)
    }

    @Test func noReadingIsNoResponse() {
        #expect(PowerLevel(state: VehicleState(), power: Self.electric, carIdentifier: "car-1", lastUpdate: Self.stamp) == nil)
    }
}
