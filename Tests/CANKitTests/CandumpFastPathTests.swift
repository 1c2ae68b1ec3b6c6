import Testing

@testable import CANKit

/// The decoder tool's fast path must agree with the full reader on every line it
/// accepts, and leave every other line to it.
@Suite struct CandumpFastPathTests {
    func scan(_ line: String, payloadCapacity: Int = 64) -> (CANID, [UInt8], CANFrame.Kind)? {
        var text = line
        let payload = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: payloadCapacity)
        defer { payload.deallocate() }
        return text.withUTF8 { bytes in
            CandumpReader.scanCompactFrame(bytes, payload: payload).map { ($0.id, Array(payload[0..<$0.count]), $0.kind) }
        }
    }

    @Test func acceptsTheCommonForms() throws {
        let fd64 = String(repeating: "A5", count: 64)
        for line in [
            "(1700000000.123456) vcan0 123#DEADBEEF", "123#DEADBEEF", "vcan0 1F334455#11", "(1.5) can0 7FF#", "(1700000000.000100) vcan0 123#deadbeef\r\n",
            // CAN FD: every flags digit that exists, the valid lengths around the gaps.
            "123##1DEADBEEF", "(1700000000.000296) vcan0 18A02020##0465862FD73484F7CB9191D526C9FDA53", "vcan0 1F334455##7",
            "7FF##2" + String(repeating: "00", count: 12),
            "123##3" + String(repeating: "11", count: 20), "123##4" + String(repeating: "ff", count: 24), "123##5" + String(repeating: "01", count: 32),
            "123##6" + String(repeating: "10", count: 48), "(1.5) can0 123##1" + fd64,
        ] {
            let fast = try #require(scan(line), "\(line)")
            let full = try #require(try CandumpReader.record(line))
            #expect(fast.0 == full.frame.id, "\(line)")
            #expect(fast.1 == full.frame.data, "\(line)")
            #expect(fast.2 == full.frame.kind, "\(line)")
        }
    }

    @Test func leavesCANFDToTheReaderWithoutRoomForSixtyFourBytes() throws {
        #expect(scan("123##1DEADBEEF", payloadCapacity: 8) == nil)
        #expect(scan("123#DEADBEEF", payloadCapacity: 8)?.1 == [0xDE, 0xAD, 0xBE, 0xEF])
    }

    @Test func leavesEverythingElseToTheReader() {
        for line in [
            // CAN FD the reader refuses or reads differently: lengths that do not exist,
            // unknown flags, no flags digit, an error frame, separators, a raw DLC.
            "123##1" + String(repeating: "00", count: 9), "123##1" + String(repeating: "00", count: 13), "123##1" + String(repeating: "00", count: 65),
            "123##8DEADBEEF", "123##GDEADBEEF", "123##", "20000004##000", "123##1DE.AD", "123##1DEADBEE", "123##10011223344556677_9",
            "123#R", "20000004#0000000000000000", "123#DE.AD", "123#DEADBEE", "800#00",
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
        var acceptedFD = 0
        for _ in 0..<20_000 {
            var line = ["(1700000000.000001) vcan0 ", "", "can0 "].randomElement(using: &generator)!
            let idDigits = [3, 8, 2, 9].randomElement(using: &generator)!
            for _ in 0..<idDigits { line += alphabet[Int.random(in: 0..<16, using: &generator)] }
            line += "#"
            let fd = Bool.random(using: &generator)
            if fd {
                // "##" and a flags digit (sometimes one that does not exist), then a valid or invalid FD length.
                line += "#" + ["0", "1", "2", "3", "4", "5", "7", "8", "F", "x"].randomElement(using: &generator)!
                let bytes = [0, 3, 8, 9, 12, 16, 20, 24, 32, 48, 64, 15, 63].randomElement(using: &generator)!
                for _ in 0..<(bytes * 2) { line += alphabet[Int.random(in: 0..<16, using: &generator)] }
                if Int.random(in: 0..<8, using: &generator) == 0 { line += alphabet.randomElement(using: &generator)! }
            } else {
                for _ in 0..<Int.random(in: 0...18, using: &generator) { line += alphabet.randomElement(using: &generator)! }
            }
            guard let fast = scan(line) else { continue }
            if fast.2 == .classic { accepted += 1 } else { acceptedFD += 1 }
            let full = try #require(try? CandumpReader.record(line), "fast path accepted \(line) but the reader refuses it")
            #expect(fast.0 == full.frame.id && fast.1 == full.frame.data && fast.2 == full.frame.kind && !full.frame.isRemote, "\(line)")
        }
        #expect(accepted > 100)
        #expect(acceptedFD > 100)
    }
}
