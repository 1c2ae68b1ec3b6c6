import CANKit
import CarplayJSON
import Foundation
import TestSupport
import Testing

@testable import VehicleKit

/// A profile from a KUKSA CAN provider mapping: what is taken, what is not and why, and
/// that what is written loads.
@Suite struct KuksaMappingTests {
    static func outcome() throws -> KuksaMapping.Outcome {
        let mapping = Array(try Data(contentsOf: TestPaths.repository("Tests/Fixtures/kuksa/sedan_vss_dbc.json")))
        let dbc = Array(try Data(contentsOf: TestPaths.repository("VehicleProfiles/sedan/sedan.dbc")))
        let entries = try KuksaMapping.entries(mapping, file: "sedan_vss_dbc.json")
        let database = try DBCDatabase(parsing: String(decoding: dbc, as: UTF8.self))
        return KuksaMapping.profile(entries, database: database, dbcFile: "sedan.dbc", bytes: dbc, name: "Imported")
    }

    @Test func eachEntryIsTakenOrSaysWhyNot() throws {
        let outcome = try Self.outcome()
        #expect(outcome.found == 7)
        #expect(
            Dictionary(uniqueKeysWithValues: outcome.taken.map { ($0.path, "\($0.key.rawValue) \($0.message).\($0.signal)") }) == [
                "Vehicle.Cabin.Door.Row1.DriverSide.IsLocked": "lock.locked BodyStatus.Lock",
                "Vehicle.Cabin.HVAC.IsFrontDefrosterActive": "defroster.front ClimateStatus.DefrostFront",
                // TargetTempLeft is in the request too: the cyclic status is the one read.
                "Vehicle.Cabin.HVAC.Station.Row1.Driver.Temperature": "climate.temperature.frontLeft ClimateStatus.TargetTempLeft",
                "Vehicle.Powertrain.FuelSystem.RelativeLevel": "power.fuelPercent PowerStatus.FuelLevel",
            ])
        let why = Dictionary(uniqueKeysWithValues: outcome.notTaken.map { ($0.path, $0.reason) })
        #expect(why["Vehicle.Cabin.Door.Row1.DriverSide.IsOpen"]?.contains("no property for this VSS path") == true)
        #expect(why["Vehicle.Cabin.HVAC.Station.Row1.Driver.FanSpeed"]?.contains("math \"floor(x*100/7)\"") == true)
        #expect(why["Vehicle.Powertrain.FuelSystem.Range"] == "signal NoSuchSignal is in no message of the DBC")
    }

    @Test func theProfileLoadsWithTheMappingsTables() throws {
        let outcome = try Self.outcome()
        let dbc = Array(try Data(contentsOf: TestPaths.repository("VehicleProfiles/sedan/sedan.dbc")))
        let files = ["imported/profile.json": Array(outcome.json.serialized().utf8), "imported/sedan.dbc": dbc]
        let profile = try ProfileLoader.load(directory: "imported") { files[$0] }
        let lock = try #require(profile.bindings[.locked])
        #expect(lock.command == nil, "imported bindings are read-only")
        #expect(lock.statusValues.values["true"] == [.choice("Locked")])
        #expect(profile.climate?.zones.map(\.id) == ["frontLeft"])
    }

    /// KUKSA's published mappings (for VSS 3 and 4) read the outside temperature as
    /// OBD.AmbientAirTemperature, a branch VSS 5 deprecates: it is the same quantity.
    @Test func anOBDPathIsTakenAsTheStandardPathOfTheSameQuantity() throws {
        let dbc = Array(
            """
            VERSION ""
            BU_: CAR
            BO_ 640 Ambient: 8 CAR
             SG_ AmbientTempFiltered : 0|8@1+ (0.5,-40) [-40|87.5] "C" CAR
            BA_DEF_ BO_ "GenMsgCycleTime" INT 0 65535;
            BA_ "GenMsgCycleTime" BO_ 640 1000;
            """.utf8)
        let mapping = Array(
            #"{"Vehicle":{"children":{"OBD":{"children":{"AmbientAirTemperature":{"datatype":"float","unit":"celsius","dbc2vss":{"signal":"AmbientTempFiltered"}}}}}}}"#
                .utf8)
        let entries = try KuksaMapping.entries(mapping, file: "vss_dbc.json")
        let database = try DBCDatabase(parsing: String(decoding: dbc, as: UTF8.self))
        let outcome = KuksaMapping.profile(entries, database: database, dbcFile: "car.dbc", bytes: dbc, name: "Imported")
        #expect(outcome.notTaken.isEmpty, "\(outcome.notTaken)")
        let taken = try #require(outcome.taken.first)
        #expect(taken.path == "Vehicle.OBD.AmbientAirTemperature")
        #expect(taken.key == .outsideTemperature)
        #expect(taken.how.contains("as Vehicle.Exterior.AirTemperature"), "\(taken.how)")
        let files = ["imported/profile.json": Array(outcome.json.serialized().utf8), "imported/car.dbc": dbc]
        let profile = try ProfileLoader.load(directory: "imported") { files[$0] }
        #expect(profile.bindings[.outsideTemperature] != nil)
    }

    @Test func aMalformedMappingNamesWhere() {
        #expect(throws: JSONContentError.self) { try KuksaMapping.entries(Array(#"{"Vehicle": {"children": "#.utf8), file: "m.json") }
        do {
            _ = try KuksaMapping.entries(
                Array(#"{"Vehicle":{"children":{"Speed":{"dbc2vss":{"signal":"S","transform":{"mapping":[{"from":true,"to":1}]}}}}}}"#.utf8), file: "m.json")
            Issue.record("a mapping from a boolean was taken")
        } catch {
            #expect(error.file == "m.json")
            #expect(error.path.contains("mapping[0]"), "\(error)")
        }
    }
}
