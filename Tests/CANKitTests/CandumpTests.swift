import TestSupport
import Testing

@testable import CANKit

private func std(_ id: UInt16) -> CANID { CANID(standard: id) }
private func ext(_ id: UInt32) -> CANID { CANID(extended: id) }
private let fdNone = CANFrame.Kind.fd(bitRateSwitch: false, errorStateIndicator: false)
private let fdBRS = CANFrame.Kind.fd(bitRateSwitch: true, errorStateIndicator: false)

private func record(_ line: String) throws -> CandumpRecord {
    let parsed = try CandumpReader.parseLine(line)
    guard case let .record(record) = parsed else {
        Issue.record("expected a record from \(line), got \(parsed)")
        throw CandumpParseError(column: 0, message: "not a record")
    }
    return record
}

/// The column of the error that `line` throws, checking the message mentions `hint`.
private func errorColumn(_ line: String, mentioning hint: String? = nil) -> Int? {
    do {
        let parsed = try CandumpReader.parseLine(line)
        Issue.record("expected an error from \(line), got \(parsed)")
        return nil
    } catch {
        if let hint {
            #expect(error.message.contains(hint), "\(error.message) should mention \(hint)")
        }
        return error.column
    }
}

@Suite struct CandumpLogFormatTests {
    @Test func classicStandard() throws {
        let r = try record("(1700000000.123456) vcan0 123#DEADBEEF")
        #expect(r.timestamp == CandumpTimestamp(seconds: 1_700_000_000, microseconds: 123_456))
        #expect(r.interface == "vcan0")
        #expect(r.frame == (try CANFrame(id: std(0x123), data: [0xDE, 0xAD, 0xBE, 0xEF])))
    }

    @Test func extendedEmptyAndSeparators() throws {
        #expect(try record("(1.000000) can1 1F334455#11").frame == (try CANFrame(id: ext(0x1F33_4455), data: [0x11])))
        #expect(try record("(1.000000) can1 00000123#").frame == (try CANFrame(id: ext(0x123), data: [])))
        #expect(try record("123#DE.AD.BE.EF").frame.data == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(try record("123#11.2233.44556677.88").frame.data == [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88])
        #expect(try record("7a1#deadbeef").frame == (try CANFrame(id: std(0x7A1), data: [0xDE, 0xAD, 0xBE, 0xEF])))
    }

    @Test func cansendFormAndPartialPrefixes() throws {
        let bare = try record("123#DEADBEEF")
        #expect(bare.timestamp == nil)
        #expect(bare.interface == nil)
        #expect(bare.frame.data == [0xDE, 0xAD, 0xBE, 0xEF])
        let noTime = try record("vcan0 123#00")
        #expect(noTime.interface == "vcan0" && noTime.timestamp == nil)
        let noInterface = try record("(5.5) 123#00")
        #expect(noInterface.interface == nil)
        #expect(noInterface.timestamp == CandumpTimestamp(seconds: 5, microseconds: 500_000))
    }

    @Test func remoteFrames() throws {
        let plain = try record("(1700000000.000001) vcan0 123#R").frame
        #expect(plain.isRemote && plain.data.isEmpty && plain.kind == .classic)
        let withLength = try record("123#R5").frame
        #expect(withLength.isRemote && withLength.data == [0, 0, 0, 0, 0])
        #expect(try record("7A1#r").frame.isRemote)
        #expect(try record("123#R0").frame.data.isEmpty)
        #expect(try record("1F334455#R8_9").frame == (try CANFrame(id: ext(0x1F33_4455), data: Array(repeating: 0, count: 8), isRemote: true)))
    }

