import CarplayJSON
import Testing

@testable import CarIntents
@testable import VehicleKit

/// Issue 16's acceptance: SiriKit's "restricted while locked" is the caller's device,
/// not the car. A shipped profile does not refuse climate, seats or signals while the
/// car reads locked -- a parked, locked car is pre-conditioned and honked to be found.
@Suite struct LockedCarTests {
    static let profiles = [
        "ford-cgea", "gm-global-a-lowspeed", "hyundai-ccan", "hyundai-kia-generic", "hyundai-mcan", "tesla-model-s", "toyota-2017", "vw-mqb", "sedan", "suv",
    ]

    /// The intents of each kind the profile can command (a real car's bus may only
    /// report some), as a person would say them.
    static func intents(for profile: VehicleProfile) -> [String] {
        func commanded(_ key: PropertyKey) -> Bool { profile.bindings[key]?.command != nil }
        var intents: [String] = []
        if let climate = profile.climate {
            if let zone = climate.zones.first(where: { commanded(.temperature(zone: $0.id)) }), let seat = zone.seats.first,
                let range = climate.celsius
            {
                let target = range.snap((range.min + range.max) / 2 + range.step)
                intents.append(
                    #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":\#(target),"unit":"celsius"},"climateZone":"\#(seat.rawValue)"}}"#
                )
            } else if commanded(.fan) {
                intents.append(#"{"intent":"SetClimateSettingsInCar","parameters":{"enableFan":true}}"#)
            }
        }
        let flags: [SeatFeature: String] = [.heating: "enableHeating", .cooling: "enableCooling", .massage: "enableMassage"]
        for seat in profile.seats {
            if let feature = SeatFeature.allCases.first(where: { seat.maximum($0) > 0 && commanded(.seat(seat.seat, $0)) }) {
                intents.append(#"{"intent":"SetSeatSettingsInCar","parameters":{"\#(flags[feature]!)":true,"seat":"\#(seat.seat.rawValue)","level":1}}"#)
                break
            }
        }
        if let signal = profile.carSignals.first(where: { commanded(.signal($0)) }) {
            intents.append(#"{"intent":"ActivateCarSignal","parameters":{"signals":["\#(signal.rawValue)"]}}"#)
        }
        return intents
    }

    @Test(arguments: profiles) func climateSeatsAndSignalsSucceedOnALockedCar(_ name: String) async throws {
        let profile = try ShippedProfiles.load(name)
        #expect(profile.policies.refusedWhileCarLocked.isEmpty, "\(name) refuses nothing while the car is locked")
        let intents = Self.intents(for: profile)
        if name == "sedan" || name == "suv" { #expect(intents.count == 3, "the example cars take all three kinds: \(intents)") }
        let state: [PropertyKey: PropertyValue] = profile.hasLock ? [.locked: .bool(true)] : [:]
        let rig = try await Rig.start(name, state: state, confirmationTimeout: .seconds(3))
        try await stopping(rig) { rig in
            if profile.hasLock, profile.bindings[.locked]?.status != nil {
                #expect(rig.controller.currentState[.locked] == .bool(true), "\(name): the car reads locked")
            }
            for json in intents {
                let outcome = try await rig.perform(json)
                #expect(outcome.refusal == nil, "\(name) \(json): \(String(describing: outcome.refusal))")
                #expect(outcome.response.code == .success, "\(name) \(json): \(outcome.response)")
            }
        }
    }
}
