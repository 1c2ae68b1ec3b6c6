import Foundation
import TestSupport
import Testing

@testable import CANKit

// The opendbc schemes against opendbc 0.3.1's frames (OpendbcChecksumFrames.swift): each
// built-in scheme, and the `declared` scheme reproducing the ones a declaration can say.
// The CRC of `declared` against the check values of the CRC catalogue.

/// fca_giorgio EPS_3's third sample frame of test_checksums.py carries 0x6E where opendbc's
/// own function computes 0xE1: opendbc's parser drops it and its test passes on the
/// previous frame's values.
private let badFCASample = "7bf0026e"

extension FrameProtectionTests {
    @Suite struct OpendbcSchemes {
        /// The built-in scheme of an opendbc message; the VW data IDs and MLB start values
        /// from opendbc's tables. nil for vw_meb's KLR_01, which has no data ID in 0.3.1.
        static func builtIn(_ message: OpendbcMessage) -> FrameProtection.Scheme? {
            let known = VolkswagenDataIDs.opendbc(frameID: message.frameID)
            switch message.scheme {
            case "honda": return .honda
            case "toyota": return .toyota
            case "hkg-can-fd": return .hkgCANFD
            case "vw-mqb": return known.map { .vwMQB(dataIDs: $0) }
            case "vw-mlb":
                if let start = VolkswagenDataIDs.mlbXORStart(frameID: message.frameID) { return .vwMLB(.xor(start: start)) }
                return known.map { .vwMLB(.crc(dataIDs: $0)) }
            case "xor": return .xor
            case "subaru": return .subaru
            case "chrysler": return .chrysler
            case "fca-giorgio": return .fcaGiorgio
            case "body": return .body
            case "tesla": return .tesla
            case "psa": return .psa
            default: return nil
            }
        }

        /// Each frame: the checksum the scheme computes is the frame's; `protect` rebuilds the
        /// frame from its other bits; the checker accepts it, and rejects it under another
        /// frame ID where the scheme covers the ID.
        @Test func builtInSchemesReproduceEveryFrame() throws {
            var verified: [String: Int] = [:]
            for message in opendbcMessages {
                guard let scheme = Self.builtIn(message) else {
                    #expect(message.name == "KLR_01", "\(message.dbc) \(message.name) has no scheme")
                    continue
                }
                let protection = try FrameProtection(scheme: scheme, checksum: message.checksum, counter: message.counter)
                for text in message.frames {
                    let frame = hexBytes(text)
                    let label = "\(message.scheme) \(message.dbc) \(message.name) \(text)"
                    let computed = protection.checksum(of: frame, frameID: message.frameID)
                    if text == badFCASample {
                        #expect(computed == 0xE1 && frame[3] == 0x6E, "\(label)")
                        continue
                    }
                    #expect(computed == message.checksum.read(frame), "\(label)")
                    var rebuilt = frame
                    message.checksum.write(.max, into: &rebuilt)
                    try protection.protect(&rebuilt, frameID: message.frameID, counter: protection.counter(in: frame) ?? 0)
                    #expect(rebuilt == frame, "\(label)")
                    var checker = FrameChecker(protection: protection)
                    #expect(checker.check(frame, frameID: message.frameID) == .ok, "\(label)")
                    verified[message.scheme, default: 0] += 1
                }
            }
            #expect(
                verified == [
                    "honda": 9, "toyota": 6, "hkg-can-fd": 12, "vw-mqb": 12, "vw-mlb": 9, "xor": 12, "subaru": 6, "chrysler": 6,
                    "fca-giorgio": 17, "body": 6, "tesla": 9, "psa": 15,
                ])
        }

