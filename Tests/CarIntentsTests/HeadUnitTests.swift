import CANBus
import CANKit
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents

/// The pure head unit against the pure simulated vehicle, frame by frame, in virtual
/// time: no bus, no task, no clock. Each case runs in microseconds and is exact about
/// when a deadline passes.
struct PureBench {
    var unit: HeadUnit
    var car: VehicleSimulation
    let origin = ContinuousClock.now
    var elapsed: Duration = .zero
    var now: HeadUnit.Instant { origin + elapsed }

    init(_ profileName: String, faults: FaultPlan = .none) throws {
        let profile = try ShippedProfiles.load(profileName)
        unit = HeadUnit(profile: profile)
        car = VehicleSimulation(profile: profile, state: VehicleSimulation.defaultState(for: profile), faults: faults)
    }

    func received(_ frame: CANFrame) -> ReceivedFrame {
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        return ReceivedFrame(
            frame: frame, timestamp: CandumpTimestamp(seconds: micros / 1_000_000, microseconds: UInt32(micros % 1_000_000)), interface: "vcan0")
    }

    /// The car's frames reach the head unit.
    mutating func deliver(_ frames: [CANFrame]) -> [HeadUnit.Event] {
        frames.flatMap { unit.receive(received($0), at: now) }
    }

    /// A command's frames go out and the car answers each at once.
    mutating func send(_ frames: [CANFrame], for token: HeadUnit.Token) -> [HeadUnit.Event] {
        var events: [HeadUnit.Event] = []
        for frame in frames {
            unit.sent(received(frame), for: token, at: unit.recordedFrameCount(of: token))
            events += deliver(car.receive(frame, at: elapsed))
        }
        return events
    }

    /// Time passes: the car's cyclic frames, then what expired.
    mutating func advance(by duration: Duration) -> [HeadUnit.Event] {
        elapsed += duration
        return deliver(car.tick(at: elapsed)) + unit.expire(at: now)
    }

    /// Starts a setpoint command for `targets`: its frames, its token.
    mutating func command(_ targets: [PropertyKey: PropertyValue]) throws -> (frames: [CANFrame], token: HeadUnit.Token) {
        let frames = try unit.commandFrames(for: targets, context: unit.state)
        return (frames, unit.beginCommand(frames, expecting: targets, confirmed: [:], context: unit.state))
    }
}

extension [HeadUnit.Event] {
    func settled(_ token: HeadUnit.Token) -> Bool {
        contains { if case .commandSettled(token) = $0 { true } else { false } }
    }

    func ended(_ token: HeadUnit.Token) -> Bool? {
        for case let .waitEnded(ended, met) in self where ended == token { return met }
        return nil
    }
}

@Suite struct HeadUnitTests {
    static let left = PropertyKey.temperature(zone: "left")

    @Test func aCommandIsSettledByTheStatusFrameThatShowsIt() throws {
        var bench = try PureBench("sedan")
        _ = bench.advance(by: .zero)
        #expect(bench.unit.holds(.complete, at: bench.now), "the first tick sends every status message")
        let (frames, token) = try bench.command([Self.left: .number(25)])
        var events = bench.send(frames, for: token)
        events += bench.advance(by: .milliseconds(100))
        #expect(events.settled(token))
        #expect(bench.unit.isSettled(token))
        let outcome = bench.unit.finishCommand(token)
        #expect(outcome.failure == nil)
        #expect(outcome.confirmed[Self.left] == .number(25))
        #expect(outcome.frames.count >= 2, "the command frame and the status frame, in bus order")
        #expect(bench.unit.commandCount == 0)
    }