    @Test func canFD() throws {
        let brs = try record("(1700000000.123456) vcan0 123##1DEADBEEF").frame
        #expect(brs == (try CANFrame(id: std(0x123), data: [0xDE, 0xAD, 0xBE, 0xEF], kind: fdBRS)))
        #expect(try record("123##0").frame == (try CANFrame(id: std(0x123), data: [], kind: fdNone)))
        #expect(try record("123##2112233").frame.kind == .fd(bitRateSwitch: false, errorStateIndicator: true))
        #expect(try record("123##3").frame.kind == .fd(bitRateSwitch: true, errorStateIndicator: true))
        // Newer kernels set CANFD_FDF (4), so newer candump prints ##4 / ##5.
        #expect(try record("123##511").frame.kind == fdBRS)
        #expect(try record("123##4").frame.kind == fdNone)
        let twelve = try record("12345678##1" + String(repeating: "AB", count: 12)).frame
        #expect(twelve.id == ext(0x1234_5678) && twelve.data.count == 12)
        let sixtyFour = try record("123##1" + String(repeating: "00", count: 64)).frame
        #expect(sixtyFour.data.count == 64)
        #expect(try record("123##1" + Array(repeating: "01", count: 8).joined(separator: ".")).frame.data.count == 8)
    }

    @Test func errorFrames() throws {
        let frame = try record("(1681229878.879041) can1 20000004#0004000000000000").frame
        #expect(frame.isError)
        #expect(frame.id.rawValue == 0x4 && frame.id.isExtended)
        #expect(frame.data == [0, 4, 0, 0, 0, 0, 0, 0])
    }

    @Test func len8DLCSuffixIsAccepted() throws {
        let frame = try record("123#1122334455667788_E").frame
        #expect(frame.data == [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88])
    }

    @Test func timestamps() throws {
        #expect(try record("(0000000001.000100) vcan0 123#").timestamp == CandumpTimestamp(seconds: 1, microseconds: 100))
        #expect(try record("(590.634662) vcan0 123#").timestamp == CandumpTimestamp(seconds: 590, microseconds: 634_662))
        #expect(try record("(0.0) vcan0 001#8d00100100820100").timestamp == CandumpTimestamp(seconds: 0, microseconds: 0))
        #expect(try record("(1.123456789) vcan0 123#").timestamp == CandumpTimestamp(seconds: 1, microseconds: 123_456))
    }

    @Test func lineEndingsAndPadding() throws {
        #expect(try record("(1.000000) vcan0 123#11\r\n").frame.data == [0x11])
        #expect(try record("(1.000000)  can0 123#11   ").interface == "can0")
    }
}

@Suite struct CandumpHumanFormatTests {
    @Test func classic() throws {
        let r = try record("  vcan0  123   [4]  DE AD BE EF")
        #expect(r.timestamp == nil)
        #expect(r.interface == "vcan0")
        #expect(r.frame == (try CANFrame(id: std(0x123), data: [0xDE, 0xAD, 0xBE, 0xEF])))
        #expect(try record("  vcan0  123   [0] ").frame.data.isEmpty)
    }

    @Test func extendedAndIndentedStandard() throws {
        #expect(try record("  vcan0  1F334455   [2]  11 22").frame == (try CANFrame(id: ext(0x1F33_4455), data: [0x11, 0x22])))
        // Once candump has seen an extended frame it indents standard IDs.
        #expect(try record("  vcan0       123   [1]  11").frame.id == std(0x123))
    }

    @Test func canFD() throws {
        let bytes = (0..<12).map { String(format2($0)) }.joined(separator: " ")
        let frame = try record("  vcan0  123  [12]  " + bytes).frame
        #expect(frame.kind == fdNone)
        #expect(frame.data == (0..<12).map { UInt8($0 * 0x11 & 0xFF) })
        // [08] is FD with 8 bytes; [8] is classic.
        #expect(try record("  vcan0  123  [08]  00 00 80 00 10 40 40 40").frame.isFD)
        #expect(try record("  vcan0  123   [8]  00 00 80 00 10 40 40 40").frame.kind == .classic)
    }

    @Test func remote() throws {
        let frame = try record("  vcan0  123   [0]  remote request").frame
        #expect(frame.isRemote && frame.data.isEmpty)
        #expect(try record("  vcan0  123   [3]  remote request").frame.data == [0, 0, 0])
    }