        /// Where the frame ID goes in, a frame checked under a neighbour's ID fails.
        @Test func frameIDsCountWhereOpendbcSaysSo() throws {
            let covering: Set<String> = ["honda", "toyota", "hkg-can-fd", "subaru", "tesla"]
            for message in opendbcMessages where covering.contains(message.scheme) {
                let protection = try FrameProtection(scheme: #require(Self.builtIn(message)), checksum: message.checksum, counter: message.counter)
                for text in message.frames {
                    #expect(!protection.checksumMatches(hexBytes(text), frameID: message.frameID + 1), "\(message.name) \(text)")
                }
            }
            // The per-ID constants: FCA's final XOR and PSA's start value.
            let fca = try FrameProtection(scheme: .fcaGiorgio, checksum: motorola(31, 8), counter: nil)
            #expect(fca.checksum(of: [0x7B, 0x30, 0x00, 0x00], frameID: 0x122) == 0xF8)
            #expect(fca.checksum(of: [0x7B, 0x30, 0x00, 0x00], frameID: 0x123) == 0xF8 ^ 0xF1 ^ 0x0A)
            let psa = try FrameProtection(scheme: .psa, checksum: intel(20, 4), counter: nil)
            #expect(psa.checksum(of: [0, 0, 0x00, 0x8F], frameID: 0x42D) == 0x5, "0xC - 0x17 = 0x5")
            #expect(psa.checksum(of: [0, 0, 0x00, 0x8F], frameID: 0x42E) == 0x4, "0xB - 0x17 = 0x4")
        }

        /// Subaru `Steering` (0x002) has its checksum in byte 4; byte 0 stays out of the sum
        /// as in every Subaru message, and the checksum byte too (opendbc's packer sums it as 0).
        @Test func subaruSteeringLeavesOutByteZeroAndItsChecksum() throws {
            let protection = try FrameProtection(scheme: .subaru, checksum: intel(32, 8), counter: intel(25, 3))
            var frame = hexBytes("2cc10000c3000000")
            #expect(protection.checksumMatches(frame, frameID: 0x002))
            frame[0] = 0xFF
            #expect(protection.checksumMatches(frame, frameID: 0x002), "byte 0 is not covered")
            frame[5] = 1
            #expect(!protection.checksumMatches(frame, frameID: 0x002))
        }

        // MARK: Declared

        private static let hkgLengthXOR: [Int: UInt16] = [8: 0x5F29, 16: 0x041D, 24: 0x819D, 32: 0x9F5B]

        /// The declaration that computes an opendbc message's checksum, written from the
        /// spec alone; nil where a declaration cannot (Honda's and PSA's subtracted nibble
        /// sums, MQB's data ID per counter).
        static func declared(_ message: OpendbcMessage, size: Int) -> DeclaredChecksum? {
            switch message.scheme {
            case "toyota":
                var toyota = DeclaredChecksum(algorithm: .sum)
                toyota.frameIDBytes = 4
                toyota.length = .before
                return toyota
            case "tesla":
                var tesla = DeclaredChecksum(algorithm: .sum)
                tesla.frameIDBytes = 2
                return tesla
            case "subaru":
                var subaru = DeclaredChecksum(algorithm: .sum)
                subaru.firstByte = 1
                subaru.frameIDBytes = 4
                return subaru
            case "xor":
                return DeclaredChecksum(algorithm: .xor)
            case "vw-mlb":
                let starts: [UInt32: UInt16] = [0x10B: 0x0A, 0x30C: 0x0F]
                guard let start = starts[message.frameID] else { return nil }
                var mlb = DeclaredChecksum(algorithm: .xor)
                mlb.initial = start
                return mlb
            case "vw-mqb":
                // KLR_01: opendbc 0.3.1 has no data ID for it, the bare CRC-8/AUTOSAR.
                guard message.name == "KLR_01" else { return nil }
                return crc8(polynomial: 0x2F, initial: 0xFF, xorOut: 0xFF)
            case "chrysler":
                return crc8(polynomial: 0x1D, initial: 0xFF, xorOut: 0xFF)
            case "fca-giorgio":
                let xors: [UInt32: UInt16] = [0x0DE: 0x10, 0x106: 0xF6, 0x122: 0xF1]
                return crc8(polynomial: 0x1D, initial: 0, xorOut: xors[message.frameID] ?? 0x0A)
            case "body":
                var body = crc8(polynomial: 0xD5, initial: 0xFF, xorOut: 0)
                body.byteOrder = .reverse
                return body
            case "hkg-can-fd":
                var hkg = DeclaredChecksum(algorithm: .crc16)
                hkg.polynomial = 0x1021
                hkg.xorOut = hkgLengthXOR[size] ?? 0
                hkg.frameIDBytes = 2
                hkg.frameIDPosition = .after
                return hkg
            default:
                return nil
            }
        }

        private static func crc8(polynomial: UInt16, initial: UInt16, xorOut: UInt16) -> DeclaredChecksum {
            var crc = DeclaredChecksum(algorithm: .crc8)
            crc.polynomial = polynomial
            crc.initial = initial
            crc.xorOut = xorOut
            return crc
        }

        /// Toyota's and Tesla's sums and the CRCs of seven more schemes, each from its
        /// declaration alone: the frames' checksums, and `protect` rebuilds the frames.
        @Test func declaredChecksumsReproduceTheFrames() throws {
            var verified: [String: Int] = [:]
            for message in opendbcMessages {
                for text in message.frames where text != badFCASample {
                    let frame = hexBytes(text)
                    guard let declared = Self.declared(message, size: frame.count) else { continue }
                    let protection = try FrameProtection(scheme: .declared(declared), checksum: message.checksum, counter: message.counter)
                    let label = "declared \(message.scheme) \(message.dbc) \(message.name) \(text)"
                    #expect(protection.checksum(of: frame, frameID: message.frameID) == message.checksum.read(frame), "\(label)")
                    var rebuilt = frame
                    message.checksum.write(0, into: &rebuilt)
                    try protection.protect(&rebuilt, frameID: message.frameID, counter: protection.counter(in: frame) ?? 0)
                    #expect(rebuilt == frame, "\(label)")
                    verified[message.scheme, default: 0] += 1
                }
            }
            #expect(
                verified == [
                    "toyota": 6, "tesla": 9, "subaru": 6, "xor": 12, "vw-mlb": 6, "vw-mqb": 3, "chrysler": 6, "fca-giorgio": 17, "body": 6,
                    "hkg-can-fd": 12,
                ])
        }

