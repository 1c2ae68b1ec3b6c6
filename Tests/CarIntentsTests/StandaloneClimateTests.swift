import Foundation
import Testing
import VehicleSimulator

@testable import CarIntents
@testable import VehicleKit

/// A climate control that sets no temperature: A/C, fan, recirculation, auto, the whole
/// car's on/off and a rear on/off of its own, and the defrosters, each a setpoint that
/// idles at NoRequest. No zones, no fan levels.
enum SwitchesCar {
    static let dbc = """
        VERSION ""
        BU_: HU ECU
        BO_ 256 ClimateRequest: 8 HU
         SG_ AC : 0|2@1+ (1,0) [0|3] "" ECU
         SG_ Fan : 2|2@1+ (1,0) [0|3] "" ECU
         SG_ Intake : 4|2@1+ (1,0) [0|3] "" ECU
         SG_ Auto : 6|2@1+ (1,0) [0|3] "" ECU
         SG_ Power : 8|2@1+ (1,0) [0|3] "" ECU
         SG_ RearPower : 10|2@1+ (1,0) [0|3] "" ECU
         SG_ DefrostFront : 12|2@1+ (1,0) [0|3] "" ECU
         SG_ DefrostRear : 14|2@1+ (1,0) [0|3] "" ECU
        BO_ 512 ClimateStatus: 8 ECU
         SG_ AC : 0|1@1+ (1,0) [0|1] "" HU
         SG_ Fan : 1|1@1+ (1,0) [0|1] "" HU
         SG_ Intake : 2|1@1+ (1,0) [0|1] "" HU
         SG_ Auto : 3|1@1+ (1,0) [0|1] "" HU
         SG_ Power : 4|1@1+ (1,0) [0|1] "" HU
         SG_ RearPower : 5|1@1+ (1,0) [0|1] "" HU
         SG_ DefrostFront : 6|1@1+ (1,0) [0|1] "" HU
         SG_ DefrostRear : 7|1@1+ (1,0) [0|1] "" HU
        VAL_ 256 AC 0 "Off" 1 "On" 3 "NoRequest" ;
        VAL_ 256 Fan 0 "Off" 1 "On" 3 "NoRequest" ;
        VAL_ 256 Intake 0 "Fresh" 1 "Recirculate" 3 "NoRequest" ;
        VAL_ 256 Auto 0 "Off" 1 "On" 3 "NoRequest" ;
        VAL_ 256 Power 0 "Off" 1 "On" 3 "NoRequest" ;
        VAL_ 256 RearPower 0 "Off" 1 "On" 3 "NoRequest" ;
        VAL_ 256 DefrostFront 0 "Off" 1 "On" 3 "NoRequest" ;
        VAL_ 256 DefrostRear 0 "Off" 1 "On" 3 "NoRequest" ;

        """

    static let climate = """
        {"airConditioner": true, "autoMode": true, "recirculation": true, "climateControl": true,
         "climateControlZones": [{"id": "rear", "seats": ["rearLeft", "rearRight"]}]}
        """

    /// A boolean setpoint on `signal`, reported by the status bit of the same name.
    static func flag(_ key: String, _ signal: String) -> String {
        """
        "\(key)": {
          "command": {"kind": "setpoint", "message": "ClimateRequest", "signal": "\(signal)", "idle": "NoRequest", "values": {"false": "Off", "true": "On"}},
          "status": {"message": "ClimateStatus", "signal": "\(signal)"}
        }
        """
    }

    static let bindings = [
        flag("climate.airConditioner", "AC"), flag("climate.fan", "Fan"), flag("climate.autoMode", "Auto"),
        flag("climate.climateControl", "Power"), flag("climate.climateControl.rear", "RearPower"),
        flag("defroster.front", "DefrostFront"), flag("defroster.rear", "DefrostRear"),
        """
        "climate.airCirculation": {
          "command": {"kind": "setpoint", "message": "ClimateRequest", "signal": "Intake", "idle": "NoRequest",
                      "values": {"freshAir": "Fresh", "recirculateAir": "Recirculate"}},
          "status": {"message": "ClimateStatus", "signal": "Intake", "values": {"freshAir": 0, "recirculateAir": 1}}
        }
        """,
    ]

    static func json(climate: String = climate, bindings: [String] = bindings) -> String {
        """
        {
          "schema": 2, "name": "Switches Car", "carNames": ["Switches"], "driverSide": "left", "dbc": "switches.dbc",
          "climate": \(climate),
          "defrosters": ["front", "rear"],
          "policies": {"confirmationTimeoutMs": 500},
          "messages": {"ClimateStatus": {"cycleTimeMs": 100}},
          "bindings": {\(bindings.joined(separator: ",\n"))}
        }
        """
    }

    static func load(json: String = json()) throws(ProfileError) -> VehicleProfile {
        let files = ["switches/profile.json": Array(json.utf8), "switches/switches.dbc": Array(dbc.utf8)]
        return try ProfileLoader.load(directory: "switches") { files[$0] }
    }

    static func error(_ json: String) -> ProfileError? {
        do {
            _ = try load(json: json)
            return nil
        } catch {
            return error
        }
    }
}

