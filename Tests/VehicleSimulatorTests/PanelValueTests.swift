import CarplayJSON
import Testing
import VehicleKit
import VehicleSimulator

/// The driver's own changes (`panelValues`): decoded by the key's kind as `--state` is,
/// checked against the car as a command is, each error naming its key.
@Suite struct PanelValueTests {
    static func simulation() throws -> VehicleSimulation { VehicleSimulation(profile: try TestVehicle.profile()) }

    static func check(_ values: [String: JSONValue]) throws -> Result<[PropertyKey: PropertyValue], PanelValueError> {
        try simulation().panelValues(values)
    }

    @Test func valuesOfTheKeysKindWithinTheCarAreTakenSnapped() throws {
        let checked = try Self.check(["climate.temperature.left": .number(19.2), "lock.locked": .bool(true), "climate.fanSpeed": .integer(5)])
        #expect(try checked.get() == ["climate.temperature.left": .number(19), "lock.locked": .bool(true), "climate.fanSpeed": .integer(5)])
        // An integer is a number of a number key, as in a --state file.
        #expect(try Self.check(["climate.temperature.left": .integer(19)]).get() == ["climate.temperature.left": .number(19)])
    }

    @Test func errorsNameTheKey() throws {
        func error(_ values: [String: JSONValue]) throws -> PanelValueError? {
            if case let .failure(error) = try Self.check(values) { return error }
            return nil
        }
        #expect(
            try error(["climate.temprature.left": .number(19)])
                == PanelValueError(key: "climate.temprature.left", reason: "unknown property (VehicleProfiles/README.md lists them)"))
        #expect(try error(["lock.locked": .integer(3)]) == PanelValueError(key: "lock.locked", reason: "expected true or false, found 3"))
        #expect(try error(["climate.temperature.left": .string("warm")])?.reason == "expected a number, found \"warm\"")
        #expect(try error(["climate.temperature.left": .number(35)]) == PanelValueError(key: "climate.temperature.left", reason: "35.0 outside 16...28"))
        #expect(try error(["climate.fanSpeed": .integer(9)])?.reason == "9 outside 1...7")
        // Bound by no signal of this car.
        #expect(try error(["defroster.rear": .bool(true)])?.reason == "this car has no such property (the profile binds no signal to it)")
        // Bound, but the car has no such seat (the command path's "notAvailable").
        #expect(try error(["seat.frontLeft.heating": .integer(1)])?.key == "seat.frontLeft.heating")
        #expect(try error([:])?.key == "")
        // All or nothing: one bad value refuses the call.
        #expect(try error(["lock.locked": .bool(true), "climate.fanSpeed": .integer(0)])?.key == "climate.fanSpeed")
    }

    @Test func statusOnlyPropertiesHaveTheirOwnRanges() throws {
        // No command sets them; the rig does (the sun heats the cabin, the fuel falls).
        #expect(try Self.check(["climate.cabinTemperature": .number(30)]).get() == ["climate.cabinTemperature": .number(30)])
        #expect(
            try Self.check(["climate.cabinTemperature": .number(90)])
                == .failure(PanelValueError(key: "climate.cabinTemperature", reason: "outside -40...85 °C")))
        // Not bound by the test car.
        #expect(
            try Self.check(["power.fuelPercent": .number(40)])
                == .failure(PanelValueError(key: "power.fuelPercent", reason: "this car has no such property (the profile binds no signal to it)")))
    }
}