        /// The options, worked by hand. A 4-bit checksum beside the counter in one byte:
        /// `checksumBits: zero` keeps the counter's nibble in, `skip` leaves the byte out.
        @Test func declaredOptionsByHand() throws {
            let frame: [UInt8] = [0x12, 0x34, 0xA0, 0x56]
            var xor = DeclaredChecksum(algorithm: .xor)
            xor.checksumBits = .zero
            let nibble = try FrameProtection(scheme: .declared(xor), checksum: intel(16, 4), counter: intel(20, 4))
            #expect(nibble.checksum(of: frame, frameID: 0) == UInt64((0x12 ^ 0x34 ^ 0xA0 ^ 0x56) & 0x0F))
            xor.checksumBits = .skip
            let skipped = try FrameProtection(scheme: .declared(xor), checksum: intel(16, 4), counter: intel(20, 4))
            #expect(skipped.checksum(of: frame, frameID: 0) == UInt64((0x12 ^ 0x34 ^ 0x56) & 0x0F))
            // A range from the end, the ID big-endian after the bytes, the length after that.
            var sum = DeclaredChecksum(algorithm: .sum)
            sum.firstByte = -3
            sum.lastByte = -2
            sum.frameIDBytes = 2
            sum.frameIDOrder = .big
            sum.frameIDPosition = .after
            sum.length = .after
            sum.initial = 0x100
            sum.xorOut = 0xFF
            let ranged = try FrameProtection(scheme: .declared(sum), checksum: intel(0, 8), counter: nil)
            // 0x100 + bytes 1...2 (0x34, 0xA0) + ID 0x12, 0x34 + length 4 = 0x21E; XOR 0xFF, 8 bits.
            let expected: UInt64 = 0xE1
            #expect(ranged.checksum(of: frame, frameID: 0x1234) == expected)
            // Byte order matters to a CRC: the ID's bytes little- against big-endian.
            var crc = DeclaredChecksum(algorithm: .crc8)
            crc.polynomial = 0x1D
            crc.frameIDBytes = 2
            let little = try FrameProtection(scheme: .declared(crc), checksum: intel(0, 8), counter: nil)
            crc.frameIDOrder = .big
            let big = try FrameProtection(scheme: .declared(crc), checksum: intel(0, 8), counter: nil)
            #expect(little.checksum(of: frame, frameID: 0x1234) != big.checksum(of: frame, frameID: 0x1234))
        }

