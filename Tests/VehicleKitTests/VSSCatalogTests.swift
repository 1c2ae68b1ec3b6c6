import Testing

@testable import VehicleKit

/// carplayd's properties by VSS path: which paths a car gets, and how its values read.
@Suite struct VSSCatalogTests {
    @Test func theSedanNamesItsSeatsAndStationsByRowAndDriverSide() throws {
        let catalog = VSSCatalog(profile: try ProfileFixture("sedan").load())
        let driverSeat = try #require(catalog.signal("Vehicle.Cabin.Seat.Row1.DriverSide.HeatingCooling"))
        #expect(driverSeat.keys == [.seat(.frontLeft, .heating), .seat(.frontLeft, .cooling)])
        #expect(driverSeat.entryType == .actuator)
        #expect(catalog.signal("Vehicle.Cabin.HVAC.Station.Row1.Driver.Temperature")?.keys == [.temperature(zone: "left")])
        #expect(catalog.signal("Vehicle.Powertrain.FuelSystem.RelativeLevel")?.entryType == .sensor)
        // Nothing the sedan does not bind.
        #expect(catalog.signal("Vehicle.Powertrain.TractionBattery.StateOfCharge.Current") == nil)
    }

    @Test func aRightHandDriveCarHasItsDriverOnTheRight() throws {
        var sedan = try ProfileFixture("sedan")
        try sedan.json(#""driverSide": "left""#, #""driverSide": "right""#)
        let catalog = VSSCatalog(profile: try sedan.load())
        #expect(catalog.signal("Vehicle.Cabin.Seat.Row1.DriverSide.HeatingCooling")?.keys.first == .seat(.frontRight, .heating))
        #expect(catalog.signal("Vehicle.Cabin.HVAC.Station.Row1.Driver.Temperature")?.keys == [.temperature(zone: "right")])
    }

    @Test func pathsAreUniqueAndTheOverlayIsMarked() {
        let paths = VSSCatalog.everything.signals.map(\.path)
        #expect(Set(paths).count == paths.count)
        let overlay = Set(VSSCatalog.everything.signals.filter(\.overlay).map(\.path))
        #expect(overlay.contains("Vehicle.Cabin.Infotainment.Media.Radio.Frequency"))
        #expect(overlay.contains("Vehicle.Cabin.CarProfile.ActiveSlot"))
        #expect(!overlay.contains("Vehicle.Cabin.HVAC.IsAirConditioningActive"))
    }

    @Test func valuesTakeVSSUnits() throws {
        let catalog = VSSCatalog.everything
        func read(_ path: String, _ state: [PropertyKey: PropertyValue]) throws -> VSSValue? {
            try #require(catalog.signal(path)).value(in: VehicleState(state))
        }
        #expect(try read("Vehicle.Powertrain.Range", [.distanceRemaining: .number(420.4)]) == .integer(420_400))
        #expect(try read("Vehicle.Powertrain.TractionBattery.Charging.TimeToComplete", [.minutesToFull: .integer(90)]) == .integer(5400))
        // The everything catalog has three fan levels and three seat levels.
        let fan = "Vehicle.Cabin.HVAC.Station.Row1.Driver.FanSpeed"
        #expect(try read(fan, [.fanSpeed: .integer(2), .fan: .bool(true)]) == .integer(67))
        #expect(try read(fan, [.fanSpeed: .integer(2), .fan: .bool(false)]) == .integer(0))
        let seat = "Vehicle.Cabin.Seat.Row1.DriverSide.HeatingCooling"
        #expect(try read(seat, [.seat(.frontLeft, .heating): .integer(3), .seat(.frontLeft, .cooling): .integer(0)]) == .integer(100))
        #expect(try read(seat, [.seat(.frontLeft, .heating): .integer(0), .seat(.frontLeft, .cooling): .integer(1)]) == .integer(-33))
        #expect(try read(seat, [.seat(.frontLeft, .heating): .integer(0)]) == .integer(0))
        let frequency = "Vehicle.Cabin.Infotainment.Media.Radio.Frequency"
        #expect(try read(frequency, [.radioFrequency: .number(1010), .radioBand: .enumeration("AM")]) == .integer(1_010_000))
        #expect(try read(frequency, [.radioFrequency: .number(101.1), .radioBand: .enumeration("FM")]) == .integer(101_100_000))
        let source = "Vehicle.Cabin.Infotainment.Media.Played.Source"
        #expect(try read(source, [.audioSource: .enumeration("sourceRadio"), .radioBand: .enumeration("satellite")]) == .string("SIRIUS_XM"))
        #expect(try read(source, [.audioSource: .enumeration("sourceCarPlay")]) == .string("CARPLAY"))
        #expect(try read("Vehicle.Cabin.HVAC.IsRecirculationActive", [.airCirculation: .enumeration("recirculateAir")]) == .bool(true))
        // Not reported yet: no value.
        #expect(try read("Vehicle.Powertrain.Range", [:]) == nil)
    }

    @Test func aValueMustFitTheDatatypeTheRangeAndTheAllowedValues() throws {
        let catalog = VSSCatalog.everything
        let seat = try #require(catalog.signal("Vehicle.Cabin.Seat.Row1.DriverSide.HeatingCooling"))
        #expect(throws: VSSActuationError.invalidValue("-101 is below the minimum -100")) { try seat.check(.integer(-101)) }
        #expect(throws: VSSActuationError.invalidValue("expected int8, found a number")) { try seat.check(.number(1.5)) }
        #expect(throws: VSSActuationError.invalidValue("300 is outside int8's -128...127")) { try seat.check(.integer(300)) }
        try seat.check(.integer(-40))
        let source = try #require(catalog.signal("Vehicle.Cabin.Infotainment.Media.Played.Source"))
        #expect(throws: VSSActuationError.self) { try source.check(.string("CASSETTE")) }
        try source.check(.string("CARPLAY"))
    }
}
