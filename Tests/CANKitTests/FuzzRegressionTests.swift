import Foundation
import TestSupport
import Testing

@testable import CANKit

/// Inputs the fuzz targets (Fuzz/dbc.swift, Fuzz/candump.swift) found crashing or
/// breaking a property, each reduced to its cause; the original inputs stay in
/// Fuzz/corpus/<target>/regression-*.
@Suite struct FuzzRegressionTests {
    func database(_ signals: String, length: Int = 8) throws -> DBCDatabase {
        try DBCDatabase(parsing: "BO_ 258 Frame: \(length) Node\n\(signals)\n", source: "fuzz.dbc")
    }

    // Fuzz/corpus/dbc/regression-factor-zero.dbc: encoding a signal whose factor is 0
    // divided by zero (Int128 `%` trapped).
    @Test func encodingASignalWithFactorZeroIsAnError() throws {
        let db = try database(#" SG_ Sig : 0|8@1- (0,0) [0|0] "" Node"#)
        let codec = try #require(db.message(named: "Frame")).codec
        for input: SignalInput in [.integer(1), .integer(0), .float(2.5)] {
            #expect(
                throws: DBCEncodeError.unusableMessage(
                    message: "Frame", reason: "signal Sig has a factor of 0, so no raw value gives a physical value")
            ) {
                try codec.encode(["Sig": input])
            }
            #expect(codec.roundTrip(input, signal: "Sig") == nil)
        }
        // Decoding still works: every raw value reads as the offset.
        let decoded = try codec.decode([7, 0, 0, 0, 0, 0, 0, 0])
        #expect(decoded.map(\.name) == ["Sig"])
        #expect(decoded.first?.value == .integer(0))
        // The float form of a zero factor too (a linear conversion).
        let linear = try database(#" SG_ Sig : 0|8@1+ (0.0,0.5) [0|0] "" Node"#)
        #expect(throws: DBCEncodeError.self) { try linear.message(named: "Frame")!.codec.encode(["Sig": .float(0.5)]) }
    }

    // Integer arithmetic on huge factors and offsets must not overflow-trap.
    @Test func hugeFactorsAndOffsetsDoNotTrap() throws {
        let big = "170141183460469231731687303715884105727"  // Int128.max
        let db = try database(#" SG_ Sig : 0|64@1- (\#(big),-\#(big)) [0|0] "" Node"#)
        let codec = try #require(db.message(named: "Frame")).codec
        let input = try #require(codec.input(forRaw: 2, signal: "Sig"))
        if case .float = input {} else { Issue.record("expected the float fallback, got \(input)") }
        _ = codec.roundTrip(.integer(Int128.min), signal: "Sig")
        let minusOne = try database(#" SG_ Sig : 0|64@1- (-1,0) [0|0] "" Node"#)
        #expect(throws: DBCEncodeError.self) { try minusOne.message(named: "Frame")!.codec.encode(["Sig": .integer(Int128.min)]) }
    }

    // Fuzz/corpus/dbc/regression-message-length.dbc: a message of 6789012345678901 bytes
    // (the encoder allocated that much); start bits near Int.max overflowed bit arithmetic;
    // a multiplexer range spanning Int overflowed its size check.
    @Test func absurdLengthsStartBitsAndRangesAreParseErrors() throws {
        func failure(_ text: String) -> DBCParseError? {
            do {
                return try DBCDatabase(parsing: text, source: "fuzz.dbc").errors.first
            } catch {
                return error
            }
        }
        let length = try #require(failure("BO_ 3 M: 6789012345678901 Node\n"))
        #expect(length.line == 1 && length.column == 10)
        #expect(length.description.contains("at most 64 bytes"))
        #expect(failure("BO_ 3 M: 64 Node\n") == nil)
        let start = try #require(failure("BO_ 1 M: 8 N\n SG_ S : 9223372036854775800|8@1+ (1,0) [0|0] \"\" N\n"))
        #expect(start.line == 2 && start.description.contains("start bit of at most 65535"))
        let range = try #require(
            failure(
                "BO_ 1 M: 8 N\n SG_ A M : 0|8@1+ (1,0) [0|0] \"\" N\n SG_ B m1 : 8|8@1+ (1,0) [0|0] \"\" N\n"
                    + "SG_MUL_VAL_ 1 B A -9223372036854775807-9223372036854775807;\n"))
        #expect(range.line == 4 && range.description.contains("1048576"))
    }

    func scan(_ line: String) -> CandumpCompactFrame? {
        var text = line
        var payload = [UInt8](repeating: 0, count: 8)
        return text.withUTF8 { bytes in payload.withUnsafeMutableBufferPointer { CandumpReader.scanCompactFrame(bytes, payload: $0) } }
    }

    // Fuzz/corpus/candump/regression-tab-interface and regression-semicolon-comment:
    // the fast path read a frame where the full reader sees a `-e` detail line, a tab
    // separator or a comment.
    @Test func theFastPathLeavesTabsCommentsAndLongTimestampsToTheReader() throws {
        #expect(scan("\t\t\u{AD} 4B8#") == nil)
        #expect(try CandumpReader.parseLine("\t\t\u{AD} 4B8#") == .errorDetails)
        #expect(scan("a\tb 123#11") == nil)
        #expect(throws: CandumpParseError.self) { try CandumpReader.parseLine("a\tb 123#11") }
        #expect(scan(";\u{8} 7B8#") == nil)
        #expect(try CandumpReader.parseLine(";\u{8} 7B8#") == .comment)
        #expect(scan("(1.1234567890) vcan0 123#11") == nil)
        #expect(throws: CandumpParseError.self) { try CandumpReader.parseLine("(1.1234567890) vcan0 123#11") }
        #expect(scan("(1234567890123456789.1) vcan0 123#11") == nil)
        #expect(throws: CandumpParseError.self) { try CandumpReader.parseLine("(1234567890123456789.1) vcan0 123#11") }
        // The limits themselves still take the fast path.
        #expect(scan("(123456789012345678.123456789) vcan0 123#11")?.id == CANID(standard: 0x123))
    }

    /// Every kept regression input of the CANKit targets, through the same entry points.
    @Test func keptRegressionInputsGiveCleanResults() throws {
        let corpus = TestPaths.repositoryRoot.appendingPathComponent("Fuzz/corpus")
        var replayed = 0
        for target in ["dbc", "candump"] {
            let directory = corpus.appendingPathComponent(target)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("regression-") }
            for name in names.sorted() {
                let bytes = try TestPaths.bytes(directory.appendingPathComponent(name))
                if target == "dbc" {
                    if let db = try? DBCDatabase(parsing: bytes, source: name) {
                        for message in db.messages {
                            let zeros = [UInt8](repeating: 0, count: message.length)
                            let values = (try? message.codec.decode(zeros)) ?? []
                            var inputs: [String: SignalInput] = [:]
                            for (signal, value) in values {
                                switch value {
                                case let .integer(number): inputs[signal] = .integer(number)
                                case let .float(number): inputs[signal] = .float(number)
                                case let .choice(choice, _): inputs[signal] = .choice(choice)
                                }
                            }
                            _ = try? message.codec.encode(inputs)
                        }
                    }
                } else {
                    _ = try? CandumpReader.records(in: bytes)
                }
                replayed += 1
            }
        }
        #expect(replayed >= 3)
    }
}
