import TestSupport
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents

/// Each intent answers only the codes of its own SiriKit response code enum
/// (`IN<Name>IntentResponseCode`).
@Suite struct ResponseCodeTests {
    @Test func siriKitsCodesPerIntent() {
        for name in IntentName.allCases {
            #expect(Array(name.responseCodes.prefix(6)) == [.unspecified, .ready, .inProgress, .success, .failure, .failureRequiringAppLaunch], "\(name)")
        }
        #expect(IntentName.allCases.filter { $0.responseCodes.contains(.failureNotSubscribed) } == [.setRadioStation])
        #expect(Set(IntentName.allCases.flatMap(\.responseCodes)) == Set(IntentResponseCode.allCases), "no code belongs to no intent")
    }

    @Test func aCodeTheIntentLacksBecomesFailure() {
        let notSubscribed = IntentResponse(code: .failureNotSubscribed, reason: "satellite radio is not subscribed")
        #expect(notSubscribed.within(.setRadioStation) == notSubscribed)
        #expect(notSubscribed.within(.setProfileInCar) == IntentResponse(code: .failure, reason: "satellite radio is not subscribed"))
        #expect(IntentResponse(code: .failureNotSubscribed).within(.setAudioSourceInCar) == IntentResponse(code: .failure, reason: "failureNotSubscribed"))
    }

    /// One request per intent that the sedan carries out.
    static let handled: [IntentName: String] = [
        .setClimateSettingsInCar: #"{"temperature":{"value":22,"unit":"celsius"}}"#,
        .setDefrosterSettingsInCar: #"{"enable":true,"defroster":"rear"}"#,
        .setSeatSettingsInCar: #"{"seat":"driver","enableHeating":true,"level":1}"#,
        .setAudioSourceInCar: #"{"audioSource":"sourceBluetooth"}"#,
        .setRadioStation: #"{"radioType":"FM","frequency":101.1}"#,
        .saveProfileInCar: #"{"profileNumber":1,"profileName":"Anna"}"#,
        .setProfileInCar: #"{"profileNumber":1}"#,
        .setCarLockStatus: #"{"locked":false}"#,
        .getCarLockStatus: "{}",
        .activateCarSignal: #"{"signals":["visible"]}"#,
        .getCarPowerLevelStatus: "{}",
        .listCars: "{}",
    ]

    /// One request per intent that does not resolve (ListCars has no parameters: it always does).
    static let unresolved: [IntentName: String] = [
        .setClimateSettingsInCar: "{}", .setDefrosterSettingsInCar: "{}", .setSeatSettingsInCar: "{}", .setAudioSourceInCar: "{}",
        .setRadioStation: "{}", .saveProfileInCar: #"{"profileNumber":9}"#, .setProfileInCar: "{}", .setCarLockStatus: "{}",
        .getCarLockStatus: #"{"carName":"truck"}"#, .activateCarSignal: "{}", .getCarPowerLevelStatus: #"{"carName":"truck"}"#,
    ]

