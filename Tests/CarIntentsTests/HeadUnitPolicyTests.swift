import Foundation
import TestSupport
import Testing

@testable import CarIntents
@testable import VehicleKit

/// The machine's decisions about a command, without a bus or a clock: which targets are
/// stepped, which toggles are read first, what is sent, each press, the resync resend.
@Suite struct HeadUnitPolicyTests {
    let unit: HeadUnit

    init() throws { unit = HeadUnit(profile: try KindsCar.load()) }

    @Test func steppedTargetsComeApartInKeyOrder() {
        let targets: [PropertyKey: PropertyValue] = [
            .fanSpeed: .integer(3), .temperature(zone: "left"): .number(22), .airConditioner: .bool(true),
        ]
        let (direct, stepped) = unit.split(targets)
        #expect(direct == [.airConditioner: .bool(true)])
        #expect(stepped.map(\.key) == [.fanSpeed, .temperature(zone: "left")])
    }

    @Test func aToggleIsReadFirstOnlyWhileItsStateIsUnknown() {
        let targets: [PropertyKey: PropertyValue] = [.autoMode: .bool(true), .airConditioner: .bool(true)]
        #expect(unit.togglesToRead(targets, context: VehicleState()) == [.autoMode])
        #expect(unit.togglesToRead(targets, context: VehicleState([.autoMode: .bool(false)])).isEmpty)
    }

    @Test func eachPressMovesOneStepTowardTheTarget() throws {
        let (_, stepped) = unit.split([.fanSpeed: .integer(3)])
        let fan = try #require(stepped.first)
        #expect(unit.nextStep(fan, current: .integer(1), presses: 0, timeout: .seconds(1)) == .press(up: true, expecting: .integer(2)))
        #expect(unit.nextStep(fan, current: .integer(5), presses: 0, timeout: .seconds(1)) == .press(up: false, expecting: .integer(4)))
        #expect(unit.nextStep(fan, current: .integer(3), presses: 2, timeout: .seconds(1)) == .reached(.integer(3)))
        #expect(unit.nextStep(fan, current: nil, presses: 0, timeout: .seconds(1)) == .failed(.timeout(waited: .seconds(1), reported: [:])))
        let most = fan.command.maxSteps
        #expect(
            unit.nextStep(fan, current: .integer(1), presses: most, timeout: .seconds(1))
                == .failed(.timeout(waited: .seconds(1), reported: [.fanSpeed: .integer(1)])))
    }

    @Test func aTargetTheCarShowsIsNotSentUnlessItsMessageGoesAnyway() {
        let context = VehicleState([.seat(.frontLeft, .heating): .integer(2), .seat(.frontRight, .heating): .integer(0)])
        // Both seats share one command message: the right seat's change sends it, and the
        // left seat's target rides along.
        let (send, shown) = unit.sending(
            [.seat(.frontLeft, .heating): .integer(2), .seat(.frontRight, .heating): .integer(1)], context: context)
        #expect(Set(send.keys) == [.seat(.frontLeft, .heating), .seat(.frontRight, .heating)])
        #expect(shown == [.seat(.frontLeft, .heating): .integer(2)])
        let (nothing, all) = unit.sending([.seat(.frontLeft, .heating): .integer(2)], context: context)
        #expect(nothing.isEmpty && all == [.seat(.frontLeft, .heating): .integer(2)])
    }

    @Test func theKindsCarHasNoAcknowledgementSoNothingIsResent() {
        let timedOut = CommandOutcome(
            targets: [.airConditioner: .bool(true)], confirmed: [:], failure: .timeout(waited: .seconds(1), reported: [:]), frames: [])
        #expect(!unit.resendsAfterResync(timedOut))
    }

    /// The sedan acknowledges commands: a timed-out first try of setpoints goes once more
    /// while it never acknowledged us (it may resynchronise its counters), not after.
    @Test func aCarThatNeverAcknowledgedUsGetsSetpointsOnceMore() throws {
        let folder = TestPaths.repository("VehicleProfiles/sedan")
        let files = [
            "sedan/profile.json": Array(try Data(contentsOf: folder.appendingPathComponent("profile.json"))),
            "sedan/sedan.dbc": Array(try Data(contentsOf: folder.appendingPathComponent("sedan.dbc"))),
        ]
        let sedan = HeadUnit(profile: try ProfileLoader.load(directory: "sedan") { files[$0] })
        let timeout = CommandFailure.timeout(waited: .seconds(1), reported: [:])
        let setpoint = CommandOutcome(targets: [.temperature(zone: "left"): .number(22)], confirmed: [:], failure: timeout, frames: [])
        #expect(sedan.resendsAfterResync(setpoint))
        var acknowledged = sedan
        acknowledged.acknowledgements = 1
        #expect(!acknowledged.resendsAfterResync(setpoint))
    }
}
