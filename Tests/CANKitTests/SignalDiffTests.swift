import Testing

@testable import CANKit

/// `SignalDiff`: which signals changed between two recordings, ranked.
@Suite struct SignalDiffTests {
    static let dbc = """
        VERSION ""
        BU_: HU ECU
        BO_ 512 Status: 4 ECU
         SG_ AC : 0|1@1+ (1,0) [0|1] "" HU
         SG_ Fan : 1|3@1+ (1,0) [0|7] "" HU
         SG_ Counter : 4|4@1+ (1,0) [0|15] "" HU
         SG_ Cabin : 8|8@1+ (0.5,-40) [-40|87.5] "degC" HU
        BO_ 256 Buttons: 1 HU
         SG_ ACButton : 0|1@1+ (1,0) [0|1] "" ECU
        VAL_ 512 AC 0 "Off" 1 "On" ;

        """

    static func frames(_ count: Int, ac: UInt8, fan: UInt8, cabin: (Int) -> UInt8, counterFrom: Int) -> [CANFrame] {
        (0..<count).map { index in
            let counter = UInt8((counterFrom + index) % 16)
            return try! CANFrame(id: CANID(standard: 0x200), data: [ac | (fan << 1) | (counter << 4), cabin(index), 0, 0])
        }
    }

    /// Press A/C: its status flips and stays, the button pulses; the fan is untouched, the
    /// counter and the cabin temperature move on both sides.
    @Test func theStatusThatFlippedComesFirstThenThePress() throws {
        let database = try DBCDatabase(parsing: Self.dbc)
        let before =
            Self.frames(20, ac: 0, fan: 3, cabin: { UInt8(120 + $0 % 3) }, counterFrom: 0)
            + (0..<10).map { _ in try! CANFrame(id: CANID(standard: 0x100), data: [0]) }
        var after = Self.frames(20, ac: 1, fan: 3, cabin: { UInt8(121 + $0 % 4) }, counterFrom: 20)
        after += [0, 1, 1, 0, 0, 0, 0, 0, 0, 0].map { try! CANFrame(id: CANID(standard: 0x100), data: [$0]) }
        let changes = SignalDiff.changes(in: database, before: before, after: after)
        // The counter ran through all its values on both sides: unchanged, left out.
        #expect(changes.map(\.signal) == ["AC", "ACButton", "Cabin"], "\(changes.map { "\($0.signal) \($0.kind)" })")
        let ac = try #require(changes.first)
        #expect(ac.kind == .flip && ac.score > 0.9 && ac.message == "Status")
        #expect(ac.before == [.choice("Off", raw: 0)] && ac.after == [.choice("On", raw: 1)])
        #expect(changes[1].kind == .pulse)
        #expect(changes[2].kind == .noise, "a sensor that moves on both sides")
        #expect(!changes.contains { $0.signal == "Fan" }, "unchanged signals are left out")
    }

    @Test func aLevelThatMovedIsAStep() throws {
        let database = try DBCDatabase(parsing: Self.dbc)
        let before = Self.frames(10, ac: 0, fan: 2, cabin: { _ in 120 }, counterFrom: 0)
        let after = [3, 4, 5, 5, 5, 5, 5, 5, 5, 5].enumerated().flatMap { index, fan in
            Self.frames(1, ac: 0, fan: UInt8(fan), cabin: { _ in 120 }, counterFrom: 10 + index)
        }
        let fan = try #require(SignalDiff.changes(in: database, before: before, after: after).first { $0.signal == "Fan" })
        #expect(fan.kind == .step)
        #expect(fan.after.first == .integer(5), "the most frequent value first")
    }

    /// A slow message's alive counter, one frame a side, looks like a clean change: it is
    /// ranked below a status held over many frames (found on vcan with the SUV).
    @Test func oneFrameASideIsWeakEvidence() throws {
        let database = try DBCDatabase(parsing: Self.dbc)
        let before = Self.frames(10, ac: 0, fan: 3, cabin: { _ in 120 }, counterFrom: 0) + [try CANFrame(id: CANID(standard: 0x100), data: [0])]
        let after = Self.frames(10, ac: 1, fan: 3, cabin: { _ in 120 }, counterFrom: 5) + [try CANFrame(id: CANID(standard: 0x100), data: [1])]
        let changes = SignalDiff.changes(in: database, before: before, after: after)
        #expect(changes.first?.signal == "AC", "\(changes.map { "\($0.signal) \($0.kind) \($0.score)" })")
        #expect(changes.first { $0.signal == "ACButton" }?.kind == .step, "one frame a side")
    }
}