    @Test func absoluteTimestampAndExtraInfo() throws {
        let r = try record(" (1700000000.123456)  vcan0  123   [4]  DE AD BE EF")
        #expect(r.timestamp == CandumpTimestamp(seconds: 1_700_000_000, microseconds: 123_456))
        #expect(r.frame.data == [0xDE, 0xAD, 0xBE, 0xEF])
        let fd = try record(" (1700000000.123456)  vcan0  RX B E  123  [12]  00 11 22 33 44 55 66 77 88 99 AA BB")
        #expect(fd.frame.kind == .fd(bitRateSwitch: true, errorStateIndicator: true))
        let tx = try record("  vcan0  TX - -  123  [01]  00")
        #expect(tx.frame.kind == fdNone)
    }

    @Test func trailersAndRawDLC() throws {
        let error = try record("  can0  20000004   [8]  00 0C 00 00 00 00 00 00   ERRORFRAME").frame
        #expect(error.isError && error.id.rawValue == 4)
        let ascii = try record("  vcan0  14B0DC51   [8]  4A 94 E8 2A EC 58 55 62   'J..*.XUb'").frame
        #expect(ascii.data.count == 8)
        #expect(try record("  vcan0  321   {B}  11 22 33 44 55 66 77 88").frame.data.count == 8)
    }
}

private func format2(_ value: Int) -> String {
    let hex = String(value * 0x11 & 0xFF, radix: 16, uppercase: true)
    return hex.count == 1 ? "0" + hex : hex
}

/// Lines copied from candump output published in GitHub issues (URL above each).
@Suite struct CandumpRealOutputTests {
    @Test func realLines() throws {
        // https://github.com/linux-can/can-utils/issues/359 (candump can0)
        let remote = try record("  can0  0C841461   [8]  remote request").frame
        #expect(remote.isRemote && remote.id == ext(0x0C84_1461) && remote.data.count == 8)
        #expect(try record("  can0       311   [8]  D5 5F 24 92 49 25 FD FB").frame.data == [0xD5, 0x5F, 0x24, 0x92, 0x49, 0x25, 0xFD, 0xFB])
        #expect(try record("  can0       312   [6]  D5 5F 24 92 49 25").frame.id == std(0x312))

        // https://github.com/linux-can/can-utils/issues/150 (candump -L)
        let log = try record("(1566568550.735820) vcan0 123#0011223344556677")
        #expect(log.timestamp == CandumpTimestamp(seconds: 1_566_568_550, microseconds: 735_820))
        #expect(log.frame.data == [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77])

        // https://github.com/linux-can/can-utils/issues/425 (candump -e -x -ta), with its -e detail line
        let error = try record(" (1681229878.879041)  can1  RX - -  20000004   [8]  00 00 00 00 00 00 00 00   ERRORFRAME")
        #expect(error.frame.isError && error.interface == "can1")
        #expect(try CandumpReader.parseLine("\tcontroller-problem{}") == .errorDetails)

        // https://github.com/ros-industrial/ros_canopen/issues/62 (candump -dxta)
        let rx = try record(" (1422613575.299306)  can0  TX B E  255   [6]  0F 00 00 00 30 F3")
        #expect(rx.frame.kind == .classic && rx.frame.data.count == 6)
        #expect(try record(" (1422613575.299446)  can0  TX B E  080   [0] ").frame.data.isEmpty)

        // https://github.com/collin80/SavvyCAN/pull/871 (candump -ta, CAN FD)
        let fd = try record(
            " (1727438342.368435)  can0       0C0  [32]  03 F5 FE E7 FF 10 27 00 E0 FF FF F3 3F FF F3 3F FC EF FF FD FF FF FE 07 00 00 00 00 00 00 00 00"
        ).frame
        #expect(fd.isFD && fd.data.count == 32 && fd.data[31] == 0)
        #expect(try record(" (1727438342.372671)  can0       583  [08]  00 00 80 00 10 40 40 40").frame.isFD)

        // https://github.com/linux-can/can-utils/issues/525 (candump -cexdtd)
        let delta = try record(" (590.634662)  vcan0  TX - -  20000025   [8]  00 40 00 00 00 00 00 00   ERRORFRAME")
        #expect(delta.frame.isError && delta.frame.id.rawValue == 0x25)

        // https://github.com/linux-can/can-utils/issues/405 (-t A dates are reported, not misread)
        #expect(errorColumn(" (2023-02-07 11:32:15.427178)  can0  TX - -  001   [0]  remote request", mentioning: "-t A") == 7)
    }
}

