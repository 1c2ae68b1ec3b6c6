import Foundation
import TestSupport
import Testing

@testable import CANKit

/// Compares the codec with cantools on vectors that cantools produced
/// (IntegrationTests/support/golden/generate_vectors.py, run by scripts/test.sh into CARPLAYD_GOLDEN_DIR).
/// Without the vectors this test fails: it never passes without comparing.
@Suite struct GoldenVectorTests {
    struct Tally {
        var files = 0
        var messages = 0
        var signals = 0
        var decodes = 0
        var encodes = 0
        var errorsMatched = 0
        var littleEndian = 0
        var bigEndian = 0
        var signed = 0
        var floats = 0
        var multiplexed = 0
        var fd = 0
    }

    static var goldenDirectory: URL? {
        ProcessInfo.processInfo.environment["CARPLAYD_GOLDEN_DIR"].map { URL(fileURLWithPath: $0) }
    }

    // Async, giving its pool thread up every few milliseconds: tens of thousands of vectors
    // in one synchronous run would hold a thread of the cooperative pool, which all the
    // tests share, for tens of seconds.
    @Test func codecMatchesCantools() async throws {
        let directory = try #require(
            Self.goldenDirectory,
            "CARPLAYD_GOLDEN_DIR is not set: run scripts/test.sh, which generates the cantools vectors")
        let vectorFiles = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(vectorFiles.count >= 80, "expected vectors for the whole corpus in \(directory.path)")

        var dbcPaths: [String: URL] = [:]
        for url in try TestPaths.corpusFiles() + TestPaths.profileDBCFiles() {
            dbcPaths[url.lastPathComponent] = url
            dbcPaths[url.deletingPathExtension().lastPathComponent] = url
        }

