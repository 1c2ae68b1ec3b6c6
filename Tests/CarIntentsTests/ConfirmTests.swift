import Testing
import VehicleKit

@testable import CarIntents

@Suite struct ConfirmTests {
    func confirm(
        _ json: String, _ profile: VehicleProfile = TestProfiles.sedan, state: VehicleState = VehicleState(), reachable: Bool = true,
        restricted: Set<IntentName> = [], device: CallerDevice = .unlocked
    ) throws -> IntentRefusal? {
        let resolution = try resolve(json, profile, state: state)
        return IntentConfirmer.confirm(resolution, profile: profile, state: state, vehicleReachable: reachable, restrictedWhileLocked: restricted) { device }
    }

    let locked = VehicleState([.locked: .bool(true)])

    @Test func readyToHandle() throws {
        #expect(try confirm(request("SetClimateSettingsInCar", #""enableFan":true"#)) == nil)
        #expect(try confirm(request("GetCarLockStatus"), state: locked) == nil)
    }

    /// SiriKit's restriction: the caller's device, not the car.
    @Test func restrictedWhileTheDeviceIsLocked() throws {
        let unlock = request("SetCarLockStatus", #""locked":false"#)
        let locked = CallerDevice.locked(reason: "the caller's session 3 is locked: unlock it first")
        let refusal = try confirm(unlock, restricted: [.setCarLockStatus], device: locked)
        #expect(refusal == .restrictedWhileLocked(reason: "the caller's session 3 is locked: unlock it first"))
        #expect(
            refusal?.response(for: .setCarLockStatus)
                == .failure("restrictedWhileLocked", detail: "the caller's session 3 is locked: unlock it first"))
        #expect(try confirm(unlock, restricted: [.setCarLockStatus], device: .unlocked) == nil)
        #expect(try confirm(unlock, restricted: [], device: locked) == nil, "not restricted")
        // The device is asked only for a restricted intent; before reachability (Siri asks first).
        var asked = 0
        let resolution = try resolve(request("SetClimateSettingsInCar", #""enableFan":true"#), TestProfiles.sedan, state: VehicleState())
        _ = IntentConfirmer.confirm(
            resolution, profile: TestProfiles.sedan, state: VehicleState(), vehicleReachable: true, restrictedWhileLocked: [.setCarLockStatus]
        ) {
            asked += 1
            return .unlocked
        }
        #expect(asked == 0)
        #expect(try confirm(unlock, reachable: false, restricted: [.setCarLockStatus], device: locked) == refusal)
    }

    /// carplayd's car-state policy, under its own name.
    @Test func refusedWhileTheCarIsLocked() throws {
        let refusal = try confirm(request("SetClimateSettingsInCar", #""enableFan":true"#), state: locked)
        #expect(refusal == .carLocked)
        #expect(refusal?.response(for: .setClimateSettingsInCar) == IntentResponse(code: .failure, reason: "carLocked"))
        // Not in the sedan's list, and not restricted when unlocked.
        #expect(try confirm(request("SetDefrosterSettingsInCar", #""enable":true,"defroster":"rear""#), state: locked) == nil)
        #expect(try confirm(request("SetClimateSettingsInCar", #""enableFan":true"#), state: VehicleState([.locked: .bool(false)])) == nil)
    }

    @Test func unreachable() throws {
        for json in [request("SetCarLockStatus", #""locked":true"#), request("GetCarLockStatus"), request("GetCarPowerLevelStatus")] {
            #expect(try confirm(json, reachable: false) == .vehicleUnreachable)
        }
    }

    @Test func satelliteNotSubscribed() throws {
        let json = request("SetRadioStation", #""stationName":"Sat Hits""#)
        let resolution = try resolve(json, TestProfiles.suv)
        #expect(resolution["stationName"] == .success("Sat Hits"))
        #expect(resolution.action != nil)
        #expect(try confirm(json, TestProfiles.suv) == .notSubscribed)
        #expect(IntentRefusal.notSubscribed.response(for: .setRadioStation).code == .failureNotSubscribed)
        #expect(try confirm(request("SetRadioStation", #""radioType":"DAB","channel":5"#), TestProfiles.suv) == nil)
        #expect(try confirm(request("SetRadioStation", #""stationName":"Hits 1""#)) == nil)
    }

    @Test func unresolvedIsNotHandled() throws {
        let refusal = try confirm(request("SetCarLockStatus"))
        #expect(refusal == .notResolved(parameter: "locked", reason: "lock or unlock?"))
        #expect(refusal?.response(for: .setCarLockStatus) == IntentResponse(code: .failure, reason: "notResolved"))
    }

    /// A bus-off controller ends an intent at once, naming the interface.
    @Test func busOff() throws {
        let resolution = try resolve(request("SetCarLockStatus", #""locked":true"#), TestProfiles.sedan, state: VehicleState())
        let refusal = IntentConfirmer.confirm(resolution, profile: TestProfiles.sedan, state: VehicleState(), vehicleReachable: true, busOffInterface: "can0")
        #expect(refusal == .busOff(interface: "can0"))
        #expect(refusal?.response(for: .setCarLockStatus).detail?.contains("can0") == true)
    }

    @Test func resolutionJSON() throws {
        let r = try resolve(request("SetDefrosterSettingsInCar", #""enable":true"#))
        #expect(
            r.jsonValue.serialized()
                == #"{"action":null,"intent":"SetDefrosterSettingsInCar","parameters":[{"name":"enable","result":{"kind":"success","value":true}},{"name":"defroster","result":{"kind":"disambiguation","options":["front","rear","all"]}},{"name":"carName","result":{"kind":"notRequired"}}]}"#
        )
        #expect(ResolutionResult.confirmationRequired(7, reason: "r").jsonValue.serialized() == #"{"kind":"confirmationRequired","reason":"r","value":7}"#)
        #expect(ResolutionResult.needsValue(reason: "n").jsonValue.serialized() == #"{"kind":"needsValue","reason":"n"}"#)
        #expect(ResolutionResult.unsupported(reason: "u").jsonValue.serialized() == #"{"kind":"unsupported","reason":"u"}"#)
        #expect(IntentAction.set([.fan: .bool(true), .fanSpeed: .integer(2)]).jsonValue.serialized() == #"{"set":{"climate.fan":true,"climate.fanSpeed":2}}"#)
        #expect(IntentAction.saveCarProfile(slot: 2, name: nil).jsonValue.serialized() == #"{"saveProfile":{"name":null,"slot":2}}"#)
    }
}