@Suite struct CandumpLineKindTests {
    @Test func blankCommentDetails() throws {
        #expect(try CandumpReader.parseLine("") == .blank)
        #expect(try CandumpReader.parseLine("   \r\n") == .blank)
        #expect(try CandumpReader.parseLine("# recorded on the test rig") == .comment)
        #expect(try CandumpReader.parseLine("  ; note") == .comment)
        #expect(try CandumpReader.parseLine("\tbus-error") == .errorDetails)
        #expect(try CandumpReader.record("") == nil)
    }

    @Test func multiLineReader() throws {
        let text = """
            # header
            (1.000000) vcan0 123#11

              vcan0  124   [1]  22
            \tbus-error
            125#33
            """
        let records = try CandumpReader.records(in: text)
        #expect(records.map(\.frame.id) == [std(0x123), std(0x124), std(0x125)])
        do {
            _ = try CandumpReader.records(in: "123#11\n123#1\n")
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 2)
            #expect(error.column == 5)
            #expect(error.description.hasPrefix("line 2, column 5:"))
        }
    }

    @Test func bytesAPI() throws {
        let line: [UInt8] = Array("(1.000000) vcan0 123#11".utf8)
        #expect(try CandumpReader.parseLine(line).record?.frame.data == [0x11])
        #expect(try CandumpReader.records(in: Array("123#11\r\n124#22\r\n".utf8)).count == 2)
    }
}

@Suite struct CandumpErrorTests {
    @Test func oddHexDigits() {
        #expect(errorColumn("123#DEA", mentioning: "odd") == 7)
        #expect(errorColumn("(1.000000) vcan0 123#DE.A", mentioning: "odd") == 25)
        #expect(errorColumn("123##1DEA", mentioning: "odd") == 9)
    }

    @Test func missingHash() {
        #expect(errorColumn("123DEADBEEF", mentioning: "'#'") == 4)
        #expect(errorColumn("(1700000000.123456) vcan0 123DEADBEEF", mentioning: "'#'") == 30)
        #expect(errorColumn("vcan0 12345678", mentioning: "'#'") == 15)
    }

    @Test func idLength() {
        #expect(errorColumn("1234567890#11", mentioning: "too long") == 9)
        #expect(errorColumn("(1.000000) vcan0 123456789#11", mentioning: "too long") == 26)
        #expect(errorColumn("1234#11", mentioning: "3 (standard) or 8") == 5)
        #expect(errorColumn("12#11", mentioning: "3 (standard) or 8") == 3)
        #expect(errorColumn("800#11", mentioning: "0x7FF") == 1)
        #expect(errorColumn("40000123#11", mentioning: "29 bits") == 1)
        #expect(errorColumn("12G#11", mentioning: "hex digit") == 3)
    }

    @Test func tooManyBytes() {
        #expect(errorColumn("123#112233445566778899", mentioning: "at most 8") == 21)
        #expect(errorColumn("123##1" + String(repeating: "00", count: 65), mentioning: "at most 64") == 7 + 128)
    }

    @Test func badFDLength() {
        #expect(errorColumn("123##1112233445566778899", mentioning: "valid CAN FD length") == 7)
        #expect(errorColumn("  vcan0  123  [13]  00", mentioning: "valid CAN FD length") == 16)
    }

