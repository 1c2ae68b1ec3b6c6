import Testing
import VehicleKit

@testable import CarIntents

@Suite struct ClimateResolutionTests {
    let climate = "SetClimateSettingsInCar"

    @Test func temperatureForTheDriverZone() throws {
        let r = try resolve(request(climate, #""temperature":{"value":21.5,"unit":"celsius"},"climateZone":"driver","carName":"MY SEDAN""#))
        #expect(r.parameters.map(\.name) == Intent.parameterNames(of: .setClimateSettingsInCar))
        #expect(r["temperature"] == .success(Temperature.celsius(21.5).jsonValue))
        #expect(r["climateZone"] == .success(["left"]))
        #expect(r["carName"] == .success("my sedan"))
        // A speakable string: spacing and punctuation do not count either.
        for spoken in ["mysedan", "My  Sedan", "my-sedan", "MY SEDAN."] {
            let spokenResult = try resolve(request(climate, #""enableFan":true,"carName":"\#(spoken)""#))
            #expect(spokenResult["carName"]?.isResolved == true, "\(spoken)")
        }
        #expect(r["enableFan"] == .notRequired)
        #expect(r.action == .set([.temperature(zone: "left"): .number(21.5)]))
        // The SUV is right-hand drive: the driver sits front right, zone "driver".
        let suv = try resolve(request(climate, #""temperature":{"value":21,"unit":"celsius"},"climateZone":"driver""#), TestProfiles.suv)
        #expect(suv.action == .set([.temperature(zone: "driver"): .number(21)]))
    }

    @Test func absentZoneWithTemperatureIsTheWholeCar() throws {
        let r = try resolve(request(climate, #""temperature":{"value":20,"unit":"celsius"}"#))
        #expect(r["climateZone"] == .success(["left", "right"]))
        #expect(r.action == .set([.temperature(zone: "left"): .number(20), .temperature(zone: "right"): .number(20)]))
        let fanOnly = try resolve(request(climate, #""enableFan":true"#))
        #expect(fanOnly["climateZone"] == .notRequired)
        #expect(fanOnly.action == .set([.fan: .bool(true)]))
    }

    @Test func zoneTheCarDoesNotHave() throws {
        let r = try resolve(request(climate, #""temperature":{"value":20,"unit":"celsius"},"climateZone":"thirdRow""#), TestProfiles.suv)
        #expect(r["climateZone"] == .unsupported(reason: "the Example SUV has no climate zone for the third-row seats"))
        #expect(r.action == nil)
        // Rear seats map to the SUV's rear zone.
        let rear = try resolve(request(climate, #""temperature":{"value":20,"unit":"celsius"},"climateZone":"rearRight""#), TestProfiles.suv)
        #expect(rear["climateZone"] == .success(["rear"]))
    }

    @Test func temperatureAboveTheMaximumIsClampedAndConfirmed() throws {
        let r = try resolve(request(climate, #""temperature":{"value":30,"unit":"celsius"}"#))
        #expect(r["temperature"] == .confirmationRequired(Temperature.celsius(28).jsonValue, reason: "30 °C is above the maximum 28 °C"))
        #expect(r.action == nil)
        let low = try resolve(request(climate, #""temperature":{"value":50,"unit":"fahrenheit"}"#))
        #expect(low["temperature"] == .confirmationRequired(Temperature.fahrenheit(61).jsonValue, reason: "50 °F is below the minimum 61 °F"))
    }

    @Test func temperatureBetweenStepsIsSnapped() throws {
        let r = try resolve(request(climate, #""temperature":{"value":21.3,"unit":"celsius"},"climateZone":"passenger""#))
        #expect(r["temperature"] == .success(Temperature.celsius(21.5).jsonValue))
        #expect(r.action == .set([.temperature(zone: "right"): .number(21.5)]))
    }

    @Test func fahrenheitIsResolvedInFahrenheitAndSetInCelsius() throws {
        let r = try resolve(request(climate, #""temperature":{"value":70.4,"unit":"fahrenheit"},"climateZone":"driver""#))
        #expect(r["temperature"] == .success(Temperature.fahrenheit(70).jsonValue))
        // 70 °F = 21.1 °C, on the 0.5 °C step: 21.
        #expect(r.action == .set([.temperature(zone: "left"): .number(21)]))
    }

    @Test func relativeTemperatureFromState() throws {
        let state = VehicleState([.temperature(zone: "left"): .number(21), .temperature(zone: "right"): .number(27.5)])
        let r = try resolve(request(climate, #""relativeTemperatureSetting":"higher""#), state: state)
        #expect(r["relativeTemperatureSetting"] == .success(["left": 21.5, "right": 28.0]))
        #expect(r.action == .set([.temperature(zone: "left"): .number(21.5), .temperature(zone: "right"): .number(28)]))
        let lowest = try resolve(request(climate, #""relativeTemperatureSetting":"lowest","climateZone":"driver""#))
        #expect(lowest.action == .set([.temperature(zone: "left"): .number(16)]))
        let unknown = try resolve(
            request(climate, #""relativeTemperatureSetting":"lower","climateZone":"passenger""#), state: VehicleState([.temperature(zone: "left"): .number(20)])
        )
        #expect(unknown["relativeTemperatureSetting"] == .needsValue(reason: "current temperature unknown"))
        #expect(unknown.action == nil)
    }

    @Test func temperatureAndRelativeTogetherIsRejected() throws {
        let r = try resolve(request(climate, #""temperature":{"value":20,"unit":"celsius"},"relativeTemperatureSetting":"higher""#))
        #expect(r["temperature"] == .success(Temperature.celsius(20).jsonValue))
        #expect(r["relativeTemperatureSetting"] == .unsupported(reason: "give either a temperature or a relative setting"))
        #expect(r.action == nil)
    }

    @Test func fanSpeed() throws {
        let r = try resolve(request(climate, #""fanSpeedIndex":4"#))
        #expect(r["fanSpeedIndex"] == .success(4))
        #expect(r.action == .set([.fan: .bool(true), .fanSpeed: .integer(4)]))
        let high = try resolve(request(climate, #""fanSpeedIndex":9"#))
        #expect(high["fanSpeedIndex"] == .confirmationRequired(7, reason: "fan speed 9 is above the highest level 7"))
        #expect(high.action == nil)
        let zero = try resolve(request(climate, #""fanSpeedIndex":0"#))
        #expect(zero["fanSpeedIndex"] == .confirmationRequired(1, reason: "fan speed 0 is below the lowest level 1"))
    }

    @Test func fanSpeedPercentage() throws {
        // 40 % of 7 levels = 2.8 -> 3.
        #expect(try resolve(request(climate, #""fanSpeedPercentage":40"#)).action == .set([.fan: .bool(true), .fanSpeed: .integer(3)]))
        #expect(try resolve(request(climate, #""fanSpeedPercentage":1"#))["fanSpeedPercentage"] == .success(1))
        #expect(try resolve(request(climate, #""fanSpeedPercentage":100"#))["fanSpeedPercentage"] == .success(7))
        #expect(try resolve(request(climate, #""fanSpeedPercentage":0"#)).action == .set([.fan: .bool(false)]))
        let both = try resolve(request(climate, #""fanSpeedPercentage":50,"fanSpeedIndex":2"#))
        #expect(both["fanSpeedPercentage"] == .unsupported(reason: "give either fanSpeedIndex or fanSpeedPercentage"))
        #expect(both.action == nil)
    }

    @Test func relativeFanSpeedFromState() throws {
        let state = VehicleState([.fanSpeed: .integer(7)])
        let higher = try resolve(request(climate, #""relativeFanSpeedSetting":"higher""#), state: state)
        #expect(higher["relativeFanSpeedSetting"] == .success(7))
        let lower = try resolve(request(climate, #""relativeFanSpeedSetting":"lower""#), state: state)
        #expect(lower.action == .set([.fan: .bool(true), .fanSpeed: .integer(6)]))
        #expect(
            try resolve(request(climate, #""relativeFanSpeedSetting":"highest""#), TestProfiles.suv).action
                == .set([.fan: .bool(true), .fanSpeed: .integer(5)]))
        #expect(
            try resolve(request(climate, #""relativeFanSpeedSetting":"lower""#))["relativeFanSpeedSetting"] == .needsValue(reason: "current fan speed unknown"))
        let both = try resolve(request(climate, #""relativeFanSpeedSetting":"lower","fanSpeedIndex":2"#), state: state)
        #expect(both["relativeFanSpeedSetting"] == .unsupported(reason: "give either a fan speed or a relative setting"))
        #expect(both.action == nil)
    }

    @Test func fanOffWithASpeedIsAConflict() throws {
        let r = try resolve(request(climate, #""enableFan":false,"fanSpeedIndex":3"#))
        #expect(r["enableFan"] == .unsupported(reason: "enableFan is false but a fan speed (3) was given"))
        #expect(r.action == nil)
    }

    @Test func switchesAndCapabilities() throws {
        let r = try resolve(
            request(climate, #""enableAirConditioner":true,"enableAutoMode":false,"enableClimateControl":true,"airCirculationMode":"recirculateAir""#))
        #expect(r["enableAirConditioner"] == .success(true))
        #expect(
            r.action
                == .set([.airConditioner: .bool(true), .autoMode: .bool(false), .climateControl: .bool(true), .airCirculation: .enumeration("recirculateAir")]))
        let suv = try resolve(request(climate, #""enableAutoMode":true,"airCirculationMode":"freshAir""#), TestProfiles.suv)
        #expect(suv["enableAutoMode"] == .unsupported(reason: "the Example SUV has no automatic climate mode"))
        #expect(suv["airCirculationMode"] == .unsupported(reason: "the Example SUV cannot switch between fresh and recirculated air"))
        #expect(suv.action == nil)
        let bare = try resolve(request(climate, #""enableFan":true"#), TestProfiles.bare)
        #expect(bare["enableFan"] == .unsupported(reason: "the Bare Car has no climate control"))
    }

    @Test func nothingToDoNeedsAValue() throws {
        let r = try resolve(request(climate, #""climateZone":"driver""#))
        #expect(r["temperature"] == .needsValue(reason: "nothing to set: give a temperature, a fan speed or a setting to switch on or off"))
        #expect(r.action == nil)
    }

    @Test func carNameOfAnotherCar() throws {
        let r = try resolve(request(climate, #""enableFan":true,"carName":"Truck""#))
        #expect(r["carName"] == .unsupported(reason: "this is Example Sedan, not Truck"))
        #expect(r.action == nil)
    }
}
