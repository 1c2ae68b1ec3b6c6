import CANKit
import Foundation
import Testing

@testable import VehicleKit

/// Issue 25, item 4: one property, several signals. `"signals": [...]` writes one value
/// to each (GM's left and right set point requests); `"with": {...}` sets fixed
/// companions beside the command (GM's "HMI active" bit). On Tests/Fixtures/gm-lowspeed.
@Suite struct FanOutCommandTests {
    static let front = PropertyKey.temperature(zone: "front")

    @Test func theSignalsAndTheCompanionAreLoaded() throws {
        let profile = try OverlappingSignalTests.gm().load()
        let binding = try #require(profile.bindings[Self.front])
        guard case let .setpoint(setpoint)? = binding.command else {
            Issue.record("a setpoint")
            return
        }
        #expect(setpoint.signals == ["RmClmCtrlLtSTempStReq", "RmClmCtrlRtSTempStReq"])
        #expect(
            binding.companions == [
                SignalRequest(signal: SignalReference(message: "Remote_Climate_Control_Req_LS", signal: "RmClmCtrlHMIActIndReq"), value: .raw(1))
            ])
    }

    /// The frame carries the value in both signals and the companion; a frame without the
    /// command (the lock's) leaves the companion idle.
    @Test func theFrameCarriesEverySignalAndTheCompanion() throws {
        let profile = try OverlappingSignalTests.gm().load()
        let frames = VehicleFrames(profile: profile)
        let message = try #require(profile.database.message(named: "Remote_Climate_Control_Req_LS"))
        var counters: [String: UInt8] = [:]
        let sent = try frames.commandFrames(for: [Self.front: .number(22.5)], counters: &counters)
        #expect(sent.count == 1)
        let decoded = Dictionary(try message.codec.decode(try #require(sent.first).data).map { ($0.name, $0.value.doubleValue) }) { first, _ in first }
        #expect(decoded["RmClmCtrlLtSTempStReq"] == 15 && decoded["RmClmCtrlRtSTempStReq"] == 15, "(22.5 - 15) / 0.5: \(decoded)")
        #expect(decoded["RmClmCtrlHMIActIndReq"] == 1)
        // What the simulated car reads from it: the set point, once.
        var checkers: [String: FrameChecker] = [:]
        var latches: [String: [Int128]] = [:]
        guard case let .command(command) = frames.decodeFromHeadUnit(try #require(sent.first), checkers: &checkers, latches: &latches) else {
            Issue.record("a command frame")
            return
        }
        #expect(command.changes[Self.front] == .number(22.5))
    }

    /// The simulated car, like the real one, takes the request only with its companion
    /// set: the same frame with the "HMI active" bit cleared asks for nothing.
    @Test func withoutItsCompanionARequestCountsForNothing() throws {
        let profile = try OverlappingSignalTests.gm().load()
        let frames = VehicleFrames(profile: profile)
        var counters: [String: UInt8] = [:]
        let sent = try #require(try frames.commandFrames(for: [Self.front: .number(22.5)], counters: &counters).first)
        var data = sent.data
        data[0] &= ~1  // RmClmCtrlHMIActIndReq: start bit 0, Motorola, 1 bit
        let bare = try CANFrame(id: sent.id, data: data)
        var checkers: [String: FrameChecker] = [:]
        var latches: [String: [Int128]] = [:]
        guard case let .command(with) = frames.decodeFromHeadUnit(sent, checkers: &checkers, latches: &latches),
            case let .command(without) = frames.decodeFromHeadUnit(bare, checkers: &checkers, latches: &latches)
        else {
            Issue.record("command frames")
            return
        }
        #expect(with.changes[Self.front] == .number(22.5))
        #expect(without.changes.isEmpty, "\(without.changes)")
    }

    @Test func everySignalMustCarryTheValueTheSameWay() throws {
        var gm = try OverlappingSignalTests.gm()
        try gm.json(#""RmClmCtrlRtSTempStReq"]"#, #""RmClmCtrlFrntFanStReq"]"#)
        gm.expectError(
            path: #"bindings["climate.temperature.front"].command.signals[1]"#,
            #"signal "RmClmCtrlFrntFanStReq" does not carry values the way "RmClmCtrlLtSTempStReq" does"#)

        gm = try OverlappingSignalTests.gm()
        try gm.json(#""signals": ["#, #""signal": "RmClmCtrlLtSTempStReq", "signals": ["#)
        gm.expectError(path: #"bindings["climate.temperature.front"].command.signals"#, "give signal or signals, not both")

        gm = try OverlappingSignalTests.gm()
        try gm.json(#""RmClmCtrlRtSTempStReq"]"#, #""RmClmCtrlLtSTempStReq"]"#)
        gm.expectError(path: #"bindings["climate.temperature.front"].command.signals[1]"#, "listed twice")
    }

    @Test func aCompanionIsAFixedValueOfAnotherSignal() throws {
        var gm = try OverlappingSignalTests.gm()
        try gm.json(#""with": {"RmClmCtrlHMIActIndReq": 1}"#, #""with": {"RmClmCtrlLtSTempStReq": 1}"#)
        gm.expectError(
            path: #"bindings["climate.temperature.front"].command.with["RmClmCtrlLtSTempStReq"]"#,
            #"is the setpoint of bindings["climate.temperature.front"].command"#)

        gm = try OverlappingSignalTests.gm()
        try gm.json(#""with": {"RmClmCtrlHMIActIndReq": 1}"#, #""with": {"HMIActive": 1}"#)
        gm.expectError(
            path: #"bindings["climate.temperature.front"].command.with["HMIActive"]"#, #"no signal "HMIActive" in message "Remote_Climate_Control_Req_LS""#)

        gm = try OverlappingSignalTests.gm()
        try gm.json(#""with": {"RmClmCtrlHMIActIndReq": 1}"#, #""with": {"RmClmCtrlHMIActIndReq": 2}"#)
        gm.expectError(
            path: #"bindings["climate.temperature.front"].command.with["RmClmCtrlHMIActIndReq"]"#, #"raw value 2 does not fit the 1 bits"#)
    }
}
