import Testing
import VehicleKit

@testable import CarIntents

@Suite struct IntentParseTests {
    @Test func parsesClimate() throws {
        let intent = try Intent(
            parsing: request(
                "SetClimateSettingsInCar",
                #""temperature":{"value":21.5,"unit":"celsius"},"climateZone":"driver","enableFan":true,"fanSpeedIndex":3,"fanSpeedPercentage":40"#))
        guard case let .setClimateSettingsInCar(p) = intent else { Issue.record("wrong intent \(intent)"); return }
        #expect(p.temperature == .celsius(21.5))
        #expect(p.climateZone == .driver)
        #expect(p.enableFan == true)
        #expect(p.fanSpeedIndex == 3)
        #expect(p.fanSpeedPercentage == 40)
        #expect(p.carName == nil)
    }

    @Test func channelAcceptsStringOrInteger() throws {
        #expect(try Intent(parsing: request("SetRadioStation", #""channel":12"#)) == .setRadioStation(SetRadioStationParameters(channel: "12")))
        #expect(try Intent(parsing: request("SetRadioStation", #""channel":"12A""#)) == .setRadioStation(SetRadioStationParameters(channel: "12A")))
    }

    @Test func relativeLevelAlias() throws {
        #expect(
            try Intent(parsing: request("SetSeatSettingsInCar", #""relativeLevel":"higher""#))
                == .setSeatSettingsInCar(SetSeatSettingsInCarParameters(relativeLevelSetting: .higher)))
    }

    @Test func nullIsAbsentAndParametersOptional() throws {
        #expect(try Intent(parsing: #"{"intent":"GetCarLockStatus"}"#) == .getCarLockStatus(CarNameParameters()))
        #expect(try Intent(parsing: request("SetCarLockStatus", #""locked":null"#)) == .setCarLockStatus(SetCarLockStatusParameters()))
    }

    static let everyIntent: [Intent] = [
        .setClimateSettingsInCar(
            SetClimateSettingsInCarParameters(
                enableFan: true, enableAirConditioner: false, enableClimateControl: true, enableAutoMode: false,
                airCirculationMode: .recirculateAir, fanSpeedIndex: 3, fanSpeedPercentage: 42.5, relativeFanSpeedSetting: .higher,
                temperature: .fahrenheit(70), relativeTemperatureSetting: .lowest, climateZone: .rearLeft, carName: "Sedan")),
        .setDefrosterSettingsInCar(SetDefrosterSettingsInCarParameters(enable: true, defroster: .rear, carName: "x")),
        .setSeatSettingsInCar(
            SetSeatSettingsInCarParameters(
                enableHeating: true, enableCooling: false, enableMassage: true, seat: .thirdRow, level: 2, relativeLevelSetting: .lowest, carName: "c")),
        .setAudioSourceInCar(SetAudioSourceInCarParameters(audioSource: .sourceUSB, relativeAudioSourceReference: .previous)),
        .setRadioStation(SetRadioStationParameters(radioType: .DAB, frequency: 101.1, stationName: "Jazz", channel: "12A", presetNumber: 2)),
        .saveProfileInCar(SaveProfileInCarParameters(profileNumber: 2, profileName: "Anna")),
        .setProfileInCar(SetProfileInCarParameters(profileNumber: 1, profileName: "Ben", isDefaultProfile: false, carName: "Sedan")),
        .setCarLockStatus(SetCarLockStatusParameters(locked: true, carName: "Sedan")),
        .getCarLockStatus(CarNameParameters(carName: "Sedan")),
        .activateCarSignal(ActivateCarSignalParameters(carName: "Sedan", signals: [.visible, .audible])),
        .getCarPowerLevelStatus(CarNameParameters()),
        .setClimateSettingsInCar(SetClimateSettingsInCarParameters()),
    ]

    @Test(arguments: everyIntent) func roundTrip(_ intent: Intent) throws {
        let text = intent.jsonValue.serialized()
        #expect(try Intent(parsing: text) == intent)
        #expect(try Intent(parsing: text).jsonValue.serialized() == text)
    }

    @Test func serializedForm() {
        let intent = Intent.setClimateSettingsInCar(SetClimateSettingsInCarParameters(temperature: .celsius(21.5), climateZone: .driver))
        #expect(
            intent.jsonValue.serialized()
                == #"{"intent":"SetClimateSettingsInCar","parameters":{"climateZone":"driver","temperature":{"unit":"celsius","value":21.5}}}"#)
        #expect(
            Intent.activateCarSignal(ActivateCarSignalParameters(signals: [.audible])).jsonValue.serialized()
                == #"{"intent":"ActivateCarSignal","parameters":{"signals":["audible"]}}"#)
    }

    @Test func everyIntentNameParses() throws {
        for name in IntentName.allCases {
            #expect(try Intent(parsing: request(name.rawValue)).name == name)
        }
    }

    static let errors: [(String, IntentParseError, String)] = [
        ("{", .malformedJSON(""), "malformed JSON"),
        ("[1]", .notAnObject(found: "an array"), "expected an object"),
        (#"{"parameters":{}}"#, .missingIntent, #"missing "intent""#),
        (#"{"intent":"Honk"}"#, .unknownIntent("Honk"), #"unknown intent "Honk""#),
        (#"{"intent":7}"#, .invalidParameter(name: "intent", expected: "an intent name", found: "7"), "intent: expected an intent name, found 7"),
        (#"{"intent":"GetCarLockStatus","paramters":{}}"#, .unknownField("paramters"), #"unknown field "paramters""#),
        (
            #"{"intent":"GetCarLockStatus","parameters":[]}"#, .invalidParameter(name: "parameters", expected: "an object", found: "an array"),
            "parameters: expected an object, found an array"
        ),
        (
            request("SetSeatSettingsInCar", #""relativeLevel":"higher","relativeLevelSetting":"lower""#),
            .invalidParameter(name: "relativeLevelSetting", expected: "one value", found: "it also given as relativeLevelSetting"),
            "relativeLevelSetting: expected one value"
        ),
        (
            request("SetCarLockStatus", #""lock":true"#), .unknownParameter(intent: "SetCarLockStatus", name: "lock"),
            #"SetCarLockStatus has no parameter "lock"; its parameters are locked, carName"#
        ),
        (
            request("SetClimateSettingsInCar", #""climateZone":"trunk""#),
            .invalidParameter(
                name: "climateZone",
                expected: "one of driver, passenger, frontLeft, frontRight, front, rearLeft, rearRight, rear, thirdRowLeft, thirdRowRight, thirdRow, all",
                found: #""trunk""#),
            #"climateZone: expected one of driver, passenger, frontLeft"#
        ),
        (
            request("SetClimateSettingsInCar", #""enableFan":1"#), .invalidParameter(name: "enableFan", expected: "true or false", found: "1"),
            "enableFan: expected true or false, found 1"
        ),
        (
            request("SetClimateSettingsInCar", #""fanSpeedIndex":true"#), .invalidParameter(name: "fanSpeedIndex", expected: "an integer", found: "true"),
            "fanSpeedIndex: expected an integer, found true"
        ),
        (
            request("SetClimateSettingsInCar", #""fanSpeedIndex":2.5"#), .invalidParameter(name: "fanSpeedIndex", expected: "an integer", found: "2.5"),
            "fanSpeedIndex"
        ),
        (
            request("SetClimateSettingsInCar", #""fanSpeedPercentage":120"#),
            .invalidParameter(name: "fanSpeedPercentage", expected: "a number 0…100", found: "120"), "fanSpeedPercentage: expected a number 0…100, found 120"
        ),
        (
            request("SetClimateSettingsInCar", #""temperature":21"#),
            .invalidParameter(name: "temperature", expected: #"{"value": number, "unit": "celsius" or "fahrenheit"}"#, found: "21"), "temperature: expected"
        ),
        (
            request("SetClimateSettingsInCar", #""temperature":{"value":21,"unit":"kelvin"}"#),
            .invalidParameter(name: "temperature.unit", expected: "one of celsius, fahrenheit", found: #""kelvin""#), "temperature.unit"
        ),
        (
            request("SetClimateSettingsInCar", #""temperature":{"value":"warm","unit":"celsius"}"#),
            .invalidParameter(name: "temperature.value", expected: "a number", found: #""warm""#), "temperature.value"
        ),
        (
            request("SetDefrosterSettingsInCar", #""defroster":"side""#),
            .invalidParameter(name: "defroster", expected: "one of front, rear, all", found: #""side""#), "defroster: expected one of front, rear, all"
        ),
        (request("SetRadioStation", #""channel":true"#), .invalidParameter(name: "channel", expected: "a string or an integer", found: "true"), "channel:"),
        (request("SetRadioStation", #""frequency":"high""#), .invalidParameter(name: "frequency", expected: "a number", found: #""high""#), "frequency:"),
        (
            request("SetRadioStation", #""radioType":"LW""#),
            .invalidParameter(name: "radioType", expected: "one of AM, FM, HD, satellite, DAB", found: #""LW""#), "radioType:"
        ),
        (
            request("SetAudioSourceInCar", #""audioSource":"tape""#),
            .invalidParameter(
                name: "audioSource",
                expected:
                    "one of sourceCarPlay, sourceiPod, sourceRadio, sourceBluetooth, sourceAUX, sourceUSB, sourceMemoryCard, sourceOpticalDrive, sourceHardDrive",
                found: #""tape""#), "audioSource:"
        ),
        (
            request("ActivateCarSignal", #""signals":"audible""#),
            .invalidParameter(name: "signals", expected: "an array of audible, visible", found: #""audible""#), "signals:"
        ),
        (
            request("ActivateCarSignal", #""signals":["horn"]"#),
            .invalidParameter(name: "signals", expected: "an array of audible, visible", found: #""horn""#),
            #"signals: expected an array of audible, visible, found "horn""#
        ),
        (
            request("SaveProfileInCar", #""profileName":3"#), .invalidParameter(name: "profileName", expected: "a string", found: "3"),
            "profileName: expected a string"
        ),
        (
            request("SetSeatSettingsInCar", #""relativeLevel":"up""#),
            .invalidParameter(name: "relativeLevelSetting", expected: "one of lowest, lower, higher, highest", found: #""up""#), "relativeLevelSetting:"
        ),
    ]

    @Test func errorsNameWhatIsWrong() {
        for (text, expected, message) in Self.errors {
            do {
                let intent = try Intent(parsing: text)
                Issue.record("\(text) parsed as \(intent)")
            } catch {
                if case .malformedJSON = expected {
                    guard case .malformedJSON = error else { Issue.record("\(text): \(error)"); continue }
                } else {
                    #expect(error == expected, "\(text)")
                }
                #expect(error.description.contains(message), "\(error.description)")
            }
        }
    }
}

/// The parameter an API error names, and the reason without it (the daemon's
/// InvalidParameter, carplayctl's refusal before sending).
@Suite struct IntentParseErrorParameterTests {
    @Test func theParameterAndTheReasonApart() {
        let invalid = IntentParseError.invalidParameter(name: "enableFan", expected: "true or false", found: "1")
        #expect(invalid.parameter == ("enableFan", "expected true or false, found 1"))
        let unknown = IntentParseError.unknownParameter(intent: "SetCarLockStatus", name: "lock")
        #expect(unknown.parameter.name == "lock" && unknown.parameter.reason == unknown.description)
        #expect(IntentParseError.missingIntent.parameter == ("parameters", #"missing "intent""#))
    }
}
