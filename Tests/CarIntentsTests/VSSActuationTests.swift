import CarplayJSON
import Testing

@testable import CarIntents
@testable import VehicleKit

/// A VSS target becomes the SiriKit intent a client would send for it.
@Suite struct VSSActuationTests {
    func intent(_ path: String, _ value: VSSValue, state: [PropertyKey: PropertyValue] = [:]) throws -> Intent {
        let signal = try #require(VSSCatalog.everything.signal(path))
        return try signal.intent(setting: value, state: VehicleState(state))
    }

    func parameters(_ intent: Intent) -> [String: JSONValue] {
        Dictionary(uniqueKeysWithValues: intent.parameterValues.map { ($0.name, $0.value) })
    }

    @Test func aStationTemperatureSetsTheZoneOfItsSeat() throws {
        let set = try intent("Vehicle.Cabin.HVAC.Station.Row2.Passenger.Temperature", .number(22.5))
        #expect(set.name == .setClimateSettingsInCar)
        #expect(parameters(set)["climateZone"] == .string("rearRight"))
        #expect(parameters(set)["temperature"] == .object(["value": .number(22.5), "unit": .string("celsius")]))
    }

    @Test func percentagesBecomeLevels() throws {
        #expect(parameters(try intent("Vehicle.Cabin.HVAC.Station.Row1.Driver.FanSpeed", .integer(40)))["fanSpeedPercentage"] == .number(40))
        #expect(parameters(try intent("Vehicle.Cabin.HVAC.Station.Row1.Driver.FanSpeed", .integer(0)))["enableFan"] == .bool(false))
        // Three levels: -70 % is cooling level 2.
        let cool = parameters(try intent("Vehicle.Cabin.Seat.Row1.PassengerSide.HeatingCooling", .integer(-70)))
        #expect(cool["enableCooling"] == .bool(true) && cool["level"] == .integer(2) && cool["seat"] == .string("frontRight"))
        // A little is still level 1; 0 switches off what is on.
        #expect(parameters(try intent("Vehicle.Cabin.Seat.Row1.DriverSide.HeatingCooling", .integer(5)))["level"] == .integer(1))
        let off = parameters(try intent("Vehicle.Cabin.Seat.Row1.DriverSide.HeatingCooling", .integer(0), state: [.seat(.frontLeft, .cooling): .integer(2)]))
        #expect(off["enableCooling"] == .bool(false))
    }

    @Test func aFrequencyInHertzTakesTheBandsUnit() throws {
        let am = parameters(try intent("Vehicle.Cabin.Infotainment.Media.Radio.Frequency", .integer(880_000), state: [.radioBand: .enumeration("AM")]))
        #expect(am["frequency"] == .number(880) && am["radioType"] == .string("AM"))
        #expect(throws: VSSActuationError.self) { try intent("Vehicle.Cabin.Infotainment.Media.Radio.Frequency", .integer(101_100_000)) }
    }

    @Test func whatCannotBeCarriedOutIsRefusedByName() throws {
        #expect(throws: VSSActuationError.invalidValue("a momentary signal: set true to sound or flash once; it stops by itself")) {
            try intent("Vehicle.Body.Horn.IsActive", .bool(false))
        }
        #expect(throws: VSSActuationError.notActuatable("a sensor")) { try intent("Vehicle.Powertrain.Range", .integer(1)) }
        #expect(throws: VSSActuationError.invalidValue("expected boolean, found an integer")) {
            try intent("Vehicle.Cabin.HVAC.IsFrontDefrosterActive", .integer(1))
        }
        let horn = try intent("Vehicle.Body.Horn.IsActive", .bool(true))
        #expect(parameters(horn)["signals"] == .array([.string("audible")]))
        #expect(parameters(try intent("Vehicle.Cabin.Infotainment.Media.Played.Source", .string("DAB")))["audioSource"] == .string("sourceRadio"))
    }
}
