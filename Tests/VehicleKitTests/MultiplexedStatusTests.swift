import CANKit
import Foundation
import TestSupport
import Testing

@testable import VehicleKit

/// A status read from a page of a multiplexed message (issue 25: status from any message
/// that decodes): the sedan's PowerStatus as two pages, fuel and range in the same bits.
@Suite struct MultiplexedStatusTests {
    static func sedan() throws -> ProfileFixture {
        var sedan = try ProfileFixture("sedan")
        try sedan.dbc(
            """
             SG_ FuelLevel : 16|8@1+ (0.5,0) [0|100] "%" HeadUnit
             SG_ DistanceRemaining : 24|16@1+ (1,0) [0|2000] "km" HeadUnit
            """,
            """
             SG_ Page M : 12|4@1+ (1,0) [0|15] "" HeadUnit
             SG_ FuelLevel m1 : 16|8@1+ (0.5,0) [0|100] "%" HeadUnit
             SG_ DistanceRemaining m2 : 16|16@1+ (1,0) [0|2000] "km" HeadUnit
            """)
        return sedan
    }

    /// The vehicle sends a page per multiplexer value that carries a bound signal; the
    /// head unit reads each property from its page and leaves the other alone.
    @Test func eachPageCarriesItsProperty() throws {
        let frames = VehicleFrames(profile: try Self.sedan().load())
        #expect(frames.statusPageCount("PowerStatus") == 2)
        let state = VehicleState([.fuelPercent: .number(40), .distanceRemaining: .number(420)])
        var counters: [String: UInt8] = [:]
        var checkers: [String: FrameChecker] = [:]
        var pages: [[PropertyKey: PropertyValue]] = []
        for page in 0..<2 {
            let frame = try frames.statusFrame("PowerStatus", page: page, state: state, counters: &counters)
            guard case let .status(_, values, unreadable) = frames.decodeFromVehicle(frame, checkers: &checkers) else {
                Issue.record("page \(page) is not read as a status")
                continue
            }
            #expect(unreadable.isEmpty)
            pages.append(values)
        }
        // In the order the bindings name them (by property: distance, then fuel).
        #expect(pages == [[.distanceRemaining: .number(420)], [.fuelPercent: .number(40)]])
    }

    /// A qualifier on the value's page qualifies it; one on another page never comes with it.
    @Test func aQualifierIsOnTheValuesPage() throws {
        var sedan = try Self.sedan()
        try sedan.dbc(
            #" SG_ Page M : 12|4@1+ (1,0) [0|15] "" HeadUnit"#,
            #" SG_ Page M : 12|4@1+ (1,0) [0|15] "" HeadUnit"# + "\n" + #" SG_ FuelLevelV m1 : 24|1@1+ (1,0) [0|1] "" HeadUnit"#)
        try sedan.json(
            #""signal": "FuelLevel"}"#, #""signal": "FuelLevel", "valid": {"signal": "FuelLevelV", "values": [0]}}"#)
        let frames = VehicleFrames(profile: try sedan.load())
        var counters: [String: UInt8] = [:]
        var checkers: [String: FrameChecker] = [:]
        let state = VehicleState([.fuelPercent: .number(40), .distanceRemaining: .number(420)])
        for page in 0..<2 {
            let frame = try frames.statusFrame("PowerStatus", page: page, state: state, counters: &counters)
            guard case let .status(_, values, unreadable) = frames.decodeFromVehicle(frame, checkers: &checkers) else { continue }
            #expect(unreadable.isEmpty, "the range page is not judged by the fuel's qualifier")
            #expect(values.count == 1)
        }

        try sedan.json(#""signal": "FuelLevelV""#, #""signal": "DistanceRemaining""#)
        sedan.expectError(
            path: #"bindings["power.fuelPercent"].status.valid.signal"#,
            #"signal "DistanceRemaining" is not on every page of "Page" that carries the status signal "FuelLevel""#)
    }

    /// A command message that became multiplexed: a signal on every page goes out on
    /// the first page, and the car reads it (issue 25, item 9; before, refused).
    @Test func aCommandOnAMultiplexedMessageGoesOutOnAPage() throws {
        var sedan = try ProfileFixture("sedan")
        try sedan.dbc(
            #" SG_ HeatFrontRight : 20|4@1+ (1,0) [0|15] "" SeatECU"#,
            #" SG_ HeatFrontRight : 20|4@1+ (1,0) [0|15] "" SeatECU"# + "\n" + #" SG_ Row M : 24|2@1+ (1,0) [0|3] "" SeatECU"# + "\n"
                + #" SG_ RearHeat m1 : 26|4@1+ (1,0) [0|15] "" SeatECU"#)
        let frames = VehicleFrames(profile: try sedan.load())
        var counters: [String: UInt8] = [:]
        let sent = try frames.commandFrames(for: [.seat(.frontLeft, .heating): .integer(2)], counters: &counters)
        #expect(sent.count == 1)
        var checkers: [String: FrameChecker] = [:]
        var latches: [String: [Int128]] = [:]
        guard case let .command(command) = frames.decodeFromHeadUnit(try #require(sent.first), checkers: &checkers, latches: &latches) else {
            Issue.record("the car reads the paged frame")
            return
        }
        #expect(command.changes[.seat(.frontLeft, .heating)] == .integer(2))
    }
}
