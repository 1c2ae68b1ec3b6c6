import CANBus
import CANKit
import Foundation
import Synchronization
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents

/// Another party on the bus: records every frame in bus order and injects its own.
final class RogueNode: Sendable {
    let port: VirtualCANPort
    private let seen = Locked<[CANFrame]>([])

    init(bus: VirtualCANBus) async {
        port = bus.makePort()
        let seen = self.seen
        port.startReceiving(CANReceiver(frame: { received in seen.withLock { $0.append(received.frame) } }))
    }

    var frames: [CANFrame] { seen.withLock { $0 } }

    func frames(id: CANID) -> [CANFrame] { frames.filter { $0.id == id } }

    func inject(_ frame: CANFrame) async throws {
        if case let .failed(error) = port.send(frame) { throw error }
    }

    deinit { port.close() }
}

extension VehicleProfile {
    func canID(_ message: String) -> CANID { database.message(named: message)!.canID }
    func protection(_ message: String) -> FrameProtection { protection[message]!.protection }
}

/// `frame` with its alive counter set to `counter` and a valid CRC (what a forger who
/// knows the data ID produces).
func reprotected(_ frame: CANFrame, _ protection: FrameProtection, counter: UInt8) throws -> CANFrame {
    var data = frame.data
    try protection.protect(&data, frameID: frame.id.rawValue, counter: counter)
    return try CANFrame(id: frame.id, data: data)
}

/// `frame` with one payload bit flipped outside the CRC byte: the CRC no longer matches.
func corrupted(_ frame: CANFrame, _ protection: FrameProtection) throws -> CANFrame {
    var data = frame.data
    let index = protection.checksum?.bytes.contains(data.count - 1) == true ? 0 : data.count - 1
    data[index] ^= 0x01
    return try CANFrame(id: frame.id, data: data)
}

// MARK: - Untrusted status frames

/// Status frames that fail the E2E check are not trusted: counted (trustFailures, the
/// daemon's `GetState` bus.untrustedFrames), named (lastTrustFailure, which the daemon
/// logs) and never applied to the live state.
///
/// "Unexpected sender": CAN frames carry no sender address. The DBC names the
/// transmitter node of each message, but a receiver only sees the frame ID, so a frame
/// with a status ID sent by another node is indistinguishable from the vehicle's except
/// through E2E (CRC over the data ID, alive counter sequence). Frames with IDs outside the
/// profile are not the vehicle's: ignored (the kernel filter drops them on SocketCAN).
@Suite struct UntrustedStatusFrameTests {
    static let seatHeating = PropertyKey.seat(.frontLeft, .heating)

