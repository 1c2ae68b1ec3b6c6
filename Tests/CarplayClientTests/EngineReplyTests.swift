import CarIntents
import CarplayClient
import CarplayJSON
import LinuxSupport
import TestSupport
import Testing
import VehicleKit
import VehicleSimulator

/// What the daemon's engine answers -- every intent, every phase, on the shipped example
/// cars -- decodes with the client's reply types: the two sides agree on the interface.
@Suite struct EngineReplyTests {
    static let intents = [
        #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":21.5,"unit":"celsius"},"climateZone":"driver","fanSpeedIndex":3}}"#,
        #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":40,"unit":"celsius"}}}"#,
        #"{"intent":"SetDefrosterSettingsInCar","parameters":{"enable":true,"defroster":"rear"}}"#,
        #"{"intent":"SetSeatSettingsInCar","parameters":{"enableHeating":true,"seat":"driver","level":2}}"#,
        #"{"intent":"SetSeatSettingsInCar","parameters":{"enableHeating":true}}"#,
        #"{"intent":"SetAudioSourceInCar","parameters":{"audioSource":"sourceBluetooth"}}"#,
        #"{"intent":"SetRadioStation","parameters":{"stationName":"Jazz"}}"#,
        #"{"intent":"SaveProfileInCar","parameters":{"profileNumber":1,"profileName":"Alex"}}"#,
        #"{"intent":"SetProfileInCar","parameters":{"profileNumber":1}}"#,
        #"{"intent":"SetCarLockStatus","parameters":{"locked":true}}"#,
        #"{"intent":"GetCarLockStatus","parameters":{}}"#,
        #"{"intent":"ActivateCarSignal","parameters":{"signals":["visible"]}}"#,
        #"{"intent":"GetCarPowerLevelStatus","parameters":{}}"#,
        #"{"intent":"ListCars","parameters":{}}"#,
    ]

    @Test(arguments: ["sedan", "suv"])
    func everyPhaseOfEveryIntentDecodes(_ car: String) async throws {
        let profile = try ProfileLoader.load(directory: TestPaths.repository("VehicleProfiles/\(car)").path) { path in
            try? FileDescriptor.readFile(atPath: path)
        }
        let session = VehicleSession(profile: profile, vehicle: .inProcess(EmbeddedVehicle(VehicleSimulation(profile: profile))))
        // A bound, not a wait (it returns once every status message came): real time, and
        // the parallel suites' synchronous tests can hold both pool threads for seconds.
        #expect(await session.controller.waitUntilComplete(timeout: .seconds(30)))
        for text in Self.intents {
            let intent = try Intent(parsing: Array(text.utf8))
            for phase in IntentPhase.allCases {
                let outcome = await session.engine.run(phase, intent)
                let members = try #require(outcome.json.objectValue)
                switch phase {
                case .resolve:
                    let reply = try ResolveReply(members)
                    #expect(reply.ready == outcome.isReady, "\(car) \(text)")
                    #expect(Set(reply.resolutions.keys) == Set(outcome.resolution.parameters.map(\.name)))
                case .confirm: #expect(try ConfirmReply(members).response.code == outcome.response.code, "\(car) \(text)")
                case .handle: #expect(try HandleReply(members).response.code == outcome.response.code, "\(car) \(text)")
                case .perform:
                    let reply = try PerformReply(members)
                    #expect(reply.response.code == outcome.response.code, "\(car) \(text)")
                    #expect(reply.resolutions == Dictionary(uniqueKeysWithValues: outcome.resolution.parameters.map { ($0.name, $0.result) }))
                }
            }
        }
        let cars = try PerformReply(#require(await session.engine.perform(Intent(parsing: Array(Self.intents.last!.utf8))).json.objectValue))
        #expect(cars.response.cars?.first?.displayName == profile.displayName)
        await session.stop()
    }
}
