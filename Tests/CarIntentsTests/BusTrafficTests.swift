import CANBus
import CANKit
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents

/// The controller's count of what the bus carried (GetBusTraffic): every CAN ID
/// received, untrusted frames on their own ID, commands as sent.
@Suite struct BusTrafficTests {
    @Test func receivedSentAndUntrustedPerID() async throws {
        let rig = try await Rig.start("sedan", confirmationTimeout: .seconds(5))
        try await stopping(rig) { rig in
            let database = rig.controller.profile.database
            let seatCommand = try #require(database.message(named: "SeatCommand")).canID
            let before = rig.controller.traffic()
            let result = try await rig.perform(#"{"intent":"SetSeatSettingsInCar","parameters":{"enableHeating":true,"seat":"driver","level":2}}"#)
            #expect(result.response.code == .success, "\(result.response)")
            let after = rig.controller.traffic()
            #expect(after.uptime > before.uptime)
            #expect(after.messages.map(\.id) == after.messages.map(\.id).sorted())
            let sent = after.messages.first { $0.id == seatCommand }
            let commandFrames = result.frames.filter { $0.frame.id == seatCommand }.count
            #expect(sent?.sent == commandFrames && sent?.received == 0 && commandFrames >= 1)
            for name in ["ClimateStatus", "SeatStatus", "BodyStatus"] {
                let id = try #require(database.message(named: name)).canID
                let message = try #require(after.messages.first { $0.id == id }, "\(name) counted")
                #expect(message.received > 0 && message.untrusted == 0 && message.sent == 0)
                #expect(message.lastReceived?.frame.id == id)
            }
        }
    }

    @Test func untrustedFramesCountOnTheirID() async throws {
        let rig = try await Rig.start("sedan", confirmationTimeout: .seconds(5))
        try await stopping(rig) { rig in
            let database = rig.controller.profile.database
            let audio = try #require(database.message(named: "AudioStatus")).canID
            let trusted = rig.controller.traffic().messages.first { $0.id == audio }?.received ?? 0
            rig.vehicle.setFaults(FaultPlan([FaultRule(.badCRC, message: "AudioStatus")]))
            #expect(await rig.time.until { rig.controller.untrustedFrames >= 3 }, "three untrusted AudioStatus frames")
            let messages = rig.controller.traffic().messages
            let audioTraffic = try #require(messages.first { $0.id == audio })
            #expect(audioTraffic.untrusted >= 3 && audioTraffic.received >= trusted + audioTraffic.untrusted)
            #expect(messages.filter { $0.id != audio }.allSatisfy { $0.untrusted == 0 })
            #expect(rig.controller.untrustedFrames == messages.reduce(0) { $0 + $1.untrusted })
        }
    }
}