    func setUp() async throws -> (FaultRig, RogueNode, StateHistory) {
        let rig = try await FaultRig.start(timeout: .seconds(3))
        let rogue = await RogueNode(bus: rig.bus)
        let set = try await rig.perform(#"{"intent":"SetSeatSettingsInCar","parameters":{"enableHeating":true,"seat":"driver","level":2}}"#)
        #expect(set.response.code == .success, "\(set.response)")
        // The rogue has seen SeatStatus frames with heating 2 by now (200 ms cycle).
        let id = rig.engine.profile.canID("SeatStatus")
        #expect(await rig.time.until { rogue.frames(id: id).count >= 2 })
        let history = await StateHistory(controller: rig.controller, initial: rig.controller.currentState)
        return (rig, rogue, history)
    }

    /// A SeatStatus frame saying heating 0, built by a forger.
    func forgedSeatStatus(_ rig: FaultRig) throws -> CANFrame {
        let frames = VehicleFrames(profile: rig.engine.profile)
        var state = VehicleSimulation.defaultState(for: rig.engine.profile)
        state[Self.seatHeating] = .integer(0)
        var counters: [String: UInt8] = [:]
        return try frames.statusFrame("SeatStatus", state: state, counters: &counters)
    }

    /// `statuses`: the verdicts accepted (a genuine frame may slip in between the rogue
    /// reading the last counter and injecting, turning "repeated" into "wrongSequence").
    func expectUntrusted(_ rig: FaultRig, history: StateHistory, before: Int, status statuses: String...) async {
        #expect(await rig.time.until { rig.controller.untrustedFrames > before }, "counted as untrusted")
        let last = rig.controller.lastUntrustedFrame ?? ""
        #expect(last.contains("SeatStatus") && statuses.contains(where: last.contains), "named: \(last)")
        #expect(!history.showed(Self.seatHeating, .integer(0)), "the forged value never reached the live state: \(history.values(Self.seatHeating))")
        #expect(rig.controller.currentState[Self.seatHeating] == .integer(2))
    }

    @Test func wrongCRCIsNotTrusted() async throws {
        let (rig, rogue, history) = try await setUp()
        try await stopping(rig) { rig in
            let protection = rig.engine.profile.protection("SeatStatus")
            let latest = try #require(protection.counter(in: rogue.frames(id: rig.engine.profile.canID("SeatStatus")).last!.data))
            let forged = try reprotected(try forgedSeatStatus(rig), protection, counter: protection.nextCounter(after: latest))
            let before = rig.controller.untrustedFrames
            try await rogue.inject(try corrupted(forged, protection))
            await expectUntrusted(rig, history: history, before: before, status: "wrongCRC")
        }
    }

    @Test func repeatedCounterIsNotTrusted() async throws {
        let (rig, rogue, history) = try await setUp()
        try await stopping(rig) { rig in
            let protection = rig.engine.profile.protection("SeatStatus")
            // Old content replayed under the counter the vehicle used last: a repetition.
            let latest = try #require(protection.counter(in: rogue.frames(id: rig.engine.profile.canID("SeatStatus")).last!.data))
            let before = rig.controller.untrustedFrames
            try await rogue.inject(try reprotected(try forgedSeatStatus(rig), protection, counter: latest))
            await expectUntrusted(rig, history: history, before: before, status: "repeated", "wrongSequence")
        }
    }

    @Test func skippedCounterIsNotTrusted() async throws {
        let (rig, rogue, history) = try await setUp()
        try await stopping(rig) { rig in
            let protection = rig.engine.profile.protection("SeatStatus")
            let latest = try #require(protection.counter(in: rogue.frames(id: rig.engine.profile.canID("SeatStatus")).last!.data))
            let skipped = protection.nextCounter(after: protection.nextCounter(after: protection.nextCounter(after: latest)))
            let before = rig.controller.untrustedFrames
            try await rogue.inject(try reprotected(try forgedSeatStatus(rig), protection, counter: skipped))
            await expectUntrusted(rig, history: history, before: before, status: "wrongSequence")
            // The checker resynchronises: the vehicle's own frames are trusted again and
            // intents keep working.
            await rig.expectConvergence("after a skipped counter")
            let next = try await rig.perform(#"{"intent":"SetSeatSettingsInCar","parameters":{"enableHeating":true,"seat":"driver","level":3}}"#)
            #expect(next.response.code == .success, "\(next.response)")
        }
    }

    @Test func foreignIDsAreIgnoredNotCounted() async throws {
        let (rig, rogue, _) = try await setUp()
        try await stopping(rig) { rig in
            let before = rig.controller.untrustedFrames
            try await rogue.inject(try CANFrame(id: CANID(standard: 0x7FF), data: [0xDE, 0xAD]))
            try await rogue.inject(try CANFrame(id: CANID(extended: 0x1ABC_DEF0), data: [1, 2, 3, 4, 5, 6, 7, 8]))
            let next = try await rig.perform(#"{"intent":"SetSeatSettingsInCar","parameters":{"enableHeating":true,"seat":"driver","level":1}}"#)
            #expect(next.response.code == .success)
            #expect(rig.controller.untrustedFrames == before, "not the vehicle's frames: not a trust failure")
        }
    }
}

// MARK: - Rogue command frames

/// Command frames replayed or forged by another party are refused by the simulated
/// vehicle's E2E check (strict: every alive counter must follow the previous one).
@Suite struct RogueCommandFrameTests {
    static let key = PropertyKey.seat(.frontLeft, .heating)

    func setLevel(_ rig: FaultRig, _ level: Int) async throws -> IntentOutcome {
        try await rig.perform(#"{"intent":"SetSeatSettingsInCar","parameters":{"enableHeating":true,"seat":"driver","level":\#(level)}}"#)
    }

    /// The head unit sets 1 then 3; the rogue captured both command frames.
    func setUp() async throws -> (FaultRig, RogueNode, [CANFrame]) {
        let rig = try await FaultRig.start(timeout: .seconds(3))
        let rogue = await RogueNode(bus: rig.bus)
        #expect(try await setLevel(rig, 1).response.code == .success)
        #expect(try await setLevel(rig, 3).response.code == .success)
        let id = rig.engine.profile.canID("SeatCommand")
        #expect(await rig.time.until { rogue.frames(id: id).count >= 2 })
        return (rig, rogue, rogue.frames(id: id))
    }

    /// Waits until the vehicle counted `count` more E2E errors, then checks it holds 3.
    func expectRefused(_ rig: FaultRig, before: SimulationStatistics, more count: Int) async {
        #expect(await rig.time.until { rig.vehicle.statistics().untrustedFrames >= before.untrustedFrames + count }, "the vehicle counted the rogue frames")
        let after = rig.vehicle.statistics()
        #expect(after.commandsApplied == before.commandsApplied, "nothing applied")
        #expect(rig.vehicle.state()[Self.key] == .integer(3))
        let log = rig.vehicle.drainLog().map(\.description)
        #expect(log.contains { $0.contains("e2eError") && $0.contains("SeatCommand") }, "logged: \(log.suffix(5))")
    }

    @Test func replayedCommandsAreRefused() async throws {
        let (rig, rogue, captured) = try await setUp()
        try await stopping(rig) { rig in
            let before = rig.vehicle.statistics()
            // The latest frame again (a repeated counter), then the older one (set 1).
            try await rogue.inject(captured[captured.count - 1])
            try await rogue.inject(captured[captured.count - 2])
            await expectRefused(rig, before: before, more: 2)
            // The old frame moved the vehicle's reference counter back (it resynchronises on
            // a jump), so the head unit's next command may be refused once (a timeout);
            // the one after it is in sequence again.
            let next = try await setLevel(rig, 2)
            #expect(next.response.code == .success || next.response.reason == "timeout", "\(next.response)")
            let again = try await setLevel(rig, 1)
            #expect(again.response.code == .success, "\(again.response)")
            #expect(rig.vehicle.state()[Self.key] == .integer(1))
        }
    }

    @Test func forgedCommandsAreRefused() async throws {
        let (rig, rogue, captured) = try await setUp()
        try await stopping(rig) { rig in
            let protection = rig.engine.profile.protection("SeatCommand")
            let latest = try #require(protection.counter(in: captured.last!.data))
            let before = rig.vehicle.statistics()
            // The "set 1" frame with the next counter but a broken CRC.
            let older = try reprotected(captured[captured.count - 2], protection, counter: protection.nextCounter(after: latest))
            try await rogue.inject(try corrupted(older, protection))
            await expectRefused(rig, before: before, more: 1)
            // Valid CRC, but the counter skips ahead: out of sequence.
            let skipped = protection.nextCounter(after: protection.nextCounter(after: latest))
            try await rogue.inject(try reprotected(captured[captured.count - 2], protection, counter: skipped))
            await expectRefused(rig, before: before, more: 2)
            // The head unit recovers within two intents.
            _ = try await setLevel(rig, 2)
            let again = try await setLevel(rig, 1)
            #expect(again.response.code == .success, "\(again.response)")
        }
    }
}

// MARK: - Conflicting clients

/// Many clients set the same property to different values at once. IntentEngine handles
/// one intent at a time in arrival order, so the command frames reach the bus in that
/// order: the vehicle ends with the value of the last command on the bus, which is the
/// last intent handled; every client is told the truth about its own value.
@Suite struct ConflictingClientsTests {
    @Test(arguments: [(32, 0), (48, 10)])
    func theLastConfirmedIntentWins(clients: Int, rejections: Int) async throws {
        let rig = try await FaultRig.start(timeout: .seconds(5))
        try await stopping(rig) { rig in
            let observer = await RogueNode(bus: rig.bus)
            let history = await StateHistory(controller: rig.controller, initial: rig.controller.currentState)
            if rejections > 0 {
                // The first `rejections` radio commands the vehicle receives are rejected.
                rig.vehicle.setFaults(FaultPlan([.reject(message: "AudioCommand", count: rejections)]))
            }
            // Distinct FM frequencies, none of them the current one.
            let current = rig.controller.currentState[.radioFrequency]
            let values = (0..<clients).map { Double(900 + 3 * $0) / 10 }.filter { value in current.map { !HeadUnit.matches($0, .number(value)) } ?? true }
            let engine = rig.engine
            let results = try #require(
                try await rig.time.run {
                    await withTaskGroup(of: (Double, IntentOutcome?).self) { group in
                        for value in values {
                            group.addTask {
                                let intent = try? Intent(parsing: #"{"intent":"SetRadioStation","parameters":{"radioType":"FM","frequency":\#(value)}}"#)
                                guard let intent else { return (value, nil) }
                                return (value, await engine.perform(intent))
                            }
                        }
                        var all: [(Double, IntentOutcome?)] = []
                        for await result in group { all.append(result) }
                        return all
                    }
                })
            #expect(results.count == values.count)
            #expect(rig.controller.pendingCommands == 0)
            #expect(rig.engine.handlesInFlight == 0)
            // The commanded frequencies in bus order (one frame per intent).
            let profile = rig.engine.profile
            let vehicleFrames = VehicleFrames(profile: profile)
            var context = VehicleState()
            context[.radioBand] = .enumeration("FM")
            let commanded: [Double] = observer.frames(id: profile.canID("AudioCommand")).compactMap { frame in
                var checkers: [String: FrameChecker] = [:]
                var latches: [String: [Int128]] = [:]
                guard case let .command(command) = vehicleFrames.decodeFromHeadUnit(frame, context: context, checkers: &checkers, latches: &latches) else {
                    return nil
                }
                return command.changes[.radioFrequency]?.doubleValue
            }
            #expect(commanded.count == values.count, "one command frame per client")
            var succeeded = Set<Double>()
            for (value, result) in results {
                guard let result else {
                    Issue.record("\(value): the intent did not parse")
                    continue
                }
                if result.response.code == .success {
                    succeeded.insert(value)
                    #expect(await history.eventuallyShowed(.radioFrequency, .number(value)), "\(value): success, but no status frame showed it")
                } else {
                    #expect(result.response.reason == "rejectedByVehicle", "\(value): \(result.response)")
                    #expect(!history.showed(.radioFrequency, .number(value)), "\(value): refused, but the vehicle took it")
                }
            }
            #expect(values.count - succeeded.count == min(rejections, values.count), "exactly the rejected ones failed")
            // The last command on the bus is the last intent handled; it succeeded, and it is
            // what the vehicle and the head unit hold.
            let last = try #require(commanded.last)
            #expect(succeeded.contains { HeadUnit.matches(.number($0), .number(last)) }, "the last intent handled was confirmed")
            let held = rig.vehicle.state()[.radioFrequency]
            #expect(held.map { HeadUnit.matches($0, .number(last)) } == true, "the vehicle holds \(String(describing: held)), the last command was \(last)")
            await rig.expectConvergence("after \(values.count) conflicting clients")
            let live = rig.controller.currentState[.radioFrequency]
            #expect(live.map { HeadUnit.matches($0, .number(last)) } == true)
        }
    }
}
