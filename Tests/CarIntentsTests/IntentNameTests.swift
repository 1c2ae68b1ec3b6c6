import Testing
@testable import CarIntents

@Suite struct IntentNameTests {
    @Test func elevenSiriKitNames() {
        #expect(IntentName.allCases.count == 11)
        #expect(IntentName(rawValue: "SetClimateSettingsInCar") == .setClimateSettingsInCar)
        #expect(IntentName(rawValue: "GetCarPowerLevelStatus") == .getCarPowerLevelStatus)
    }
}
