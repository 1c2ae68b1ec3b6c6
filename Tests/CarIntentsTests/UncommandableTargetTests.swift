import Foundation
import Testing
import VehicleKit

@testable import CarIntents

/// Resolve says what Handle can do: a setting the car takes no command for resolves
/// `unsupported` with the reason, and nothing is sent.
@Suite struct UncommandableTargetTests {
    /// The kinds car without fan levels: `climate.fan` is bound read-only, or not at all.
    static func profile(fan: String?) throws -> VehicleProfile {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(KindsCar.defaultBindings.utf8)) as? [String: Any])
        object["climate.fanSpeed"] = nil
        object["climate.fan"] = try fan.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) }
        let bindings = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        let json = KindsCar.json(bindings: bindings).replacingOccurrences(of: #""fanSpeedLevels": 7"#, with: #""fanSpeedLevels": 0"#)
        var profile = try KindsCar.load(json: json)
        profile.policies.confirmationTimeout = .seconds(2)
        return profile
    }

    /// Bug: with no fan binding, enableFan resolved `success` and Handle then failed
    /// `unencodable` ("climate.fan has no command signal in this vehicle").
    @Test(arguments: [
        (nil, "the Kinds Car has no fan switch"),
        (
            #"{"status": {"message": "ClimateStatus", "signal": "Blower", "values": {"false": 0}, "otherwise": true}}"#,
            "the Kinds Car reports climate.fan but takes no command for it on its bus"
        ),
    ])
    func enableFanOnACarThatCannotSwitchItsFan(_ fan: String?, _ reason: String) async throws {
        let rig = try await Rig.start(profile: try Self.profile(fan: fan))
        try await stopping(rig) { rig in
            let intent = try Intent(parsing: #"{"intent":"SetClimateSettingsInCar","parameters":{"enableFan":false}}"#)
            let resolved = await rig.engine.run(.resolve, intent)
            #expect(resolved.resolution.parameters.first { $0.name == "enableFan" }?.result == .unsupported(reason: reason))
            let performed = try await rig.perform(#"{"intent":"SetClimateSettingsInCar","parameters":{"enableFan":false}}"#)
            #expect(performed.response.reason == "notResolved", "\(performed.response)")
            #expect(performed.frames.isEmpty)
        }
    }

    /// The same on the kinds car as it is (a read-only fan, the level stepped): 0 % asks
    /// for the fan off, which only a fan command could do; it resolved `success` and did nothing.
    @Test func fanSpeedZeroPercentOnAReadOnlyFan() async throws {
        let rig = try await KindsRig.start()
        try await stopping(rig) { rig in
            let intent = try Intent(parsing: #"{"intent":"SetClimateSettingsInCar","parameters":{"fanSpeedPercentage":0}}"#)
            let resolved = await rig.engine.run(.resolve, intent)
            #expect(
                resolved.resolution.parameters.first { $0.name == "fanSpeedPercentage" }?.result
                    == .unsupported(reason: "the Kinds Car reports climate.fan but takes no command for it on its bus"))
            // A level turns the fan on by itself: the read-only fan is left to the car.
            let level = await rig.engine.run(.resolve, try Intent(parsing: #"{"intent":"SetClimateSettingsInCar","parameters":{"fanSpeedPercentage":50}}"#))
            #expect(level.resolution.action == .set([.fanSpeed: .integer(4)]))
        }
    }

    /// Bug: heating on with a level was refused on a car whose seat cooling is only
    /// reported: "cooling off", which heating implies, was blamed on `level` (the heating's
    /// level). Without the level the same request succeeded. The implied target is left
    /// to the car, with or without a level.
    @Test(arguments: [#""seat":"driver","enableHeating":true,"level":3"#, #""seat":"driver","enableHeating":true"#])
    func heatingOnBesideAReportedOnlyCooling(_ parameters: String) throws {
        var profile = try ShippedProfiles.load("suv")
        for key in profile.bindings.keys where key.rawValue.hasSuffix(".cooling") { profile.bindings[key]?.command = nil }
        let resolution = try resolve(request("SetSeatSettingsInCar", parameters), profile)
        for parameter in resolution.parameters {
            #expect(parameter.result.isResolved, "\(parameter.name): \(parameter.result)")
        }
        guard case let .set(targets)? = resolution.action else {
            Issue.record("no targets: \(String(describing: resolution.action))")
            return
        }
        #expect(targets.keys.allSatisfy { $0.rawValue.hasSuffix(".heating") }, "\(targets)")
        if parameters.contains("level") { #expect(targets.values.allSatisfy { $0 == .integer(3) }) }
    }

    /// Bug: a read-only climate on/off of a zone (the Hyundai C-CAN's rear "off" display)
    /// resolved `success` and Handle then answered `notResolved` with nothing sent.
    @Test func aReadOnlyZoneClimateSwitch() async throws {
        let rig = try await Rig.start("hyundai-ccan")
        try await stopping(rig) { rig in
            let json = #"{"intent":"SetClimateSettingsInCar","parameters":{"enableClimateControl":false,"climateZone":"rearLeft"}}"#
            let resolved = await rig.engine.run(.resolve, try Intent(parsing: json))
            let reason = "the \(rig.engine.profile.displayName) reports climate.climateControl.rearSeats but takes no command for it on its bus"
            #expect(resolved.resolution.parameters.first { $0.name == "enableClimateControl" }?.result == .unsupported(reason: reason))
            let performed = try await rig.perform(json)
            #expect(performed.frames.isEmpty)
        }
    }
}