    @Test func aDroppedCommandTimesOutExactlyAtItsDeadline() throws {
        var bench = try PureBench("sedan", faults: FaultPlan([FaultRule(.drop)]))
        _ = bench.advance(by: .zero)
        let before = bench.unit.state[Self.left]
        let (frames, token) = try bench.command([Self.left: .number(25)])
        _ = bench.send(frames, for: token)
        #expect(bench.unit.nextDeadline == nil, "no deadline before the timeout starts")
        bench.unit.startTimeout(token, after: .seconds(2), at: bench.now)
        #expect(bench.unit.nextDeadline == bench.now + .seconds(2))
        for _ in 0..<19 { #expect(!bench.advance(by: .milliseconds(100)).settled(token)) }
        #expect(!bench.advance(by: .milliseconds(99)).settled(token), "1.999 s")
        #expect(bench.advance(by: .milliseconds(1)).settled(token), "2 s")
        #expect(bench.unit.nextDeadline == nil, "a settled command needs no timer")
        let outcome = bench.unit.finishCommand(token)
        #expect(outcome.failure == .timeout(waited: .seconds(2), reported: [Self.left: before!]))
    }

    /// The lost wake-up, as data: an outcome that came while nobody waited stays until
    /// it is collected.
    @Test func anOutcomeWaitsForItsCollector() throws {
        var bench = try PureBench("sedan", faults: FaultPlan([FaultRule(.drop)]))
        _ = bench.advance(by: .zero)
        let (frames, token) = try bench.command([Self.left: .number(25)])
        _ = bench.send(frames, for: token)
        bench.unit.startTimeout(token, after: .seconds(1), at: bench.now)
        #expect(bench.advance(by: .seconds(5)).settled(token))
        #expect(!bench.advance(by: .seconds(5)).settled(token), "settled once")
        #expect(bench.unit.isSettled(token))
        guard case .timeout? = bench.unit.finishCommand(token).failure else {
            Issue.record("the timeout was kept")
            return
        }
        #expect(bench.unit.commandCount == 0)
    }

    @Test func aRejectionSettlesTheCommandAtOnce() throws {
        var bench = try PureBench("sedan", faults: FaultPlan([FaultRule(.reject(result: nil))]))
        _ = bench.advance(by: .zero)
        let (frames, token) = try bench.command([Self.left: .number(25)])
        #expect(bench.send(frames, for: token).settled(token), "the acknowledgement comes with the frame")
        guard case .rejected? = bench.unit.finishCommand(token).failure else {
            Issue.record("rejected expected")
            return
        }
    }

    @Test func untrustedStatusEndsInAnE2EErrorNotATimeout() throws {
        var bench = try PureBench("sedan", faults: FaultPlan([FaultRule(.badCRC, message: "ClimateStatus")]))
        _ = bench.advance(by: .zero)
        let (frames, token) = try bench.command([Self.left: .number(25)])
        _ = bench.send(frames, for: token)
        bench.unit.startTimeout(token, after: .seconds(1), at: bench.now)
        for _ in 0..<10 { _ = bench.advance(by: .milliseconds(100)) }
        guard case .e2eError(message: "ClimateStatus", status: _)? = bench.unit.finishCommand(token).failure else {
            Issue.record("an E2E error expected")
            return
        }
        #expect(bench.unit.untrustedFrames > 0)
    }

    /// One corrupted status frame in the window, then trusted ones that show the old value:
    /// the status is trusted again, so the command that was never applied timed out (a
    /// random fault mix once got `e2eError` here, from a frame long since made good).
    @Test func anE2EErrorThatTrustedFramesFollowedIsATimeout() throws {
        var bench = try PureBench(
            "sedan",
            faults: FaultPlan([
                FaultRule(.drop, message: "ClimateCommand"), FaultRule(.badCRC, message: "ClimateStatus", count: 1, from: .milliseconds(150)),
            ]))
        _ = bench.advance(by: .zero)
        let (frames, token) = try bench.command([Self.left: .number(25)])
        _ = bench.send(frames, for: token)
        bench.unit.startTimeout(token, after: .seconds(1), at: bench.now)
        for _ in 0..<10 { _ = bench.advance(by: .milliseconds(100)) }
        #expect(bench.unit.untrustedFrames == 2, "the corrupted frame, and the next one's counter jump over it")
        guard case .timeout? = bench.unit.finishCommand(token).failure else {
            Issue.record("a timeout expected")
            return
        }
    }

    @Test func reachabilityIsAWindowAfterTheLastTrustedFrame() throws {
        var bench = try PureBench("sedan")
        #expect(!bench.unit.isReachable(at: bench.now), "nothing heard yet")
        _ = bench.advance(by: .zero)
        let heard = bench.now
        #expect(bench.unit.isReachable(at: heard + bench.unit.reachabilityWindow))
        #expect(!bench.unit.isReachable(at: heard + bench.unit.reachabilityWindow + .milliseconds(1)))
    }

    @Test func aWaitEndsMetByAFrameOrUnmetAtItsDeadline() throws {
        var bench = try PureBench("sedan")
        let completeToken = bench.unit.wait(for: .complete, timeout: .seconds(1), at: bench.now)
        let complete = try #require(completeToken)
        let reachableToken = bench.unit.wait(for: .reachable, timeout: .seconds(3), at: bench.now)
        let reachable = try #require(reachableToken)
        #expect(bench.unit.nextDeadline == bench.now + .seconds(1))
        let events = bench.advance(by: .zero)
        #expect(events.ended(complete) == true)
        #expect(events.ended(reachable) == true)
        #expect(bench.unit.wait(for: .reachable, timeout: .seconds(1), at: bench.now) == nil, "holds already: no wait")
        let unknownToken = bench.unit.wait(for: .knowing([.temperature(zone: "no-such-zone")]), timeout: .seconds(1), at: bench.now)
        let unknown = try #require(unknownToken)
        #expect(bench.advance(by: .milliseconds(999)).ended(unknown) == nil)
        #expect(bench.advance(by: .milliseconds(1)).ended(unknown) == false)
        #expect(bench.unit.waitCount == 0)
    }

    @Test func stopEndsCommandsAndWaits() throws {
        var bench = try PureBench("sedan", faults: FaultPlan([FaultRule(.drop)]))
        _ = bench.advance(by: .zero)
        let (frames, token) = try bench.command([Self.left: .number(25)])
        _ = bench.send(frames, for: token)
        let waitToken = bench.unit.wait(for: .knowing([.temperature(zone: "no-such-zone")]), timeout: .seconds(1), at: bench.now)
        let wait = try #require(waitToken)
        let events = bench.unit.stop()
        #expect(events.settled(token))
        #expect(events.ended(wait) == false)
        #expect(bench.unit.finishCommand(token).failure == .vehicleUnreachable)
        #expect(bench.unit.nextDeadline == nil)
    }

    @Test func trafficCountsReceivedAndSentFrames() throws {
        var bench = try PureBench("sedan")
        _ = bench.advance(by: .zero)
        let (frames, token) = try bench.command([Self.left: .number(25)])
        _ = bench.send(frames, for: token)
        let traffic = bench.unit.busTraffic
        #expect(traffic.contains { $0.id == frames[0].id && $0.sent == frames.count })
        #expect(traffic.contains { $0.received > 0 })
        #expect(traffic.map(\.id) == traffic.map(\.id).sorted())
    }
}
