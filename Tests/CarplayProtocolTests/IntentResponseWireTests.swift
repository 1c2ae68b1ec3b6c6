import CANKit
import CarIntents
import CarplayJSON
import Testing
import VehicleKit

@testable import CarplayProtocol

/// An intent's response as the daemon writes it (docs/io.carplayd.Vehicle.varlink,
/// CarIntentResponse and the intents' response types) and as a client reads it back.
@Suite struct IntentResponseWireTests {
    static func readBack(_ response: IntentResponse) throws -> IntentResponse {
        try IntentResponse(json: JSONNode(value: response.jsonValue, file: "test"))
    }

    @Test func aRefusalIsItsCodeAndReason() throws {
        let response = IntentRefusal.carLocked.response(for: .setClimateSettingsInCar)
        #expect(response.jsonValue.serialized() == #"{"code":"failure","reason":"carLocked"}"#)
        #expect(try Self.readBack(response) == response)
    }

    @Test func theSignalsActivated() throws {
        var response = IntentResponse(code: .success)
        response.signals = [.visible]
        #expect(response.jsonValue.serialized() == #"{"code":"success","signals":["visible"]}"#)
        #expect(try Self.readBack(response) == response)
    }

    /// Every member of GetCarPowerLevelStatus's response, flat beside the code.
    @Test func everyPowerLevelMemberOfAnElectricCar() throws {
        var power = PowerCapabilities(fuel: false, battery: true)
        power.batteryCapacityKWh = 90
        power.minimumBatteryCapacityKWh = 3
        power.consumptionFormulaArguments = ["vehicleMassKg": 2150]
        power.chargingFormulaArguments = ["taperStartPercent": 80]
        let state = VehicleState([
            .chargePercent: .number(80), .charging: .bool(true), .minutesToFull: .integer(45), .fuelPercent: .number(50),
            .distanceRemaining: .number(312.5), .maximumDistance: .number(600), .currentBatteryCapacity: .number(72),
            .maximumBatteryCapacity: .number(88.5), .minimumBatteryCapacity: .number(2.5), .activeConnector: .enumeration("ccs2"),
        ])
        var response = IntentResponse(code: .success)
        response.powerLevel = try #require(
            PowerLevel(state: state, power: power, carIdentifier: "car-1", lastUpdate: CandumpTimestamp(seconds: 1_700_000_000, microseconds: 250_000)))
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
        #expect(try Self.readBack(response) == response)
    }

    /// ListCars: INCar with each connector's maximum power under `maximumPower`.
    @Test func aCarFromItsProfile() throws {
        for name in ["sedan", "suv"] {
            let profile = try DescribeReplyTests.profile(name)
            var response = IntentResponse(code: .success)
            response.cars = [Car(profile, identifier: "carplayd-\(name)")]
            let car = try #require(response.jsonValue.objectValue?["cars"]?.arrayValue?.first?.objectValue)
            if name == "suv" {
                #expect(car["supportedChargingConnectors"] == ["ccs2", "mennekes"])
                #expect(car["maximumPower"] == ["ccs2": ["value": 150.0, "unit": "kilowatts"], "mennekes": ["value": 11.0, "unit": "kilowatts"]])
            } else {
                #expect(car["headUnit"] == ["bluetoothIdentifier": "00:1A:7D:DA:71:13", "iAP2Identifier": "carplayd-sedan-head-unit"])
                #expect(car["supportedChargingConnectors"] == [])
                #expect(car["maximumPower"] == nil)
            }
            #expect(try Self.readBack(response) == response)
        }
    }

    /// A member of another type is an error naming it; a member the interface does not
    /// declare is ignored (a newer daemon may add some).
    @Test func aWrongMemberIsNamed() throws {
        #expect(throws: JSONContentError(file: "test", path: #"cars[0].maximumPower["ccs2"]"#, reason: "expected kilowatts, found kilometers")) {
            try IntentResponse(
                json: JSONNode(
                    value: [
                        "code": "success",
                        "cars": [
                            [
                                "carIdentifier": "c", "displayName": "d", "supportedChargingConnectors": ["ccs2"],
                                "maximumPower": ["ccs2": ["value": 1, "unit": "kilometers"]],
                            ]
                        ],
                    ], file: "test"))
        }
        #expect(try IntentResponse(json: JSONNode(value: ["code": "success", "newMember": 1], file: "test")) == IntentResponse(code: .success))
    }
}