        /// Check values over ASCII "123456789" from the catalogue of parametrised CRCs
        /// (reveng's), reflected and not, with odd initial values; and the shared tables.
        @Test(
            arguments: [
                ("CRC-8/SAE-J1850", DeclaredChecksum.Algorithm.crc8, 0x1D, 0xFF, 0xFF, false, 0x4B),
                ("CRC-8/AUTOSAR", .crc8, 0x2F, 0xFF, 0xFF, false, 0xDF),
                ("CRC-8/MAXIM-DOW", .crc8, 0x31, 0x00, 0x00, true, 0xA1),
                ("CRC-8/ROHC", .crc8, 0x07, 0xFF, 0x00, true, 0xD0),
                ("CRC-16/XMODEM", .crc16, 0x1021, 0x0000, 0x0000, false, 0x31C3),
                ("CRC-16/IBM-3740", .crc16, 0x1021, 0xFFFF, 0x0000, false, 0x29B1),
                ("CRC-16/ARC", .crc16, 0x8005, 0x0000, 0x0000, true, 0xBB3D),
                ("CRC-16/MODBUS", .crc16, 0x8005, 0xFFFF, 0x0000, true, 0x4B37),
                ("CRC-16/KERMIT", .crc16, 0x1021, 0x0000, 0x0000, true, 0x2189),
                ("CRC-16/RIELLO", .crc16, 0x1021, 0xB2AA, 0x0000, true, 0x63D0),
                ("CRC-16/GENIBUS", .crc16, 0x1021, 0xFFFF, 0xFFFF, false, 0xD64E),
            ] as [(String, DeclaredChecksum.Algorithm, UInt16, UInt16, UInt16, Bool, UInt64)])
        func declaredCRCCheckValues(
            name: String, algorithm: DeclaredChecksum.Algorithm, polynomial: UInt16, initial: UInt16, xorOut: UInt16, reflected: Bool, check: UInt64
        ) {
            var crc = DeclaredChecksum(algorithm: algorithm)
            crc.polynomial = polynomial
            crc.initial = initial
            crc.xorOut = xorOut
            crc.reflectIn = reflected
            crc.reflectOut = reflected
            #expect(crc.crc(Array("123456789".utf8)) == check, "\(name)")
        }

        @Test func sharedTablesAgreeWithTheDeclaredCRC() {
            var generator = SplitMix64(seed: 0xD5)
            for length in 0..<70 {
                let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                var body = DeclaredChecksum(algorithm: .crc8)
                body.polynomial = 0xD5
                body.initial = 0xFF
                var table = CRC8D5()
                table.update(bytes)
                #expect(UInt64(table.register) == body.crc(bytes))
                var xmodem = DeclaredChecksum(algorithm: .crc16)
                xmodem.polynomial = 0x1021
                var ccitt = CRC16CCITT(startValue: 0)
                ccitt.update(bytes)
                #expect(UInt64(ccitt.finalize()) == xmodem.crc(bytes))
            }
            var check = CRC8D5()
            check.update(Array("123456789".utf8))
            #expect(check.register == 0x7C)
        }

        // MARK: Configuration

        @Test func configurationOfTheNewSchemes() {
            let byte = intel(0, 8)
            let nibble = intel(8, 4)
            for scheme: FrameProtection.Scheme in [.xor, .subaru, .chrysler, .fcaGiorgio, .body, .tesla, .vwMLB(.xor(start: 1))] {
                #expect(configurationError(scheme, checksum: motorola(63, 8), counter: motorola(51, 4)) == nil, "\(scheme.name)")
                #expect(configurationError(scheme, checksum: byte, counter: nil) == nil, "\(scheme.name)")
                #expect(configurationError(scheme, checksum: intel(4, 8), counter: nil)?.contains("one whole byte") == true, "\(scheme.name)")
                #expect(configurationError(scheme, checksum: byte, counter: intel(4, 4))?.contains("shares bits") == true, "\(scheme.name)")
                #expect(
                    configurationError(scheme, checksum: nil, counter: nibble) == "the \(scheme.name) scheme needs `checksum`: name the signal that carries it")
            }
            #expect(configurationError(.psa, checksum: intel(4, 4), counter: motorola(3, 4)) == nil)
            #expect(configurationError(.psa, checksum: intel(2, 4), counter: nil)?.contains("one nibble") == true)
            #expect(configurationError(.hkgCANFD, checksum: intel(0, 16), counter: intel(16, 8)) == nil)
            #expect(configurationError(.hkgCANFD, checksum: motorola(7, 16), counter: nil)?.contains("16-bit Intel") == true)
            #expect(configurationError(.vwMLB(.crc(dataIDs: DataIDs(repeating: 0xDA))), checksum: byte, counter: nibble) == nil)
            #expect(configurationError(.vwMLB(.crc(dataIDs: [1, 2])), checksum: byte, counter: nibble)?.contains("exactly 16 bytes") == true)
            #expect(configurationError(.vwMLB(.crc(dataIDs: DataIDs(repeating: 0xDA))), checksum: byte, counter: nil)?.contains("needs `counter`") == true)
        }

        @Test func configurationOfDeclared() {
            let byte = intel(0, 8)
            var crc8 = DeclaredChecksum(algorithm: .crc8)
            #expect(configurationError(.declared(crc8), checksum: byte, counter: nil)?.contains("needs `polynomial`") == true)
            crc8.polynomial = 0x1D
            #expect(configurationError(.declared(crc8), checksum: byte, counter: intel(8, 4)) == nil)
            #expect(configurationError(.declared(crc8), checksum: intel(0, 12), counter: nil)?.contains("at most 8 bits") == true)
            crc8.polynomial = 0x11D
            #expect(configurationError(.declared(crc8), checksum: byte, counter: nil)?.contains("`polynomial` must be at most 255, not 285") == true)
            var sum = DeclaredChecksum(algorithm: .sum)
            #expect(configurationError(.declared(sum), checksum: intel(0, 16), counter: nil) == nil)
            sum.reflectIn = true
            #expect(configurationError(.declared(sum), checksum: byte, counter: nil)?.contains("is not a CRC") == true)
            sum.reflectIn = false
            sum.firstByte = 5
            sum.lastByte = 2
            #expect(configurationError(.declared(sum), checksum: byte, counter: nil)?.contains("`bytes`") == true)
            sum.lastByte = -1
            sum.frameIDBytes = 5
            #expect(configurationError(.declared(sum), checksum: byte, counter: nil)?.contains("`frameID` has 0...4 bytes") == true)
            #expect(configurationError(.declared(DeclaredChecksum(algorithm: .xor)), checksum: nil, counter: nil)?.contains("needs `checksum`") == true)
        }
    }
}

