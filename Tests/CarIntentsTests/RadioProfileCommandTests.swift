import CarplayJSON
import Foundation
import Testing

@testable import CarIntents
@testable import VehicleKit

@Suite struct RadioResolutionTests {
    let radio = "SetRadioStation"

    @Test func frequencyInfersTheBandAndSnaps() throws {
        let r = try resolve(request(radio, #""frequency":101.13"#))
        #expect(r.parameters.map(\.name) == ["radioType", "frequency", "stationName", "channel", "presetNumber"])
        #expect(r["radioType"] == .success("FM"))
        #expect(r["frequency"] == .success(101.1))
        #expect(r.action == .set([.radioBand: .enumeration("FM"), .radioFrequency: .number(101.1), .audioSource: .enumeration("sourceRadio")]))
        #expect(
            try resolve(request(radio, #""frequency":880"#)).action
                == .set([.radioBand: .enumeration("AM"), .radioFrequency: .number(880), .audioSource: .enumeration("sourceRadio")]))
    }

    @Test func frequencyOutsideTheBand() throws {
        let r = try resolve(request(radio, #""radioType":"FM","frequency":108.5"#))
        #expect(r["frequency"] == .unsupported(reason: "108.5 MHz is outside the FM band 87.5…108 MHz"))
        #expect(r.action == nil)
        #expect(try resolve(request(radio, #""frequency":5000"#))["frequency"] == .unsupported(reason: "no band of the Example Sedan includes 5000"))
    }

    @Test func bandTheCarLacks() throws {
        #expect(try resolve(request(radio, #""radioType":"DAB","channel":5"#))["radioType"] == .unsupported(reason: "the Example Sedan has no DAB radio"))
        #expect(try resolve(request(radio, #""radioType":"FM""#), TestProfiles.bare)["radioType"] == .unsupported(reason: "the Bare Car has no radio"))
    }

    @Test func ambiguousBandIsDisambiguated() throws {
        // The SUV's FM and HD bands share a range.
        let r = try resolve(request(radio, #""frequency":99.5"#), TestProfiles.suv)
        #expect(r["radioType"] == .disambiguation(["FM", "HD"]))
        #expect(r.action == nil)
        let hd = try resolve(request(radio, #""radioType":"HD","frequency":99.5"#), TestProfiles.suv)
        #expect(hd["frequency"] == .success(99.5))
        // The SUV has no radio audio source: no audio.source in the action.
        #expect(hd.action == .set([.radioBand: .enumeration("HD"), .radioFrequency: .number(99.5)]))
    }

    @Test func stationNames() throws {
        let exact = try resolve(request(radio, #""stationName":"jazz fm""#))
        #expect(exact["stationName"] == .success("Jazz FM"))
        #expect(exact["radioType"] == .success("FM"))
        #expect(exact.action == .set([.radioBand: .enumeration("FM"), .radioFrequency: .number(101.1), .audioSource: .enumeration("sourceRadio")]))
        let words = try resolve(request(radio, #""stationName":"rock""#))
        #expect(words["stationName"] == .success("Classic Rock"))
        let ambiguous = try resolve(request(radio, #""stationName":"classic""#))
        #expect(ambiguous["stationName"] == .disambiguation(["Classic Rock", "Classic Jazz"]))
        #expect(ambiguous["radioType"] == .needsValue(reason: "which band?"))
        #expect(ambiguous.action == nil)
        // Restricted to the given band.
        #expect(try resolve(request(radio, #""stationName":"classic","radioType":"AM""#))["stationName"] == .success("Classic Jazz"))
        #expect(try resolve(request(radio, #""stationName":"Opera""#))["stationName"] == .unsupported(reason: "no station called Opera"))
    }

    @Test func satelliteChannelAndPreset() throws {
        let hits = try resolve(request(radio, #""stationName":"Hits 1""#))
        #expect(hits.action == .set([.radioBand: .enumeration("satellite"), .radioChannel: .integer(2), .audioSource: .enumeration("sourceRadio")]))
        let channel = try resolve(request(radio, #""radioType":"satellite","channel":"1000""#))
        #expect(channel["channel"] == .unsupported(reason: "channel 1000 is outside satellite channels 1…999"))
        #expect(try resolve(request(radio, #""radioType":"FM","channel":3"#))["channel"] == .unsupported(reason: "FM radio tunes by frequency, not channel"))
        let preset = try resolve(request(radio, #""presetNumber":1"#))
        #expect(preset["presetNumber"] == .success(1))
        #expect(preset["radioType"] == .success("FM"))
        #expect(preset.action == .set([.radioBand: .enumeration("FM"), .radioFrequency: .number(101.1), .audioSource: .enumeration("sourceRadio")]))
        #expect(try resolve(request(radio, #""presetNumber":7"#))["presetNumber"] == .unsupported(reason: "the Example Sedan has no preset 7"))
        let conflict = try resolve(request(radio, #""presetNumber":1,"frequency":95.3"#))
        #expect(conflict["frequency"] == .unsupported(reason: "FM 95.3 MHz does not match the presetNumber (FM 101.1 MHz)"))
        #expect(conflict.action == nil)
    }

    @Test func needsValue() throws {
        #expect(try resolve(request(radio))["radioType"] == .needsValue(reason: "give a station, a frequency, a channel, a preset or a band"))
        #expect(try resolve(request(radio, #""radioType":"AM""#)).action == .set([.radioBand: .enumeration("AM"), .audioSource: .enumeration("sourceRadio")]))
    }
}

@Suite struct ProfileResolutionTests {
    let saved = [
        SavedCarProfile(slot: 1, name: "Anna", settings: [:]), SavedCarProfile(slot: 3, name: "Ben", settings: [:]),
        SavedCarProfile(slot: 4, name: "ben", settings: [:]),
    ]

    @Test func save() throws {
        let r = try resolve(request("SaveProfileInCar", #""profileNumber":2,"profileName":"Cleo""#), saved: saved)
        #expect(r["profileNumber"] == .success(2))
        #expect(r.action == .saveCarProfile(slot: 2, name: "Cleo"))
        // A name that is saved reuses its slot; otherwise the first free slot.
        #expect(try resolve(request("SaveProfileInCar", #""profileName":"ANNA""#), saved: saved).action == .saveCarProfile(slot: 1, name: "ANNA"))
        #expect(try resolve(request("SaveProfileInCar", #""profileName":"Dora""#), saved: saved).action == .saveCarProfile(slot: 2, name: "Dora"))
        #expect(try resolve(request("SaveProfileInCar", #""profileNumber":3"#), saved: saved).action == .saveCarProfile(slot: 3, name: "Ben"))
        #expect(
            try resolve(request("SaveProfileInCar", #""profileNumber":5"#), saved: saved)["profileNumber"]
                == .unsupported(reason: "the Example Sedan has profiles 1…4, not 5"))
        let full = try resolve(
            request("SaveProfileInCar", #""profileName":"Eve""#), TestProfiles.suv,
            saved: [SavedCarProfile(slot: 1, name: nil, settings: [:]), SavedCarProfile(slot: 2, name: nil, settings: [:])])
        #expect(full["profileNumber"] == .needsValue(reason: "all 2 profiles are in use; say which one to overwrite"))
        #expect(full.action == nil)
        #expect(try resolve(request("SaveProfileInCar"), TestProfiles.bare)["profileNumber"] == .unsupported(reason: "the Bare Car has no profile memory"))
    }

    @Test func restore() throws {
        let r = try resolve(request("SetProfileInCar", #""profileName":"anna""#), saved: saved)
        #expect(r["profileName"] == .success("Anna"))
        #expect(r["profileNumber"] == .notRequired)
        #expect(r.action == .restoreCarProfile(slot: 1))
        #expect(try resolve(request("SetProfileInCar", #""profileNumber":3"#), saved: saved).action == .restoreCarProfile(slot: 3))
        #expect(try resolve(request("SetProfileInCar", #""isDefaultProfile":true"#), saved: saved).action == .restoreCarProfile(slot: 1))
        let ambiguous = try resolve(request("SetProfileInCar", #""profileName":"Ben""#), saved: saved)
        #expect(ambiguous["profileName"] == .disambiguation([["profileNumber": 3, "profileName": "Ben"], ["profileNumber": 4, "profileName": "ben"]]))
        #expect(ambiguous.action == nil)
        #expect(try resolve(request("SetProfileInCar", #""profileNumber":2"#), saved: saved)["profileNumber"] == .unsupported(reason: "profile 2 is empty"))
        #expect(
            try resolve(request("SetProfileInCar", #""profileName":"Zed""#), saved: saved)["profileName"] == .unsupported(reason: "no profile is called Zed"))
        #expect(try resolve(request("SetProfileInCar"), saved: saved)["profileNumber"] == .needsValue(reason: "which profile?"))
        #expect(
            try resolve(request("SetProfileInCar", #""profileNumber":1,"carName":"Van""#), saved: saved)["carName"]
                == .unsupported(reason: "this is Example Sedan, not Van"))
    }

    @Test func savedProfileJSON() throws {
        let profile = SavedCarProfile(
            slot: 2, name: "Anna",
            settings: [
                .temperature(zone: "left"): .number(21), .seat(.frontLeft, .heating): .integer(2), .fan: .bool(true), .audioSource: .enumeration("sourceUSB"),
            ])
        let data = JSONValue.array([profile.jsonValue]).serializedBytes()
        let value = try JSONValue(parsing: data)
        #expect(value.arrayValue?.first?.objectValue?["settings"]?.objectValue?["seat.frontLeft.heating"] == .integer(2))
        #expect(try SavedCarProfile.list(parsing: data, file: "test") == [profile])
    }
}

@Suite struct CarCommandResolutionTests {
    @Test func lock() throws {
        let r = try resolve(request("SetCarLockStatus", #""locked":true,"carName":"sedan""#))
        #expect(r["locked"] == .success(true))
        #expect(r["carName"] == .success("Sedan"))
        #expect(r.action == .set([.locked: .bool(true)]))
        #expect(try resolve(request("SetCarLockStatus"))["locked"] == .needsValue(reason: "lock or unlock?"))
        #expect(
            try resolve(request("SetCarLockStatus", #""locked":false"#), TestProfiles.bare)["locked"] == .unsupported(reason: "the Bare Car has no remote lock")
        )
        #expect(
            try resolve(request("SetCarLockStatus", #""locked":false,"carName":"SUV""#))["carName"] == .unsupported(reason: "this is Example Sedan, not SUV"))
    }

    @Test func readLockAndPower() throws {
        let lock = try resolve(request("GetCarLockStatus"))
        #expect(lock["carName"] == .notRequired)
        #expect(lock.action == .readLockStatus)
        #expect(try resolve(request("GetCarLockStatus"), TestProfiles.bare)["carName"] == .unsupported(reason: "the Bare Car has no lock"))
        #expect(try resolve(request("GetCarPowerLevelStatus", #""carName":"SUV""#), TestProfiles.suv).action == .readPowerLevel)
        let bare = try resolve(request("GetCarPowerLevelStatus"), TestProfiles.bare)
        #expect(bare["carName"] == .unsupported(reason: "the Bare Car reports no fuel or charge level and no range"))
        #expect(bare.action == nil)
        // A range without a level is a power level too (the Hyundai's distance to empty).
        var ranged = TestProfiles.bare
        ranged.bindings[.distanceRemaining] = PropertyBinding(command: nil, status: SignalReference(message: "Cluster", signal: "DTE"))
        #expect(try resolve(request("GetCarPowerLevelStatus"), ranged).action == .readPowerLevel)
        #expect(try resolve(request("GetCarPowerLevelStatus", #""carName":"Sedan""#), TestProfiles.suv).action == nil)
    }

    @Test func signals() throws {
        let r = try resolve(request("ActivateCarSignal", #""signals":["audible","visible","audible"]"#))
        #expect(r["signals"] == .success(["audible", "visible"]))
        #expect(r.action == .activateSignals([.audible, .visible]))
        let suv = try resolve(request("ActivateCarSignal", #""signals":["audible"]"#), TestProfiles.suv)
        #expect(suv["signals"] == .unsupported(reason: "the Example SUV cannot sound its horn (no audible signal)"))
        #expect(suv.action == nil)
        // Issue 35: what the car can give is done, and only that (SiriKit's resolution
        // allows it; the response's signals name what was activated). Refused whole before.
        let both = try resolve(request("ActivateCarSignal", #""signals":["audible","visible"]"#), TestProfiles.suv)
        #expect(both["signals"] == .success(["visible"]))
        #expect(both.action == .activateSignals([.visible]))
        #expect(try resolve(request("ActivateCarSignal", #""signals":[]"#))["signals"] == .needsValue(reason: "flash the lights, sound the horn, or both?"))
        #expect(
            try resolve(request("ActivateCarSignal", #""signals":["visible"],"carName":"Boat""#))["carName"]
                == .unsupported(reason: "this is Example Sedan, not Boat"))
    }
}
