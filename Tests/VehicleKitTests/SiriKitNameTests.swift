import CarplayJSON
import Foundation
import Testing

@testable import VehicleKit

/// The enumerations by SiriKit's Swift case names (the Intents SDK headers as Swift
/// imports them), and the aliases readers accept.
@Suite struct SiriKitNameTests {
    @Test func swiftCaseNamesOfTheIntentsSDK() {
        #expect(
            CarAudioSource.names == [
                "sourceCarPlay", "sourceiPod", "sourceRadio", "sourceBluetooth", "sourceAUX", "sourceUSB", "sourceMemoryCard", "sourceOpticalDrive",
                "sourceHardDrive",
            ])
        #expect(
            CarSeat.names == [
                "driver", "passenger", "frontLeft", "frontRight", "front", "rearLeft", "rearRight", "rear", "thirdRowLeft", "thirdRowRight", "thirdRow", "all",
            ])
        #expect(CarDefroster.names == ["front", "rear", "all"])
        #expect(AirCirculationMode.names == ["freshAir", "recirculateAir"])
        #expect(RadioType.names == ["AM", "FM", "HD", "satellite", "DAB"])
        #expect(RelativeSetting.names == ["lowest", "lower", "higher", "highest"])
        #expect(RelativeReference.names == ["next", "previous"])
        #expect(CarSignal.names == ["audible", "visible"])
    }

    @Test func shortAudioSourceNamesAreAliases() {
        let short = ["carPlay", "iPod", "radio", "bluetooth", "AUX", "USB", "memoryCard", "opticalDrive", "hardDrive"]
        #expect(short.map { CarAudioSource(name: $0) } == CarAudioSource.allCases)
        #expect(CarAudioSource.names.map { CarAudioSource(name: $0) } == CarAudioSource.allCases)
        #expect(CarAudioSource(name: "usb") == nil, "names are exact; carplayctl ignores letter case itself")
        #expect(CarAudioSource(name: "sourceUnknown") == nil, "SiriKit's 0 case is not a source")
        #expect(CarAudioSource(name: "unknown") == nil)
        let allNames = CarAudioSource.names + CarAudioSource.allCases.flatMap(\.aliases)
        #expect(Set(allNames).count == allNames.count, "no alias is another case's name")
    }

    @Test func enumerationPropertiesReadAliasesAndHoldSiriKitNames() throws {
        let kind = try #require(PropertyKey.audioSource.kind)
        #expect(PropertyValue(json: "USB", kind: kind) == .enumeration("sourceUSB"))
        #expect(PropertyValue(json: "sourceUSB", kind: kind) == .enumeration("sourceUSB"))
        #expect(PropertyValue(json: "tape", kind: kind) == nil)
        // --state flags and saved car profiles.
        let state = try VehicleState(json: JSONNode(parsing: Array(#"{"audio.source": "bluetooth", "radio.band": "FM"}"#.utf8), file: "--state"))
        #expect(state[.audioSource] == .enumeration("sourceBluetooth"))
        #expect(state.jsonValue.objectValue?["audio.source"] == "sourceBluetooth", "written with SiriKit's name")
    }

    /// A profile written with the short names loads to the same profile as the shipped
    /// one (written with SiriKit's).
    @Test func profileWithShortNamesLoadsTheSame() throws {
        let shipped = try ProfileFixture("sedan")
        var old = shipped
        for (short, source) in zip(
            ["radio", "bluetooth", "USB", "AUX", "carPlay"], ["sourceRadio", "sourceBluetooth", "sourceUSB", "sourceAUX", "sourceCarPlay"])
        {
            old.json = old.json.replacingOccurrences(of: "\"\(source)\"", with: "\"\(short)\"")
        }
        #expect(!old.json.contains("sourceRadio"))
        let new = try shipped.load()
        let loaded = try old.load()
        #expect(loaded.audioSources == new.audioSources)
        #expect(loaded.bindings[.audioSource]?.statusValues == new.bindings[.audioSource]?.statusValues)
        #expect(loaded.bindings[.audioSource]?.command == new.bindings[.audioSource]?.command)
    }

    @Test func aliasAndNameOfOneCaseInOneValueMap() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""sourceUSB": "USB""#, #""sourceUSB": "USB", "USB": "USB""#)
        // Keys in sorted order: "USB" before "sourceUSB".
        fixture.expectError(path: #"bindings["audio.source"].command.values["sourceUSB"]"#, #""sourceUSB" and "USB" both name sourceUSB"#)
    }
}