    static func intent(_ name: IntentName, _ parameters: String) throws -> Intent {
        try Intent(parsing: #"{"intent":"\#(name.rawValue)","parameters":\#(parameters)}"#)
    }

    /// Every intent in every outcome these tests can produce: each phase, handled,
    /// not resolved, restricted while the device is locked, refused while the car is
    /// locked, rejected by the vehicle, vehicle unreachable, satellite not subscribed.
    @Test func everyOutcomeAnswersOneOfItsIntentsCodes() async throws {
        var seen: [(IntentName, String, IntentResponse)] = []
        func record(_ name: IntentName, _ what: String, _ outcome: IntentOutcome) {
            seen.append((name, what, outcome.response))
        }

        var profile = try ShippedProfiles.load("sedan")
        profile.policies.confirmationTimeout = .seconds(2)
        // Virtual time: the sedan confirms (or refuses) while a command is sent, so time
        // only has to pass for the vehicle to fall silent.
        let clock = ManualClock()
        let embedded = EmbeddedVehicle(VehicleSimulation(profile: profile, state: VehicleSimulation.defaultState(for: profile)), clock: clock)
        let session = VehicleSession(profile: profile, vehicle: .inProcess(embedded), restrictedWhileLocked: Set(IntentName.allCases), clock: clock)
        try await stopping(session) { session in
            #expect(await session.controller.waitUntilComplete(timeout: .seconds(10)))
            let engine = session.engine
            for name in IntentName.allCases {
                let intent = try Self.intent(name, Self.handled[name]!)
                for phase in [IntentPhase.resolve, .confirm] { record(name, "\(phase)", await engine.run(phase, intent)) }
                let handled = await engine.run(.perform, intent)
                #expect(handled.response.code == .success, "\(name): \(handled.response)")
                record(name, "perform", handled)
                record(name, "device locked", await engine.run(.perform, intent) { .locked(reason: "the session is locked") })
                if let parameters = Self.unresolved[name] { record(name, "not resolved", await engine.run(.perform, try Self.intent(name, parameters))) }
            }
            embedded.vehicle.setFaults(FaultPlan([FaultRule(.reject(result: nil))]))
            for name in IntentName.allCases { record(name, "rejected", await engine.run(.perform, try Self.intent(name, Self.handled[name]!))) }
            embedded.vehicle.setFaults(FaultPlan([FaultRule(.silence)]))
            clock.advance(by: session.controller.reachabilityWindow + .milliseconds(1))
            #expect(session.controller.isReachable == false)
            // An intent waits one reachability window for the silent car: time moves on.
            let time = VirtualTime(clock: clock, vehicle: embedded.vehicle)
            for name in IntentName.allCases {
                let intent = try Self.intent(name, Self.handled[name]!)
                record(name, "unreachable", try #require(try await time.run { await engine.run(.perform, intent) }))
            }

            // The car-lock policy refusing every intent, on a locked car.
            var locked = profile
            locked.policies.refusedWhileCarLocked = Set(IntentName.allCases.map(\.rawValue))
            var lockedState = VehicleSimulation.defaultState(for: locked)
            lockedState[.locked] = .bool(true)
            // Virtual time, as above: on the wall clock a loaded machine stalls the car's
            // status frames past its reachability window and the outcome is "unreachable".
            let lockedClock = ManualClock()
            let lockedSession = VehicleSession(
                profile: locked, vehicle: .inProcess(EmbeddedVehicle(VehicleSimulation(profile: locked, state: lockedState), clock: lockedClock)),
                clock: lockedClock)
            try await stopping(lockedSession) { lockedSession in
                #expect(await lockedSession.controller.waitUntilComplete(timeout: .seconds(10)))
                for name in IntentName.allCases {
                    record(name, "car locked", await lockedSession.engine.run(.perform, try Self.intent(name, Self.handled[name]!)))
                }

                // The SUV's satellite radio is not subscribed.
                let suv = try ShippedProfiles.load("suv")
                let suvClock = ManualClock()
                let suvSession = VehicleSession(
                    profile: suv,
                    vehicle: .inProcess(EmbeddedVehicle(VehicleSimulation(profile: suv, state: VehicleSimulation.defaultState(for: suv)), clock: suvClock)),
                    clock: suvClock)
                try await stopping(suvSession) { suvSession in
                    #expect(await suvSession.controller.waitUntilComplete(timeout: .seconds(10)))
                    let satellite = await suvSession.engine.run(.perform, try Self.intent(.setRadioStation, #"{"stationName":"jazz cafe"}"#))
                    #expect(satellite.response.code == .failureNotSubscribed)
                    record(.setRadioStation, "not subscribed", satellite)

                    for (name, what, response) in seen {
                        #expect(name.responseCodes.contains(response.code), "\(name) \(what): \(response.code) is not an \(name.rawValue) response code")
                    }
                    let codes = Set(seen.map(\.2.code))
                    #expect(codes == [.ready, .success, .failure, .failureNotSubscribed], "the outcomes cover what carplayd answers")
                    let reasons = Set(seen.compactMap(\.2.reason))
                    for reason in ["notResolved", "restrictedWhileLocked", "carLocked", "vehicleUnreachable", "rejectedByVehicle"] {
                        #expect(reasons.contains(reason), "an outcome with reason \(reason)")
                    }
                }
            }
        }
    }
}
