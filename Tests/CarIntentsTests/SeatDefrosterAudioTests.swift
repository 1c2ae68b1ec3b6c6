import CarplayJSON
import Testing
import VehicleKit

@testable import CarIntents

@Suite struct SeatResolutionTests {
    let seat = "SetSeatSettingsInCar"

    @Test func heatingAtALevel() throws {
        let r = try resolve(request(seat, #""seat":"driver","enableHeating":true,"level":2"#))
        #expect(r.parameters.map(\.name) == Intent.parameterNames(of: .setSeatSettingsInCar))
        #expect(r["seat"] == .success(["frontLeft"]))
        #expect(r["enableHeating"] == .success(true))
        #expect(r["level"] == .success(2))
        #expect(r["relativeLevelSetting"] == .notRequired)
        #expect(r.action == .set([.seat(.frontLeft, .heating): .integer(2)]))
    }

    @Test func heatingOffIsLevelZeroAndOnWithoutLevelIsOne() throws {
        #expect(try resolve(request(seat, #""seat":"passenger","enableHeating":false"#)).action == .set([.seat(.frontRight, .heating): .integer(0)]))
        #expect(try resolve(request(seat, #""seat":"passenger","enableMassage":true"#)).action == .set([.seat(.frontRight, .massage): .integer(1)]))
        let on = VehicleState([.seat(.frontRight, .massage): .integer(3)])
        #expect(try resolve(request(seat, #""seat":"passenger","enableMassage":true"#), state: on).action == .set([.seat(.frontRight, .massage): .integer(3)]))
    }

    @Test func seatTheCarDoesNotHave() throws {
        let r = try resolve(request(seat, #""seat":"rear","enableHeating":true"#))
        #expect(r["seat"] == .unsupported(reason: "the Example Sedan has no rear seats with heating, cooling or massage"))
        #expect(r.action == nil)
        let third = try resolve(request(seat, #""seat":"thirdRowLeft","enableHeating":true"#), TestProfiles.suv)
        #expect(third["seat"] == .unsupported(reason: "the Example SUV has no third-row left seat with heating, cooling or massage"))
    }

    @Test func featureTheSeatLacks() throws {
        let r = try resolve(request(seat, #""seat":"rearLeft","enableCooling":true"#), TestProfiles.suv)
        #expect(r["enableCooling"] == .unsupported(reason: "the rear left seat has no cooling"))
        #expect(r.action == nil)
    }

    @Test func levelAboveTheMaximumIsClampedAndConfirmed() throws {
        let r = try resolve(request(seat, #""seat":"driver","enableHeating":true,"level":5"#))
        #expect(r["level"] == .confirmationRequired(3, reason: "level 5 is above the highest heating level 3"))
        #expect(r.action == nil)
    }

    @Test func levelWithoutFeatureOnASeatWithSeveralIsDisambiguated() throws {
        let r = try resolve(request(seat, #""seat":"passenger","level":2"#))
        #expect(
            r["level"]
                == .disambiguation([
                    ["feature": "heating", "level": 2], ["feature": "cooling", "level": 2], ["feature": "massage", "level": 2],
                ]))
        #expect(r.action == nil)
        // The driver's seat has heating only: no question.
        #expect(try resolve(request(seat, #""seat":"driver","level":1"#)).action == .set([.seat(.frontLeft, .heating): .integer(1)]))
    }

    @Test func relativeLevelFromState() throws {
        let state = VehicleState([.seat(.rearLeft, .heating): .integer(1), .seat(.rearRight, .heating): .integer(2)])
        let r = try resolve(request(seat, #""seat":"rear","relativeLevelSetting":"higher""#), TestProfiles.suv, state: state)
        #expect(r["relativeLevelSetting"] == .success(["rearLeft": 2, "rearRight": 2]))
        #expect(r.action == .set([.seat(.rearLeft, .heating): .integer(2), .seat(.rearRight, .heating): .integer(2)]))
        let unknown = try resolve(request(seat, #""seat":"driver","enableHeating":true,"relativeLevelSetting":"lower""#))
        #expect(unknown["relativeLevelSetting"] == .needsValue(reason: "current heating level of the front left seat unknown"))
        #expect(unknown.action == nil)
    }

    @Test func levelAndRelativeTogetherIsRejected() throws {
        let r = try resolve(request(seat, #""seat":"driver","enableHeating":true,"level":2,"relativeLevelSetting":"higher""#))
        #expect(r["level"] == .success(2))
        #expect(r["relativeLevelSetting"] == .unsupported(reason: "give either a level or a relative setting"))
        #expect(r.action == nil)
    }

    @Test func coolingTurnsHeatingOff() throws {
        let r = try resolve(request(seat, #""seat":"front","enableCooling":true,"level":2"#), TestProfiles.suv)
        #expect(
            r.action
                == .set([
                    .seat(.frontLeft, .cooling): .integer(2), .seat(.frontRight, .cooling): .integer(2),
                    .seat(.frontLeft, .heating): .integer(0), .seat(.frontRight, .heating): .integer(0),
                ]))
        let both = try resolve(request(seat, #""seat":"driver","enableCooling":true,"enableHeating":true"#), TestProfiles.suv)
        #expect(both["enableCooling"] == .unsupported(reason: "heating and cooling cannot both be on"))
    }

    @Test func needsValueAndCarName() throws {
        #expect(try resolve(request(seat, #""enableHeating":true"#))["seat"] == .needsValue(reason: "which seat?"))
        #expect(try resolve(request(seat, #""seat":"driver""#))["level"] == .needsValue(reason: "give a level or a feature to switch on or off"))
        #expect(
            try resolve(request(seat, #""seat":"driver","enableHeating":true,"carName":"SUV""#))["carName"]
                == .unsupported(reason: "this is Example Sedan, not SUV"))
    }
}

@Suite struct DefrosterResolutionTests {
    let defroster = "SetDefrosterSettingsInCar"

    @Test func namedDefroster() throws {
        let r = try resolve(request(defroster, #""enable":true,"defroster":"rear""#))
        #expect(r.parameters.map(\.name) == ["enable", "defroster", "carName"])
        #expect(r["defroster"] == .success("rear"))
        #expect(r["carName"] == .notRequired)
        #expect(r.action == .set([.defroster(.rear): .bool(true)]))
    }

    @Test func allAndOnlyOne() throws {
        #expect(
            try resolve(request(defroster, #""enable":false,"defroster":"all""#)).action
                == .set([.defroster(.front): .bool(false), .defroster(.rear): .bool(false)]))
        let suv = try resolve(request(defroster, #""enable":true"#), TestProfiles.suv)
        #expect(suv["defroster"] == .success("front"))
        #expect(suv.action == .set([.defroster(.front): .bool(true)]))
    }

    @Test func disambiguationMissingAndNeedsValue() throws {
        let r = try resolve(request(defroster, #""enable":true"#))
        #expect(r["defroster"] == .disambiguation(["front", "rear", "all"]))
        #expect(r.action == nil)
        #expect(
            try resolve(request(defroster, #""enable":true,"defroster":"rear""#), TestProfiles.suv)["defroster"]
                == .unsupported(reason: "the Example SUV has no rear defroster"))
        #expect(try resolve(request(defroster, #""defroster":"rear""#))["enable"] == .needsValue(reason: "switch the defroster on or off?"))
        #expect(try resolve(request(defroster, #""enable":true,"carName":"Bus""#))["carName"] == .unsupported(reason: "this is Example Sedan, not Bus"))
    }
}

@Suite struct AudioSourceResolutionTests {
    let audio = "SetAudioSourceInCar"

    @Test func namedSource() throws {
        let r = try resolve(request(audio, #""audioSource":"sourceUSB""#))
        #expect(r["audioSource"] == .success("sourceUSB"))
        #expect(r["relativeAudioSourceReference"] == .notRequired)
        #expect(r.action == .set([.audioSource: .enumeration("sourceUSB")]))
        #expect(
            try resolve(request(audio, #""audioSource":"sourceRadio""#), TestProfiles.suv)["audioSource"]
                == .unsupported(reason: "the Example SUV has no sourceRadio audio source"))
    }

    /// The short names carplayd used before are aliases: read, never written.
    @Test func shortNamesAreAliases() throws {
        let r = try resolve(request(audio, #""audioSource":"USB""#))
        #expect(r["audioSource"] == .success("sourceUSB"))
        #expect(r.action == .set([.audioSource: .enumeration("sourceUSB")]))
        // A car profile saved before the rename.
        let saved = try SavedCarProfile.list(parsing: Array(#"[{"slot":1,"settings":{"audio.source":"bluetooth"}}]"#.utf8), file: "car-profiles.json")
        #expect(saved.first?.settings[.audioSource] == .enumeration("sourceBluetooth"))
        #expect(saved.first?.jsonValue.objectValue?["settings"]?.objectValue?["audio.source"] == "sourceBluetooth")
    }

    @Test func nextAndPreviousCycleFromState() throws {
        let state = VehicleState([.audioSource: .enumeration("sourceCarPlay")])
        #expect(
            try resolve(request(audio, #""relativeAudioSourceReference":"next""#), state: state).action == .set([.audioSource: .enumeration("sourceRadio")]))
        #expect(
            try resolve(request(audio, #""relativeAudioSourceReference":"previous""#), state: state).action == .set([.audioSource: .enumeration("sourceAUX")]))
        #expect(
            try resolve(request(audio, #""relativeAudioSourceReference":"next""#))["relativeAudioSourceReference"]
                == .needsValue(reason: "current audio source unknown"))
    }

    @Test func sourceAndRelativeTogetherIsRejected() throws {
        let r = try resolve(request(audio, #""audioSource":"USB","relativeAudioSourceReference":"next""#))
        #expect(r["relativeAudioSourceReference"] == .unsupported(reason: "give either an audio source or next/previous"))
        #expect(r.action == nil)
        #expect(try resolve(request(audio))["audioSource"] == .needsValue(reason: "which audio source?"))
    }
}

/// Issue 35: SiriKit's disambiguation offers what can be done. A car that reports both of
/// its defrosters but switches only one, or neither, is not asked "front, rear or all?".
@Suite struct ReadOnlyDefrosterTests {
    static func sedan(readOnly: [CarDefroster]) throws -> VehicleProfile {
        var profile = try ShippedProfiles.load("sedan")
        for defroster in readOnly { profile.bindings[.defroster(defroster)]?.command = nil }
        return profile
    }

    static let unnamed = #"{"intent":"SetDefrosterSettingsInCar","parameters":{"enable":true}}"#

    @Test func bothSwitchableIsAQuestion() throws {
        guard case let .disambiguation(options)? = try resolve(Self.unnamed, Self.sedan(readOnly: []))["defroster"] else {
            Issue.record("a question expected")
            return
        }
        #expect(options == [.string("front"), .string("rear"), .string("all")])
    }

    @Test func oneSwitchableIsTheAnswer() throws {
        let resolution = try resolve(Self.unnamed, Self.sedan(readOnly: [.front]))
        #expect(resolution["defroster"] == .success(.string("rear")))
        #expect(resolution.isResolved)
    }

    @Test func noneSwitchableIsUnsupported() throws {
        guard case let .unsupported(reason)? = try resolve(Self.unnamed, Self.sedan(readOnly: [.front, .rear]))["defroster"] else {
            Issue.record("unsupported expected")
            return
        }
        #expect(reason.contains("takes no command"))
    }
}
