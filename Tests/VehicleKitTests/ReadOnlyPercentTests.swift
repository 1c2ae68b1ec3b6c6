import CANKit
import Testing

@testable import VehicleKit

/// A read-only percentage whose DBC scale cannot hit 0 or 100 exactly (a Ford's fuel
/// level at 0.108696 % per bit; here 0.43): the profile loads, and the level reads inside 0...100.
@Suite struct ReadOnlyPercentTests {
    static func sedan() throws -> ProfileFixture {
        var sedan = try ProfileFixture("sedan")
        try sedan.dbc(#"SG_ FuelLevel : 16|8@1+ (0.5,0) [0|100] "%" HeadUnit"#, #"SG_ FuelLevel : 16|8@1+ (0.43,0) [0|109] "%" HeadUnit"#)
        return sedan
    }

    @Test func aCoarseGridLoadsAndReadsInsideItsRange() throws {
        let profile = try Self.sedan().load()
        let frames = VehicleFrames(profile: profile)
        for (percent, expected) in [(100.0, 100.0), (0, 0), (50, 50)] {
            var counters: [String: UInt8] = [:]
            var checkers: [String: FrameChecker] = [:]
            let frame = try frames.statusFrame("PowerStatus", state: VehicleState([.fuelPercent: .number(percent)]), counters: &counters)
            guard case let .status(_, values, _) = frames.decodeFromVehicle(frame, checkers: &checkers), let read = values[.fuelPercent]?.doubleValue
            else {
                Issue.record("no fuel level read at \(percent) %")
                continue
            }
            #expect((0...100).contains(read), "\(percent) % read as \(read)")
            #expect(abs(read - expected) <= 0.43, "\(percent) % read as \(read)")
        }
        // Full is the raw value nearest 100 %: 233 x 0.43 = 100.19, clamped.
        var counters: [String: UInt8] = [:]
        var checkers: [String: FrameChecker] = [:]
        let full = try frames.statusFrame("PowerStatus", state: VehicleState([.fuelPercent: .number(100)]), counters: &counters)
        guard case let .status(_, values, _) = frames.decodeFromVehicle(full, checkers: &checkers) else { return }
        #expect(values[.fuelPercent] == .number(100))
    }

    /// Only the grid's miss is clamped: a reading more than a step outside stays as read.
    @Test func aValueOutsideTheRangeByMoreThanAStepStays() throws {
        let profile = try Self.sedan().load()
        let frames = VehicleFrames(profile: profile)
        var counters: [String: UInt8] = [:]
        var checkers: [String: FrameChecker] = [:]
        // 105 % goes out as raw 244 and reads 104.92 %: not clamped.
        let frame = try frames.statusFrame("PowerStatus", state: VehicleState([.fuelPercent: .number(105)]), counters: &counters)
        guard case let .status(_, values, _) = frames.decodeFromVehicle(frame, checkers: &checkers) else {
            Issue.record("not a status frame")
            return
        }
        #expect(values[.fuelPercent] == .number(104.92))
    }
}
