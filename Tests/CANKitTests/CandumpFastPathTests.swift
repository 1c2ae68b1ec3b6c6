import Testing
@testable import CANKit

/// The decoder tool's fast path must agree with the full reader on every line it
/// accepts, and leave every other line to it.
@Suite struct CandumpFastPathTests {
    func scan(_ line: String) -> (CANID, [UInt8])? {
        var text = line
        let payload = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 64)
        defer { payload.deallocate() }
        return text.withUTF8 { bytes in
            CandumpReader.scanCompactFrame(bytes, payload: payload).map { ($0.id, Array(payload[0..<$0.count])) }
        }
    }

    @Test func acceptsTheCommonForms() throws {
        for line in ["(1700000000.123456) vcan0 123#DEADBEEF", "123#DEADBEEF", "vcan0 1F334455#11", "(1.5) can0 7FF#", "(1700000000.000100) vcan0 123#deadbeef\r\n"] {
            let fast = try #require(scan(line), "\(line)")
            let full = try #require(try CandumpReader.record(line))
            #expect(fast.0 == full.frame.id, "\(line)")
            #expect(fast.1 == full.frame.data, "\(line)")
        }
    }

    @Test func leavesEverythingElseToTheReader() {
        for line in [
            "123##1DEADBEEF", "123#R", "20000004#0000000000000000", "123#DE.AD", "123#DEADBEE", "800#00",
            "  vcan0  123   [4]  DE AD BE EF", "# comment", "", "(x) vcan0 123#00", "12#00", "123#001122334455667788",
            "123#0011223344556677_9", "vcan0 123#00 trailing", "(1700000000.1) 123#GG",
        ] {
            #expect(scan(line) == nil, "\(line)")
        }
    }

    @Test func randomLinesAgreeWithTheReader() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789ABCDEFabcdef#.R() vcan").map { String($0) }
        var accepted = 0
        for _ in 0..<20_000 {
            var line = ["(1700000000.000001) vcan0 ", "", "can0 "].randomElement(using: &generator)!
            let idDigits = [3, 8, 2, 9].randomElement(using: &generator)!
            for _ in 0..<idDigits { line += alphabet[Int.random(in: 0..<16, using: &generator)] }
            line += "#"
            for _ in 0..<Int.random(in: 0...18, using: &generator) { line += alphabet.randomElement(using: &generator)! }
            guard let fast = scan(line) else { continue }
            accepted += 1
            let full = try #require(try? CandumpReader.record(line), "fast path accepted \(line) but the reader refuses it")
            #expect(fast.0 == full.frame.id && fast.1 == full.frame.data && !full.frame.isFD && !full.frame.isRemote, "\(line)")
        }
        #expect(accepted > 100)
    }
}