        var tally = Tally()
        var turn = CooperativePool.Turn()
        for vectorFile in vectorFiles {
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent(vectorFile))) as! [String: Any]
            let dbcName = json["dbc"] as! String
            let dbcURL = try #require(dbcPaths[dbcName], "no DBC file \(dbcName) for \(vectorFile)")
            let bytes = try TestPaths.bytes(dbcURL)
            if let loadError = json["load_error"] as? String {
                // cantools refuses the file; carplayd loads it, saying where it bent the grammar.
                let database = try DBCDatabase(parsing: bytes, source: dbcName)
                #expect(!database.warnings.isEmpty || !database.errors.isEmpty, "cantools refuses \(dbcName) (\(loadError)); we say why we did not")
                continue
            }
            let database = try DBCDatabase(parsing: bytes, source: dbcName)
            tally.files += 1
            for messageJSON in json["messages"] as! [[String: Any]] {
                try compare(messageJSON, in: database, file: dbcName, tally: &tally)
                await turn.yieldIfDue()
            }
        }
        print(
            """
            golden vectors vs cantools: \(tally.files) DBC files, \(tally.messages) messages, \(tally.signals) signals; \
            \(tally.decodes) decodes and \(tally.encodes) encodes identical (\(tally.errorsMatched) of them errors on both sides); \
            messages with Intel signals \(tally.littleEndian), Motorola \(tally.bigEndian), signed \(tally.signed), \
            float \(tally.floats), multiplexed \(tally.multiplexed), CAN FD \(tally.fd)
            """)
        #expect(tally.messages >= 400)
        #expect(tally.bigEndian > 0 && tally.littleEndian > 0 && tally.signed > 0 && tally.floats > 0 && tally.multiplexed > 0 && tally.fd > 0)
    }

    private func compare(_ json: [String: Any], in database: DBCDatabase, file: String, tally: inout Tally) throws {
        let name = json["name"] as! String
        let message = try #require(database.message(named: name), "\(file): message \(name) missing")
        #expect(message.frameID == UInt32(json["frame_id"] as! Int), "\(file) \(name): frame ID")
        #expect(message.isExtended == (json["extended"] as! Bool), "\(file) \(name): extended")
        #expect(message.length == json["length"] as! Int, "\(file) \(name): length")
        if let isFD = json["is_fd"] as? Bool { #expect(message.isFD == isFD, "\(file) \(name): is_fd") }
        tally.messages += 1
        tally.signals += message.signals.count
        if message.signals.contains(where: { $0.byteOrder == .littleEndian }) { tally.littleEndian += 1 }
        if message.signals.contains(where: { $0.byteOrder == .bigEndian }) { tally.bigEndian += 1 }
        if message.signals.contains(where: \.isSigned) { tally.signed += 1 }
        if message.signals.contains(where: { $0.valueType.isFloat }) { tally.floats += 1 }
        if message.isMultiplexed { tally.multiplexed += 1 }
        if message.isFD { tally.fd += 1 }

        for vector in json["decode"] as? [[String: Any]] ?? [] {
            let data = hexBytes(vector["data"] as! String)
            let context = "\(file) \(name) decode \(vector["data"] as! String)"
            if vector["error"] != nil {
                #expect(throws: DBCDecodeError.self, "\(context): cantools says \(vector["error"]!)") {
                    try message.codec.decode(data)
                }
                tally.errorsMatched += 1
            } else {
                for (key, choices) in [("choices", true), ("raw", false)] {
                    let expected = try #require(vector[key] as? [String: Any], "\(context): no \(key)")
                    let decoded = try message.codec.decode(data, choices: choices)
                    #expect(decoded.count == expected.count, "\(context) \(key): \(decoded.map(\.name)) vs \(expected.keys.sorted())")
                    for (signal, value) in decoded {
                        let want = try #require(expected[signal] as? [String: String], "\(context): cantools has no \(signal)")
                        #expect(same(value, want), "\(context) \(key) \(signal): ours \(value) cantools \(want)")
                    }
                }
            }
            tally.decodes += 1
        }
        for vector in json["encode"] as? [[String: Any]] ?? [] {
            let inputJSON = vector["input"] as! [String: [String: String]]
            var input: [String: SignalInput] = [:]
            for (signal, tagged) in inputJSON { input[signal] = signalInput(tagged) }
            let context = "\(file) \(name) encode \(inputJSON)"
            if vector["error"] != nil {
                #expect(throws: DBCEncodeError.self, "\(context): cantools says \(vector["error"]!)") {
                    try message.codec.encode(input)
                }
                tally.errorsMatched += 1
            } else {
                let expected = vector["data"] as! String
                do {
                    let encoded = try message.codec.encode(input)
                    #expect(hexString(encoded, uppercase: true) == expected.uppercased(), "\(context)")
                } catch {
                    Issue.record("\(context): ours failed (\(error)), cantools gives \(expected)")
                }
            }
            tally.encodes += 1
            indexedEncodeMatches(message.codec, input, context: context)
        }
    }

    /// `encode(SignalInputs)` (by signal index, raw values kept from when each input was
    /// set) gives what `encode([String: SignalInput])` gives, bytes or error. Every input
    /// is first set to another value and back, so a stale raw value would show.
    private func indexedEncodeMatches(_ codec: MessageCodec, _ input: [String: SignalInput], context: String) {
        let names = codec.signalNames
        guard Set(names).count == names.count else { return }  // names index signals only when unique
        var inputs = SignalInputs(codec: codec)
        for (name, value) in input {
            guard let index = codec.index(ofSignal: name) else { return }  // a name the index form cannot express
            inputs[index] = .integer(1)
            inputs[index] = value
        }
        #expect(inputs.given == input.count, "\(context)")
        let byName = Result { () throws(DBCEncodeError) in try codec.encode(input) }
        let byIndex = Result { () throws(DBCEncodeError) in try codec.encode(inputs) }
        switch (byName, byIndex) {
        case let (.success(a), .success(b)): #expect(a == b, "\(context): by index \(hexString(b)), by name \(hexString(a))")
        case let (.failure(a), .failure(b)): #expect(a == b, "\(context): by index \(b), by name \(a)")
        default: Issue.record("\(context): by index \(byIndex), by name \(byName)")
        }
    }

    private func same(_ value: SignalValue, _ tagged: [String: String]) -> Bool {
        switch value {
        case let .integer(number): return tagged["i"] == String(number)
        case let .float(number):
            guard let text = tagged["f"], let want = parseFloat(text) else { return false }
            return number.bitPattern == want.bitPattern || (number.isNaN && want.isNaN)
        case let .choice(name, _): return tagged["c"].map(Self.asRead) == name
        }
    }

    /// cantools reads every DBC as cp1252; carplayd reads UTF-8 where the text is UTF-8.
    /// A name cantools gives, as carplayd reads the same bytes.
    static func asRead(_ cantools: String) -> String {
        var bytes: [UInt8] = []
        for scalar in cantools.unicodeScalars {
            if scalar.value < 0x80 || (scalar.value >= 0xA0 && scalar.value <= 0xFF) {
                bytes.append(UInt8(scalar.value))
            } else if let index = (0x80...0x9F).first(where: { CP1252.decode([UInt8($0)]).unicodeScalars.first == scalar }) {
                bytes.append(UInt8(index))
            } else {
                return cantools
            }
        }
        return CP1252.decode(bytes)
    }

    private func signalInput(_ tagged: [String: String]) -> SignalInput {
        if let integer = tagged["i"] { return .integer(Int128(integer)!) }
        if let real = tagged["f"] { return .float(parseFloat(real)!) }
        return .choice(Self.asRead(tagged["c"]!))
    }

    /// Python's float.hex() output, "inf", "-inf", "nan".
    private func parseFloat(_ text: String) -> Double? {
        switch text {
        case "nan", "-nan": return .nan
        case "inf": return .infinity
        case "-inf": return -.infinity
        default: return Double(text)
        }
    }
}
