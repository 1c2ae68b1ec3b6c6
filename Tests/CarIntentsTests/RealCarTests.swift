import CANBus
import CANKit
import Foundation
import Testing
import VehicleSimulator

@testable import CarIntents
@testable import VehicleKit

/// The production cars of VehicleProfiles/ (DBCs byte for byte from commaai/opendbc):
/// their protection on published frames, and the simulated vehicle's faults on a car
/// without acknowledgement or protection.
@Suite struct RealCarTests {
    @Test(arguments: [
        "ford-cgea", "gm-global-a-lowspeed", "hyundai-ccan", "hyundai-kia-generic", "hyundai-mcan", "tesla-model-s", "toyota-2017", "vw-mqb",
    ])
    func loadsWithoutAcknowledgementOrE2E(_ name: String) throws {
        let profile = try ShippedProfiles.load(name)
        #expect(profile.acknowledgement == nil, "production cars send no acknowledgement")
        #expect(profile.protection.values.allSatisfy { !$0.protection.scheme.name.hasPrefix("carplayd") })
        #expect(!VehicleFrames(profile: profile).statusMessages.isEmpty)
    }

    /// "Fan to 2" gives enableFan with a level. The GM reports its fan switch and takes
    /// no command for it; the level it takes turns the fan on, so the request is fulfilled,
    /// not refused (it was refused "takes no command for climate.fan").
    @Test func aFanLevelFulfilsTheFanSwitch() async throws {
        let rig = try await Rig.start("gm-global-a-lowspeed")
        try await stopping(rig) { rig in
            #expect(rig.engine.profile.isReadOnly(.fan))
            let result = try await rig.perform(#"{"intent":"SetClimateSettingsInCar","parameters":{"enableFan":true,"fanSpeedIndex":2}}"#)
            #expect(result.response.code == .success, "\(result.response)")
            #expect(result.state[.fanSpeed] == .integer(2))
            // Off with a level still contradicts itself.
            let contradiction = try await rig.perform(#"{"intent":"SetClimateSettingsInCar","parameters":{"enableFan":false,"fanSpeedIndex":2}}"#)
            #expect(contradiction.response.code != .success)
        }
    }

    /// The Hyundai reports its distance to empty (`Clu_DTE`) and no fuel level: the power
    /// level is that range, from the simulated cluster's frame.
    @Test func theHyundaisPowerLevelIsItsRange() async throws {
        let rig = try await Rig.start("hyundai-mcan", state: [.distanceRemaining: .number(385)])
        try await stopping(rig) { rig in
            let result = try await rig.perform(#"{"intent":"GetCarPowerLevelStatus","parameters":{}}"#)
            #expect(result.response.code == .success, "\(result.response)")
            #expect(result.response.powerLevel.distanceRemaining == Quantity(value: 385, unit: .kilometers))
            #expect(result.response.powerLevel.fuelPercentRemaining == nil && result.response.powerLevel.dateOfLastStateUpdate != nil)
        }
    }

    /// Issue 25, item 7: what the car reports and SiriKit has no intent for (the outside
    /// temperature, auto defog) is read into the state as extensions; nothing sets it.
    @Test func extensionsAreReadAndNeverSet() async throws {
        let rig = try await Rig.start("hyundai-ccan", state: [.outsideTemperature: .number(-3.5), .autoDefog: .bool(false)])
        try await stopping(rig) { rig in
            let result = try await rig.perform(#"{"intent":"GetCarPowerLevelStatus","parameters":{}}"#)
            #expect(result.state[.outsideTemperature] == .number(-3.5))
            #expect(result.state[.autoDefog] == .bool(false))
            #expect(PropertyKey.outsideTemperature.isExtension && PropertyKey.outsideTemperature.isStatusOnly)
            #expect(rig.engine.profile.isReadOnly(.autoDefog))
        }
    }

    /// The Hyundai's rear climate has an on/off of its own (a climate control zone): a
    /// climateZone in the rear presses it, and only it.
    @Test func theHyundaisRearClimateSwitch() async throws {
        let rig = try await Rig.start("hyundai-mcan")
        try await stopping(rig) { rig in
            let result = try await rig.perform(#"{"intent":"SetClimateSettingsInCar","parameters":{"enableClimateControl":false,"climateZone":"rear"}}"#)
            #expect(result.response.code == .success, "\(result.response)")
            let frames = try rig.commands(result, "HU_DATC_E_02")
            #expect(frames.map { $0["HU_DATC_RearOnOffSet"] } == [1, 1, 1, 3], "RearOff held 3 frames, released")
            #expect(frames.allSatisfy { $0["HU_DATC_OffReq"] == 3 }, "the whole system's switch is left alone")
            #expect(rig.vehicle.state()[.climateControl(zone: "rear")] == .bool(false) && rig.vehicle.state()[.climateControl] == .bool(true))
        }
    }

    /// Licht_Anf_01 frames as a VW sends them (opendbc's published samples, counters 0...15,
    /// facts from commaai/opendbc, MIT) are trusted through the profile's `vw-mqb`
    /// declaration; the same frame with one bit flipped is not.
    @Test func publishedVolkswagenFramesAreTrustedThroughTheProfile() async throws {
        let profile = try ShippedProfiles.load("vw-mqb")
        let published = [
            "c800000400000000", "9f01000400000000", "5e02000400000000", "5203000400000000", "f204000400000000", "7905000400000000",
            "e606000400000000", "fd07000400000000", "f808000400000000", "c609000400000000", "f50a000400000000", "1a0b000400000000",
            "650c000400000000", "410d000400000000", "7f0e000400000000", "980f000400000000",
        ].map { hex in stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! } }
        let bus = VirtualCANBus()
        let controller = VehicleController(profile: profile, port: bus.makePort())
        controller.start()
        let car = bus.makePort()
        let id = try #require(CANID(0x3D5, extended: false))
        for data in published { car.send(try CANFrame(id: id, data: data)) }
        let failure = controller.lastUntrustedFrame
        #expect(controller.untrustedFrames == 0, "\(failure ?? "")")
        #expect(controller.isReachable, "trusted frames make the car reachable")
        var forged = published[0]
        forged[3] ^= 0x04
        car.send(try CANFrame(id: id, data: forged))
        #expect(controller.untrustedFrames == 1)
        #expect(controller.lastUntrustedFrame?.contains("Licht_Anf_01") == true)
        controller.stop()
    }

    /// The simulated VW sends Licht_Anf_01 under the same protection, its counter running
    /// 0...15 (the checksum scheme itself is checked on the published frames above and in
    /// FrameProtectionTests).
    @Test func theSimulatedVolkswagenProtectsWhatItSends() throws {
        let profile = try ShippedProfiles.load("vw-mqb")
        var simulation = VehicleSimulation(profile: profile)
        let id = try #require(CANID(0x3D5, extended: false))
        var sent: [[UInt8]] = []
        var time = Duration.zero
        while sent.count < 16 {
            sent += simulation.tick(at: time).filter { $0.id == id }.map(\.data)
            time += .milliseconds(50)
        }
        let protection = try #require(profile.protection["Licht_Anf_01"]?.protection)
        for (counter, data) in sent.enumerated() {
            #expect(protection.counter(in: data) == UInt8(counter % 16))
            #expect(protection.checksumMatches(data, frameID: 0x3D5), "frame \(counter): \(data)")
        }
    }
}

/// The fault plan on a production car: no acknowledgement (a refusal is silent), no
/// protection, commands by steps and momentary requests (the Hyundai).
@Suite struct RealCarFaultTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let rules: [FaultRule]
        let reasons: Set<String>
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "none", rules: [], reasons: []),
        Case(name: "drop", rules: [.drop()], reasons: ["timeout"]),
        Case(name: "delay within the timeout", rules: [.delay(.milliseconds(50))], reasons: []),
        Case(name: "delay beyond the timeout", rules: [.delay(.milliseconds(1500))], reasons: ["timeout"]),
        Case(name: "reject (no acknowledgement: silent)", rules: [.reject()], reasons: ["timeout"]),
        Case(name: "wrongValue", rules: [FaultRule(.wrongValue)], reasons: ["timeout"]),
        Case(name: "silence", rules: [FaultRule(.silence)], reasons: ["timeout", "vehicleUnreachable"]),
    ]

    static let intents: [(name: String, json: String, key: PropertyKey, value: PropertyValue)] = [
        (
            "stepped temperature", #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":22,"unit":"celsius"},"climateZone":"driver"}}"#,
            .temperature(zone: "frontLeft"), .number(22)
        ),
        ("momentary A/C", #"{"intent":"SetClimateSettingsInCar","parameters":{"enableAirConditioner":false}}"#, .airConditioner, .bool(false)),
    ]

    @Test(arguments: cases)
    func hyundai(_ testCase: Case) async throws {
        for intent in Self.intents {
            var profile = try ShippedProfiles.load("hyundai-mcan")
            profile.policies.confirmationTimeout = .seconds(1)
            let rig = try await Rig.start(profile: profile, state: [.temperature(zone: "frontLeft"): .number(21), .airConditioner: .bool(true)])
            rig.vehicle.setFaults(FaultPlan(testCase.rules))
            let result = try await rig.perform(intent.json)
            let holds = HeadUnit.matches(rig.vehicle.state()[intent.key] ?? .bool(false), intent.value)
            if testCase.reasons.isEmpty {
                #expect(result.response.code == .success, "\(intent.name), \(testCase.name): \(result.response)")
                #expect(holds, "\(intent.name): success means the car holds the value")
            } else {
                #expect(result.response.code == .failure, "\(intent.name), \(testCase.name): \(result.response)")
                #expect(result.response.reason.map(testCase.reasons.contains) == true, "\(intent.name), \(testCase.name): \(result.response)")
                #expect(result.response.detail != nil, "a failure explains itself")
            }
            #expect(rig.controller.pendingCommands == 0)
            await rig.stop()
        }
    }
}