    @Test func badFlags() {
        #expect(errorColumn("123##G11", mentioning: "flags") == 6)
        #expect(errorColumn("123##811", mentioning: "flags") == 6)
        #expect(errorColumn("123##", mentioning: "flags") == 6)
    }

    @Test func otherMalformedLines() {
        #expect(errorColumn("123#R9", mentioning: "0...8") == 6)
        #expect(errorColumn("123#11_9", mentioning: "8 data bytes") == 7)
        #expect(errorColumn("123#DEXX", mentioning: "hex digit") == 7)
        #expect(errorColumn("123#11 extra", mentioning: "unexpected") == 8)
        #expect(errorColumn("(1700000000.123456 vcan0 123#11", mentioning: "')'") == 19)
        #expect(errorColumn("(.5) vcan0 123#11", mentioning: "seconds") == 2)
        #expect(errorColumn("(1700000000.123456)", mentioning: "after the timestamp") == 20)
        #expect(errorColumn("20000004#R", mentioning: "remote") == 10)
        #expect(errorColumn("20000004##1", mentioning: "classic") == 10)
        #expect(errorColumn("  vcan0  123   [9]  11", mentioning: "0...8") == 17)
        #expect(errorColumn("  vcan0  123   [4]  DE AD BE", mentioning: "4 data bytes") == 29)
        #expect(errorColumn("  vcan0  123   [2]  DE ADBE", mentioning: "two hex digits") == 24)
        #expect(errorColumn("  vcan0  123   [1]  DE AD", mentioning: "unexpected") == 24)
        #expect(errorColumn("  vcan0  123   4  DE", mentioning: "'['") == 16)
        #expect(errorColumn("  vcan0  RX X -  123  [01]  00", mentioning: "BRS") == 13)
        #expect(errorColumn("  vcan0  123  [0003]  11", mentioning: "CAN XL") == 15)
    }
}

@Suite struct CandumpWriterTests {
    @Test func exactLines() throws {
        let classic = CandumpRecord(
            timestamp: CandumpTimestamp(seconds: 1_700_000_000, microseconds: 100),
            interface: "vcan0",
            frame: try CANFrame(id: std(0x123), data: [0xDE, 0xAD, 0xBE, 0xEF]))
        #expect(CandumpWriter.logLine(classic) == "(1700000000.000100) vcan0 123#DEADBEEF")

        let small = CandumpRecord(
            timestamp: CandumpTimestamp(seconds: 1, microseconds: 0), interface: "can0",
            frame: try CANFrame(id: std(0x7), data: []))
        #expect(CandumpWriter.logLine(small) == "(0000000001.000000) can0 007#")

        // The ends of the timestamp's range, a long interface name, a full FD payload.
        let far = CandumpRecord(
            timestamp: CandumpTimestamp(seconds: .max, microseconds: 999_999), interface: String(repeating: "x", count: 40),
            frame: try CANFrame(id: ext(0x1FFF_FFFF), data: [UInt8](repeating: 0xAB, count: 64), kind: fdBRS))
        let farLine = "(9223372036854775807.999999) \(String(repeating: "x", count: 40)) 1FFFFFFF##1\(String(repeating: "AB", count: 64))"
        #expect(CandumpWriter.logLine(far) == farLine)
        let before = CandumpRecord(timestamp: CandumpTimestamp(seconds: -12, microseconds: 5), frame: try CANFrame(id: std(0x7FF), data: [0]))
        #expect(CandumpWriter.logLine(before) == "(-0000000012.000005) 7FF#00")
        #expect(CandumpWriter.payload([0x00, 0x9F, 0xA0, 0xFF]) == "009FA0FF")

        #expect(CandumpWriter.compactFrame(try CANFrame(id: ext(0x1F33_4455), data: [0x11])) == "1F334455#11")
        #expect(CandumpWriter.compactFrame(try CANFrame(id: ext(0x1), data: [0x0A])) == "00000001#0A")
        #expect(CandumpWriter.compactFrame(try CANFrame(id: std(0x123), data: [], isRemote: true)) == "123#R")
        #expect(CandumpWriter.compactFrame(try CANFrame(id: std(0x123), data: [0, 0, 0, 0, 0], isRemote: true)) == "123#R5")
        #expect(CandumpWriter.compactFrame(try CANFrame(id: std(0x123), data: [0xDE, 0xAD, 0xBE, 0xEF], kind: fdBRS)) == "123##1DEADBEEF")
        #expect(CandumpWriter.compactFrame(try CANFrame(id: std(0x123), data: [], kind: .fd(bitRateSwitch: true, errorStateIndicator: true))) == "123##3")
        #expect(CandumpWriter.compactFrame(try CANFrame(id: ext(0x4), data: [0, 4, 0, 0, 0, 0, 0, 0], isError: true)) == "20000004#0004000000000000")

        var buffer: [UInt8] = []
        CandumpWriter.append(classic, to: &buffer)
        CandumpWriter.append(CandumpRecord(frame: try CANFrame(id: std(0x1), data: [1])), to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "(1700000000.000100) vcan0 123#DEADBEEF\n001#01\n")
        #expect(CandumpTimestamp(seconds: 12, microseconds: 5).description == "12.000005")
    }

