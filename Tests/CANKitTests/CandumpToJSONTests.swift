import CANKit
import TestSupport
import Testing

/// `CandumpToJSON`, the decoder of `carplayctl dbc decode` (compared with cantools on
/// generated logs by the test command's decode stage), on lines a test can read.
@Suite struct CandumpToJSONTests {
    static let dbc = """
        VERSION ""
        BU_: ECU
        BO_ 256 Climate: 2 ECU
         SG_ Temperature : 0|8@1+ (0.5,0) [0|127.5] "degC" Vector__XXX
         SG_ Mode : 8|2@1+ (1,0) [0|3] "" Vector__XXX
        VAL_ 256 Mode 0 "off" 1 "auto" 2 "manual" ;
        """

    func decode(_ text: String, choices: Bool = true) throws -> [String] {
        let database = try DBCDatabase(parsing: Self.dbc, source: "climate.dbc")
        let decoder = CandumpToJSON(database: database, choices: choices)
        var out = OutputBuffer(capacity: 16)
        defer { out.deallocate() }
        var input = Array(text.utf8)
        let summary = input.withUnsafeMutableBufferPointer { decoder.decodeLines(UnsafeBufferPointer($0), firstLineNumber: 0, into: &out) }
        #expect(summary.lines == text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0))
        return String(decoding: out.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func framesAsCantoolsPrintsThem() throws {
        let lines = try decode("(1700000000.000000) vcan0 100#2A01\n100#2A02\n")
        #expect(lines.count == 2)
        #expect(lines[0].contains("\"Temperature\":21.0"), "\(lines[0])")
        #expect(lines[0].contains("\"Mode\":\"auto\""), "\(lines[0])")
        #expect(lines[1].contains("\"Mode\":\"manual\""), "\(lines[1])")
        let raw = try decode("100#2A02\n", choices: false)
        #expect(raw[0].contains("\"Mode\":2"), "\(raw[0])")
    }

    @Test func unknownIDsAndBadLinesAreSaidNotSkipped() throws {
        let lines = try decode("7FF#00\nnot a frame\n100#2A01")
        #expect(lines.count == 3)
        #expect(lines[0] == #"{"id":2047,"error":"unknown message"}"#)
        #expect(lines[1].hasPrefix(#"{"line":2,"error":"#), "\(lines[1])")
        #expect(lines[2].contains("\"Temperature\":21.0"), "the last line needs no newline")
    }

    /// The eight-bytes-at-a-time newline search finds what a byte loop finds.
    @Test func newlineSearchAgreesWithAByteLoop() {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let count = Int.random(in: 0...70, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for _ in 0..<Int.random(in: 0...3, using: &generator) where count > 0 { bytes[Int.random(in: 0..<count, using: &generator)] = 0x0A }
            let from = Int.random(in: 0...count, using: &generator)
            let expected = bytes[from...].firstIndex(of: 0x0A) ?? count
            let found = bytes.withUnsafeBufferPointer { $0.newline(from: from) }
            #expect(found == expected, "\(bytes) from \(from)")
        }
    }
}
