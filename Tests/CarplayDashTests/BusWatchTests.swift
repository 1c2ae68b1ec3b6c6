import CANKit
import Testing

@testable import CarplayDash

/// `dbc watch`'s model without a terminal: frames in, lines out.
@Suite struct BusWatchTests {
    static let dbc = """
        VERSION ""
        BU_: HU ECU
        BO_ 512 Status: 2 ECU
         SG_ AC : 0|1@1+ (1,0) [0|1] "" HU
         SG_ Cabin : 8|8@1+ (0.5,-40) [-40|87.5] "degC" HU
        VAL_ 512 AC 0 "Off" 1 "On" ;

        """

    @Test func decodesHighlightsChangesAndFilters() throws {
        var watch = BusWatch(database: try DBCDatabase(parsing: Self.dbc))
        watch.receive(try CANFrame(id: CANID(standard: 0x200), data: [0, 120]), at: 10)
        watch.receive(try CANFrame(id: CANID(standard: 0x300), data: [1]), at: 10.1)
        watch.receive(try CANFrame(id: CANID(standard: 0x200), data: [1, 120]), at: 10.5)
        var lines = watch.render(columns: 80, rows: 10, now: 11, source: "test").map(\.text)
        #expect(lines[0].hasPrefix("dbc watch  2/2 messages  3 frames  test"))
        #expect(lines[1].hasPrefix("200      Status") && lines[1].contains(" 2/s  01 78"), "\(lines)")
        #expect(lines[2].hasPrefix("    AC") && lines[2].contains("On  ◂ changed"), "\(lines)")
        #expect(lines[3].contains("Cabin") && lines[3].contains("20") && !lines[3].contains("changed"))
        #expect(lines[4].hasPrefix("300      (not in the DBC)"))
        #expect(lines.last?.hasPrefix("q quit") == true && lines.count == 10)
        // The highlight ends; the filter keeps what matches.
        watch.filter = "cab"
        lines = watch.render(columns: 80, rows: 6, now: 13, source: "test").map(\.text)
        #expect(lines[0].contains("1/2 messages") && lines[0].contains("filter: cab"))
        #expect(lines[1].hasPrefix("200      Status") && lines[2].contains("Cabin") && !lines.contains { $0.contains("changed") }, "\(lines)")
        #expect(lines.allSatisfy { $0.count == 80 }, "every row fills the width")
    }
}