    @Test func roundTripRandomFrames() throws {
        var generator = SplitMix64(seed: 42)
        for index in 0..<2000 {
            let choice = generator.next() % 4
            let extended = generator.next() & 1 == 1
            let id =
                extended
                ? ext(UInt32(truncatingIfNeeded: generator.next()) & CANID.maxExtended)
                : std(UInt16(truncatingIfNeeded: generator.next()) & 0x7FF)
            let frame: CANFrame
            switch choice {
            case 0:
                let count = Int(generator.next() % 9)
                frame = try CANFrame(id: id, data: (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            case 1:
                let count = CANFrame.fdLengths[Int(generator.next() % 16)]
                let flags = generator.next()
                frame = try CANFrame(
                    id: id, data: (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) },
                    kind: .fd(bitRateSwitch: flags & 1 != 0, errorStateIndicator: flags & 2 != 0))
            case 2:
                frame = try CANFrame(id: id, data: Array(repeating: 0, count: Int(generator.next() % 9)), isRemote: true)
            default:
                frame = try CANFrame(id: ext(UInt32(generator.next() % 0x200)), data: Array(repeating: 0, count: 8), isError: true)
            }
            let timestamp: CandumpTimestamp? =
                index % 5 == 0
                ? nil
                : CandumpTimestamp(seconds: Int64(generator.next() % 4_000_000_000), microseconds: UInt32(generator.next() % 1_000_000))
            let interface: String? = index % 7 == 0 ? nil : "vcan\(index % 3)"
            let original = CandumpRecord(timestamp: timestamp, interface: interface, frame: frame)
            let line = CandumpWriter.logLine(original)
            #expect(try CandumpReader.parseLine(line) == .record(original), "\(line)")
        }
    }
}

@Suite struct CandumpTimestampISO8601Tests {
    @Test func utcText() {
        #expect(CandumpTimestamp(seconds: 0, microseconds: 0).iso8601 == "1970-01-01T00:00:00.000Z")
        #expect(CandumpTimestamp(seconds: 1_700_000_000, microseconds: 123_456).iso8601 == "2023-11-14T22:13:20.123Z")
        #expect(CandumpTimestamp(seconds: 951_782_400, microseconds: 999_999).iso8601 == "2000-02-29T00:00:00.999Z")
        #expect(CandumpTimestamp(seconds: -1, microseconds: 0).iso8601 == "1969-12-31T23:59:59.000Z")
        #expect(CandumpTimestamp(seconds: 4_102_444_799, microseconds: 0).iso8601 == "2099-12-31T23:59:59.000Z")
    }
}