/// Every checksummed message opendbc knows (1028 messages of 94 DBCs, shipped and
/// generated), frames packed by opendbc's own CANPacker from random values:
/// IntegrationTests/support/protection/opendbc_vectors.py writes them, scripts/test.sh puts
/// the file in CARPLAYD_OPENDBC_VECTORS. Each frame's checksum is recomputed with
/// carplayd's scheme of that name. Without the file this test fails: it never passes
/// without comparing.
extension FrameProtectionTests {
    @Suite struct OpendbcPackerVectors {
        static func field(_ value: Any?) throws -> PayloadField? {
            guard let object = value as? [String: Any] else { return nil }
            let order: DBCByteOrder = try #require(object["byteOrder"] as? String) == "littleEndian" ? .littleEndian : .bigEndian
            return PayloadField(startBit: try #require(object["startBit"] as? Int), length: try #require(object["length"] as? Int), byteOrder: order)
        }

        @Test func everyChecksumOfOpendbcsPacker() throws {
            let path = try #require(
                ProcessInfo.processInfo.environment["CARPLAYD_OPENDBC_VECTORS"],
                "CARPLAYD_OPENDBC_VECTORS is not set: run scripts/test.sh, which packs the frames with opendbc")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            let messages = try #require(document["messages"] as? [[String: Any]])
            var checked: [String: Int] = [:]
            var noScheme: [String] = []
            for entry in messages {
                let message = OpendbcMessage(
                    scheme: try #require(entry["scheme"] as? String), source: .packer, dbc: try #require(entry["dbc"] as? String),
                    name: try #require(entry["name"] as? String), frameID: UInt32(try #require(entry["frameID"] as? Int)),
                    checksum: try #require(try Self.field(entry["checksum"])), counter: try Self.field(entry["counter"]),
                    frames: try #require(entry["frames"] as? [String]))
                guard let scheme = OpendbcSchemes.builtIn(message) else {
                    noScheme.append("\(message.dbc) \(message.name)")
                    continue
                }
                let protection = try FrameProtection(scheme: scheme, checksum: message.checksum, counter: message.counter)
                for text in message.frames {
                    let frame = hexBytes(text)
                    #expect(
                        protection.checksum(of: frame, frameID: message.frameID) == message.checksum.read(frame),
                        "\(message.scheme) \(message.dbc) \(message.name) \(text)")
                    checked[message.scheme, default: 0] += 1
                }
            }
            // Three messages have no data ID in opendbc 0.3.1's table (opendbc sends no data-ID
            // byte for them); a profile declares their CRC (OpendbcSchemes' declared test).
            #expect(noScheme.sorted() == ["vw_meb KLR_01", "vw_mqb LH_EPS_01", "vw_mqb PLA_01"], "\(noScheme)")
            #expect(Set(checked.keys).count == 12, "every scheme: \(checked)")
            print(
                "opendbc packer vectors: \(checked.values.reduce(0, +)) frames checked, \(checked.keys.sorted().map { "\($0) \(checked[$0]!)" }.joined(separator: ", "))"
            )
        }
    }
}