@Suite struct StandaloneClimateLoaderTests {
    @Test func loadsWithoutZonesTemperatureOrFanLevels() throws {
        let profile = try SwitchesCar.load()
        let climate = try #require(profile.climate)
        #expect(climate.zones.isEmpty && climate.celsius == nil && climate.fahrenheit == nil && climate.fanSpeedLevels == 0)
        #expect(climate.climateControlZones == [ClimateZone(id: "rear", seats: [.rearLeft, .rearRight])])
        #expect(profile.bindings.count == 8)
        let summary = ProfileSummary(profile).description
        for fragment in ["climate zones: 0 (no temperature)", "no fan levels, A/C, auto, recirculation, on/off, on/off per zone: rear (rearLeft, rearRight)"] {
            #expect(summary.contains(fragment), "summary lacks \(fragment):\n\(summary)")
        }
    }

    @Test func temperatureRangesNeedZones() throws {
        let climate = SwitchesCar.climate.replacingOccurrences(
            of: #""airConditioner": true"#,
            with: #""temperature": {"celsius": {"min": 16, "max": 28, "step": 0.5}, "fahrenheit": {"min": 61, "max": 82, "step": 1}}, "airConditioner": true"#)
        let problem = try #require(SwitchesCar.error(SwitchesCar.json(climate: climate)))
        #expect(problem.path == "climate.temperature" && problem.reason.contains("a car without climate zones sets no temperature"), "\(problem)")
        let zoned = climate.replacingOccurrences(of: #""temperature""#, with: #""zones": [{"id": "cabin", "seats": ["frontLeft"]}], "temperature""#)
        let missing = try #require(SwitchesCar.error(SwitchesCar.json(climate: zoned)))
        #expect(missing.path == #"bindings["climate.temperature.cabin"]"# && missing.reason.contains("missing binding"), "\(missing)")
    }

    @Test func aClimateControlZoneNeedsItsBindingAndNoOther() throws {
        let withoutRear = SwitchesCar.bindings.filter { !$0.contains("climate.climateControl.rear") }
        let missing = try #require(SwitchesCar.error(SwitchesCar.json(bindings: withoutRear)))
        #expect(missing.path == #"bindings["climate.climateControl.rear"]"#, "\(missing)")
        #expect(missing.reason.contains(#"a climate control zone "rear" (climate.climateControlZones)"#), "\(missing)")
        let front = SwitchesCar.bindings.map { $0.replacingOccurrences(of: "climate.climateControl.rear", with: "climate.climateControl.front") }
        let unknown = try #require(SwitchesCar.error(SwitchesCar.json(bindings: front)))
        #expect(unknown.path == #"bindings["climate.climateControl.front"]"# && unknown.reason.contains("no such capability"), "\(unknown)")
        let twice = SwitchesCar.climate.replacingOccurrences(of: #"["rearLeft", "rearRight"]}"#, with: #"["rearLeft"]}, {"id": "back", "seats": ["rearLeft"]}"#)
        let seat = try #require(SwitchesCar.error(SwitchesCar.json(climate: twice)))
        #expect(seat.path == "climate.climateControlZones[1].seats[0]" && seat.reason.contains("already in zone \"rear\""), "\(seat)")
    }
}

@Suite struct StandaloneClimateResolutionTests {
    /// Front temperature zones; the rear has a climate switch of its own and no temperature.
    static let frontZonesRearSwitch: VehicleProfile = {
        var profile = TestProfiles.sedan
        profile.climate?.zones = [ClimateZone(id: "left", seats: [.frontLeft]), ClimateZone(id: "right", seats: [.frontRight])]
        profile.climate?.climateControlZones = [ClimateZone(id: "rear", seats: [.rearLeft, .rearRight])]
        return profile
    }()

    @Test func theSwitchesServingTheSeats() throws {
        let climate = try #require(Self.frontZonesRearSwitch.climate)
        #expect(climate.climateControlKeys(serving: nil) == [.climateControl])
        #expect(climate.climateControlKeys(serving: [.rearLeft]) == [.climateControl(zone: "rear")])
        #expect(climate.climateControlKeys(serving: [.frontLeft]) == [.climateControl], "the whole car's switch serves the rest")
        #expect(climate.climateControlKeys(serving: [.frontLeft, .rearLeft]) == [.climateControl(zone: "rear"), .climateControl])
        var rearOnly = climate
        rearOnly.climateControl = false
        #expect(rearOnly.climateControlKeys(serving: nil) == [.climateControl(zone: "rear")])
        #expect(rearOnly.climateControlKeys(serving: [.frontLeft]).isEmpty)
    }

    @Test func climateOnAndOffPerZone() throws {
        let profile = Self.frontZonesRearSwitch
        let rear = try resolve(request("SetClimateSettingsInCar", #""enableClimateControl":false,"climateZone":"rearRight""#), profile)
        #expect(rear["climateZone"] == .success(["rear"]))
        #expect(rear.action == .set([.climateControl(zone: "rear"): .bool(false)]))
        let whole = try resolve(request("SetClimateSettingsInCar", #""enableClimateControl":false"#), profile)
        #expect(whole.action == .set([.climateControl: .bool(false)]))
        let driver = try resolve(request("SetClimateSettingsInCar", #""enableClimateControl":true,"climateZone":"driver""#), profile)
        #expect(driver["climateZone"] == .success(["left"]))
        #expect(driver.action == .set([.climateControl: .bool(true)]))
        // A rear temperature: the rear only has a switch.
        let warmer = try resolve(request("SetClimateSettingsInCar", #""temperature":{"value":22,"unit":"celsius"},"climateZone":"rear""#), profile)
        #expect(warmer["temperature"] == .unsupported(reason: "the Example Sedan has no temperature zone for the rear seats"))
        #expect(warmer.action == nil)
        // No switch at all for the seat.
        var rearOnly = profile
        rearOnly.climate?.climateControl = false
        let front = try resolve(request("SetClimateSettingsInCar", #""enableClimateControl":false,"climateZone":"passenger""#), rearOnly)
        #expect(front["enableClimateControl"] == .unsupported(reason: "the Example Sedan has no climate switch for the passenger seat"))
        rearOnly.climate?.climateControlZones = []
        let none = try resolve(request("SetClimateSettingsInCar", #""enableClimateControl":false"#), rearOnly)
        #expect(none["enableClimateControl"] == .unsupported(reason: "the Example Sedan has no climate control switch"))
    }

    /// Nothing of a car without zones is per zone: a climateZone is no reason to refuse.
    @Test func aCarWithoutZones() throws {
        var profile = TestProfiles.sedan
        profile.climate = ClimateCapabilities(
            zones: [], celsius: nil, fahrenheit: nil, fanSpeedLevels: 0, airConditioner: true, autoMode: false, recirculation: false, climateControl: false)
        let ac = try resolve(request("SetClimateSettingsInCar", #""enableAirConditioner":true,"climateZone":"driver""#), profile)
        #expect(ac["climateZone"] == .success([]))
        #expect(ac.action == .set([.airConditioner: .bool(true)]))
        let warm = try resolve(request("SetClimateSettingsInCar", #""temperature":{"value":22,"unit":"celsius"}"#), profile)
        #expect(warm["temperature"] == .unsupported(reason: "the Example Sedan cannot set a temperature"))
        #expect(warm.action == nil)
    }
}

/// The switches car, head unit and simulated vehicle: every capability commanded and
/// confirmed without a temperature zone.
@Suite struct StandaloneClimateEngineTests {
    static func start() async throws -> Rig {
        var profile = try SwitchesCar.load()
        profile.policies.confirmationTimeout = .seconds(2)
        return try await Rig.start(profile: profile)
    }

    @Test func everySwitchWithoutAZone() async throws {
        let rig = try await Self.start()
        try await stopping(rig) { rig in
            #expect(rig.vehicle.state()[.climateControl(zone: "rear")] == .bool(true), "the simulated car starts with its rear climate on")
            let climate = try await rig.perform(
                #"{"intent":"SetClimateSettingsInCar","parameters":{"enableAirConditioner":false,"enableFan":false,"airCirculationMode":"recirculateAir","enableAutoMode":true}}"#
            )
            #expect(climate.response.code == .success, "\(climate.response)")
            let state = rig.vehicle.state()
            #expect(state[.airConditioner] == .bool(false) && state[.fan] == .bool(false) && state[.autoMode] == .bool(true))
            #expect(state[.airCirculation] == .enumeration("recirculateAir"))
            let defrost = try await rig.perform(#"{"intent":"SetDefrosterSettingsInCar","parameters":{"enable":true,"defroster":"rear"}}"#)
            #expect(defrost.response.code == .success, "\(defrost.response)")
            #expect(rig.vehicle.state()[.defroster(.rear)] == .bool(true))
        }
    }

    @Test func theRearClimateSwitchThroughClimateZone() async throws {
        let rig = try await Self.start()
        try await stopping(rig) { rig in
            let rear = try await rig.perform(#"{"intent":"SetClimateSettingsInCar","parameters":{"enableClimateControl":false,"climateZone":"rearLeft"}}"#)
            #expect(rear.response.code == .success, "\(rear.response)")
            #expect(try rig.commands(rear, "ClimateRequest").map { [$0["RearPower"], $0["Power"]] } == [[0, 3]], "the rear switch only")
            #expect(rig.vehicle.state()[.climateControl(zone: "rear")] == .bool(false) && rig.vehicle.state()[.climateControl] == .bool(true))
            let whole = try await rig.perform(#"{"intent":"SetClimateSettingsInCar","parameters":{"enableClimateControl":false}}"#)
            #expect(whole.response.code == .success, "\(whole.response)")
            #expect(rig.vehicle.state()[.climateControl] == .bool(false))
            let driver = try await rig.perform(#"{"intent":"SetClimateSettingsInCar","parameters":{"enableClimateControl":true,"climateZone":"driver"}}"#)
            #expect(
                driver.resolution.parameters.first { $0.name == "climateZone" }?.result
                    == .unsupported(reason: "the Switches Car has no climate zone for the driver's seat"))
        }
    }
}
