import Testing

@testable import CarIntents

@Suite struct IntentNameTests {
    /// The seven CarPlay intents and the five Car Commands (ListCars since iOS 14).
    @Test func twelveSiriKitNames() {
        #expect(IntentName.allCases.count == 12)
        #expect(IntentName(rawValue: "ListCars") == .listCars)
        #expect(IntentName(rawValue: "SetClimateSettingsInCar") == .setClimateSettingsInCar)
        #expect(IntentName(rawValue: "GetCarPowerLevelStatus") == .getCarPowerLevelStatus)
    }
}
