import Foundation
import TestSupport
import Testing

@testable import CarIntents

/// Each intent's parameters are declared once (`DeclaredParameters`); what is written
/// elsewhere by hand is checked against the declaration.
@Suite struct IntentDeclarationTests {
    /// docs/INTENTS.md's table of intents lists each intent's parameters with their JSON
    /// types, in the declared order.
    @Test func theIntentTableOfTheDocsIsTheDeclaration() throws {
        let text = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("docs/INTENTS.md"), encoding: .utf8)
        for name in IntentName.allCases {
            let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| `\(name.rawValue)` |") }, "no row for \(name.rawValue)")
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let declared = Intent.signature(of: name).map { "`\($0.name)` \($0.kind.documentedType)" }.joined(separator: ", ")
            #expect(cells[3] == (declared.isEmpty ? "none" : declared), "\(name.rawValue)")
        }
    }

    /// Every declared parameter reads what it writes: the JSON form of an intent with
    /// every parameter given parses back to the same intent.
    @Test func everyParameterRoundTrips() throws {
        let sample: [String: String] = [
            "SetClimateSettingsInCar":
                #"{"enableFan":true,"enableAirConditioner":false,"enableClimateControl":true,"enableAutoMode":false,"airCirculationMode":"recirculateAir","fanSpeedIndex":2,"fanSpeedPercentage":40.5,"relativeFanSpeedSetting":"higher","temperature":{"value":21.5,"unit":"celsius"},"relativeTemperatureSetting":"lower","climateZone":"driver","carName":"Sedan"}"#,
            "SetSeatSettingsInCar":
                #"{"enableHeating":true,"enableCooling":false,"enableMassage":true,"seat":"driver","level":2,"relativeLevelSetting":"lowest","carName":"x"}"#,
            "SetRadioStation": #"{"radioType":"FM","frequency":101.1,"stationName":"Jazz","channel":"12","presetNumber":3}"#,
            "ActivateCarSignal": #"{"carName":"x","signals":["audible","visible"]}"#,
        ]
        for (name, parameters) in sample {
            let intent = try Intent(parsing: #"{"intent":"\#(name)","parameters":\#(parameters)}"#)
            #expect(intent.parameterValues.map(\.name) == Intent.parameterNames(of: intent.name), "\(name): every parameter given")
            #expect(try Intent(json: intent.jsonValue) == intent, "\(name)")
        }
        // The declared alias reads as its parameter.
        let aliased = try Intent(parsing: #"{"intent":"SetSeatSettingsInCar","parameters":{"relativeLevel":"higher"}}"#)
        #expect(aliased == .setSeatSettingsInCar(SetSeatSettingsInCarParameters(relativeLevelSetting: .higher)))
    }
}
