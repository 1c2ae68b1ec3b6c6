import CANKit
import CarplayJSON
import Testing

@testable import CarIntents
@testable import VehicleKit

/// `PowerLevelResponse.fields`: every field of INGetCarPowerLevelStatusIntentResponse from
/// the state, the profile's power facts and the newest power frame's time.
@Suite struct PowerLevelResponseTests {
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

    @Test func everyFieldOfAnElectricCar() throws {
        let fields = try #require(PowerLevelResponse.fields(state: Self.full, power: Self.electric, carIdentifier: "car-1", lastUpdate: Self.stamp))
        let response = IntentResponse(code: .success, fields: fields)
        #expect(
            response.jsonValue.serialized() == """
                {"activeConnector":"ccs2","carIdentifier":"car-1","chargePercentRemaining":0.8,"charging":true,\
                "chargingFormulaArguments":{"taperStartPercent":80},"code":"success",\
                "consumptionFormulaArguments":{"vehicleMassKg":2150},\
                "currentBatteryCapacity":{"unit":"kilowattHours","value":72.0},\
                "dateOfLastStateUpdate":"2023-11-14T22:13:20.250Z",\
                "distanceRemaining":{"unit":"kilometers","value":312.5},\
                "distanceRemainingElectric":{"unit":"kilometers","value":312.5},\
                "maximumBatteryCapacity":{"unit":"kilowattHours","value":88.5},\
                "maximumDistance":{"unit":"kilometers","value":600.0},\
                "maximumDistanceElectric":{"unit":"kilometers","value":600.0},\
                "minimumBatteryCapacity":{"unit":"kilowattHours","value":2.5},"minutesToFull":45}
                """)
    }

    @Test func theProfileGivesWhatTheCarDoesNotSend() throws {
        let state = VehicleState([.chargePercent: .number(50), .activeConnector: .enumeration("none")])
        let fields = try #require(PowerLevelResponse.fields(state: state, power: Self.electric, carIdentifier: "car-1", lastUpdate: nil))
        #expect(fields["maximumBatteryCapacity"] == ["value": 90.0, "unit": "kilowattHours"])
        #expect(fields["minimumBatteryCapacity"] == ["value": 3.0, "unit": "kilowattHours"])
        #expect(fields["activeConnector"] == nil, "nothing plugged in")
        #expect(fields["dateOfLastStateUpdate"] == nil, "no frame yet")
        #expect(fields["currentBatteryCapacity"] == nil)
    }

    @Test func aHybridKeepsItsRangesApart() throws {
        var hybrid = PowerCapabilities(fuel: true, battery: true)
        hybrid.batteryCapacityKWh = 12
        var state = Self.full
        state[.distanceRemainingElectric] = .number(40)
        state[.distanceRemainingFuel] = .number(272.5)
        state[.maximumDistanceFuel] = .number(550)
        let fields = try #require(PowerLevelResponse.fields(state: state, power: hybrid, carIdentifier: "h", lastUpdate: nil))
        #expect(fields["fuelPercentRemaining"] == .number(0.5))
        #expect(fields["distanceRemainingElectric"] == ["value": 40.0, "unit": "kilometers"])
        #expect(fields["distanceRemainingFuel"] == ["value": 272.5, "unit": "kilometers"])
        #expect(fields["maximumDistanceFuel"] == ["value": 550.0, "unit": "kilometers"])
        #expect(fields["maximumDistanceElectric"] == nil, "no signal, and the overall range is not all electric")
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
        let fields = try #require(PowerLevelResponse.fields(state: state, power: hybrid, carIdentifier: "h", lastUpdate: nil))
        #expect(fields["distanceRemaining"] == ["value": 312.5, "unit": "kilometers"])
        #expect(fields["maximumDistance"] == ["value": 600.0, "unit": "kilometers"])
        state[.distanceRemaining] = .number(300)
        let reported = try #require(PowerLevelResponse.fields(state: state, power: hybrid, carIdentifier: "h", lastUpdate: nil))
        #expect(reported["distanceRemaining"] == ["value": 300.0, "unit": "kilometers"])
        state[.distanceRemaining] = nil
        state[.distanceRemainingFuel] = nil
        let half = try #require(PowerLevelResponse.fields(state: state, power: hybrid, carIdentifier: "h", lastUpdate: nil))
        #expect(half["distanceRemaining"] == nil, "one range of two is no total")
    }

    /// A car that reports its range and neither level answers with the range alone.
    @Test func aRangeWithoutALevel() throws {
        let state = VehicleState([.distanceRemaining: .number(380)])
        let fields = try #require(
            PowerLevelResponse.fields(state: state, power: PowerCapabilities(fuel: false, battery: false), carIdentifier: "h", lastUpdate: nil))
        #expect(fields == ["carIdentifier": "h", "distanceRemaining": ["value": 380.0, "unit": "kilometers"]])
        let hyundai = try ShippedProfiles.load("hyundai-mcan")
        #expect(PowerLevelResponse.readings(of: hyundai) == [.distanceRemaining])
        #expect(PowerLevelResponse.readings(of: try ShippedProfiles.load("sedan")) == [.fuelPercent], "a level first")
        #expect(PowerLevelResponse.readings(of: try ShippedProfiles.load("ford-cgea")).isEmpty)
    }

    @Test func aFuelCarHasNoElectricFields() throws {
        let fields = try #require(
            PowerLevelResponse.fields(state: Self.full, power: PowerCapabilities(fuel: true, battery: false), carIdentifier: "s", lastUpdate: nil))
        #expect(
            Set(fields.keys) == [
                "carIdentifier", "fuelPercentRemaining", "distanceRemaining", "maximumDistance", "distanceRemainingFuel", "maximumDistanceFuel",
            ])
    }

    @Test func noReadingIsNoResponse() {
        #expect(PowerLevelResponse.fields(state: VehicleState(), power: Self.electric, carIdentifier: "car-1", lastUpdate: Self.stamp) == nil)
    }
}
