import CANBus
import CANKit
import Foundation
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents

/// Issue 25, item 9: `send: cyclic` sends the command message every period, its idle
/// frame between commands (a real receiver drops a requester that goes silent). The GM
/// remote-climate request is cyclic at 1 s.
@Suite struct CyclicSendingTests {
    static let request = "Remote_Climate_Control_Req_LS"

    static func decoded(_ frame: CANFrame, _ profile: VehicleProfile) throws -> [String: Double] {
        let message = try #require(profile.database.message(named: request))
        return Dictionary(try message.codec.decode(frame.data).map { ($0.name, $0.value.doubleValue) }) { first, _ in first }
    }

    /// The machine alone: the idle frame is due at start and every period after the last
    /// frame of the message; none while a command's frames are being sent.
    @Test func theMachineSendsTheIdleFrameEveryPeriod() throws {
        let profile = try ShippedProfiles.load("gm-global-a-lowspeed")
        var unit = HeadUnit(profile: profile)
        let start = ContinuousClock.now
        #expect(unit.nextDeadline == nil, "nothing is due before the cycles start")
        unit.startCyclicSending(at: start)
        #expect(unit.nextDeadline == start)
        func sent(_ events: [HeadUnit.Event]) -> [CANFrame] {
            events.flatMap { event -> [CANFrame] in if case let .send(frames) = event { frames } else { [] } }
        }
        let first = sent(unit.expire(at: start))
        #expect(first.count == 1 && first.first?.id == profile.database.message(named: Self.request)?.canID)
        let idle = try Self.decoded(try #require(first.first), profile)
        #expect(idle["RmClmCtrlHMIActIndReq"] == 0 && idle["RmClmCtrlLtSTempStReq"] == 0, "no request, no companion: \(idle)")
        #expect(unit.nextDeadline == start + .seconds(1))
        #expect(sent(unit.expire(at: start + .milliseconds(500))).isEmpty)

        // A command's frame at 0.8 s restarts the cycle; while its frames are being sent
        // (no timeout yet) no idle frame goes out.
        let frames = try unit.commandFrames(for: [.temperature(zone: "front"): .number(21)], context: unit.state)
        let token = unit.beginCommand(frames, expecting: [.temperature(zone: "front"): .number(21)], confirmed: [:], context: unit.state)
        unit.cyclicFrameSent(frames[0].id, at: start + .milliseconds(800))
        #expect(unit.nextDeadline == start + .milliseconds(1800))
        #expect(sent(unit.expire(at: start + .milliseconds(1800))).isEmpty, "the command is still being sent")
        unit.startTimeout(token, after: .seconds(3), at: start + .milliseconds(1900))
        #expect(sent(unit.expire(at: start + .milliseconds(2800))).count == 1)
    }

    /// Stopped, the head unit sends no idle frame and has nothing timed, so its runner's
    /// timer stops too; started again, the cycle resumes.
    @Test func stoppingEndsTheCycle() throws {
        let profile = try ShippedProfiles.load("gm-global-a-lowspeed")
        var unit = HeadUnit(profile: profile)
        let start = ContinuousClock.now
        unit.startCyclicSending(at: start)
        #expect(unit.nextDeadline == start)
        _ = unit.stop()
        #expect(unit.nextDeadline == nil)
        #expect(unit.expire(at: start + .seconds(5)).isEmpty)
        unit.startCyclicSending(at: start + .seconds(6))
        #expect(unit.nextDeadline == start + .seconds(6))
    }

    /// End to end in virtual time: idle frames reach the simulated car every second, and
    /// an intent still goes out and is confirmed between them.
    @Test func theRequesterIsNeverSilent() async throws {
        let rig = try await Rig.start("gm-global-a-lowspeed")
        try await stopping(rig) { rig in
            let id = try #require(rig.engine.profile.database.message(named: Self.request)?.canID)
            @Sendable func sentCount() -> Int { rig.controller.traffic().messages.first { $0.id == id }?.sent ?? 0 }
            let before = sentCount()
            _ = try await rig.time.run(limit: .seconds(10)) { () async -> Bool in
                while sentCount() < before + 3 { try? await Task.sleep(for: .milliseconds(1)) }
                return true
            }
            #expect(sentCount() >= before + 3, "three idle frames in about three seconds")
            let result = try await rig.perform(
                #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":23,"unit":"celsius"},"climateZone":"driver"}}"#)
            #expect(result.response.code == .success, "\(result.response)")
            #expect(rig.vehicle.state()[.temperature(zone: "front")] == .number(23))
        }
    }
}
