import Foundation
import Testing
import VehicleKit

@testable import CarIntents

/// A boolean setpoint whose values name raw values of their own (off = 2, on = 1, idle 0:
/// one request code per state, as the Hyundai's), reported by a plain status bit.
@Suite struct BooleanSetpointTests {
    static let bindings: String = {
        var object = try! JSONSerialization.jsonObject(with: Data(KindsCar.defaultBindings.utf8)) as! [String: Any]
        var airConditioner = object["climate.airConditioner"] as! [String: Any]
        airConditioner["command"] = [
            "kind": "setpoint", "message": "ClimateRequest", "signal": "Spare", "idle": 0, "values": ["false": 2, "true": 1],
        ]
        object["climate.airConditioner"] = airConditioner
        return String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }()
    /// Spare idles at 0 here, as the setpoint says.
    static let messages = KindsCar.defaultMessages.replacingOccurrences(of: #"{"defaults": {"Spare": 255}}"#, with: "{}")

    /// Bug: the range check looked the boolean up as "0" and "1", found no value, and
    /// refused false as raw 0 = the idle value, though the setpoint sends false as 2.
    @Test func loadsAndSwitchesTheAirConditionerOff() async throws {
        #expect(Self.messages != KindsCar.defaultMessages, "the fixture changed")
        var profile = try KindsCar.load(json: KindsCar.json(bindings: Self.bindings, messages: Self.messages))
        profile.policies.confirmationTimeout = .seconds(2)
        let rig = try await Rig.start(profile: profile, state: [.airConditioner: .bool(true)])
        try await stopping(rig) { rig in
            let off = try await rig.perform(#"{"intent":"SetClimateSettingsInCar","parameters":{"enableAirConditioner":false}}"#)
            #expect(off.response.code == .success, "\(off.response)")
            #expect(try rig.commands(off, "ClimateRequest").map { $0["Spare"] } == [2])
            #expect(rig.vehicle.state()[.airConditioner] == .bool(false))
        }
    }

}
