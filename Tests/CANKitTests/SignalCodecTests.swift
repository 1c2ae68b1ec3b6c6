import Testing

@testable import CANKit

/// Hand-computed bit layouts and cantools' strict encoding rules. Every expected payload
/// was worked out by hand (comments show how) and cross-checked with cantools 45.1.
@Suite struct SignalCodecTests {
    static let database: DBCDatabase = {
        do {
            return try DBCDatabase(parsing: dbcText, source: "codec.dbc")
        } catch {
            fatalError("fixture does not load: \(error)")
        }
    }()

    static func codec(_ name: String) -> MessageCodec {
        guard let message = database.message(named: name) else { fatalError("no message \(name)") }
        return message.codec
    }

    static let dbcText = """
        BO_ 256 Layout: 8 Vector__XXX
         SG_ Moto12 : 7|12@0+ (1,0) [0|4095] "" Vector__XXX
         SG_ Signed4 : 8|4@1- (1,0) [-8|7] "" Vector__XXX
         SG_ Intel8 : 20|8@1+ (1,0) [0|255] "" Vector__XXX
         SG_ Moto10 : 35|10@0+ (1,0) [0|1023] "" Vector__XXX

        BO_ 257 Float32: 4 Vector__XXX
         SG_ F32 : 0|32@1- (1,0) [0|0] "" Vector__XXX

        BO_ 258 Float64: 8 Vector__XXX
         SG_ F64 : 7|64@0- (1,0) [0|0] "" Vector__XXX

        BO_ 259 Wide: 8 Vector__XXX
         SG_ U64 : 0|64@1+ (1,0) [0|18446744073709551615] "" Vector__XXX

        BO_ 260 Signed63: 8 Vector__XXX
         SG_ S63 : 0|63@1- (1,0) [-4611686018427387904|4611686018427387903] "" Vector__XXX

        BO_ 300 Ctl: 2 Vector__XXX
         SG_ Mode : 0|2@1+ (1,0) [0|3] "" Vector__XXX
         SG_ Level : 2|4@1+ (1,0) [0|20] "" Vector__XXX
         SG_ Flag : 6|1@1+ (1,0) [0|1] "" Vector__XXX
         SG_ Temp : 8|8@1+ (0.5,-40) [-40|50] "degC" Vector__XXX

        BO_ 301 Sel: 2 Vector__XXX
         SG_ Selector M : 0|8@1+ (1,0) [0|0] "" Vector__XXX
         SG_ Zero m0 : 8|8@1+ (1,0) [0|0] "" Vector__XXX
         SG_ One m1 : 8|8@1- (1,0) [0|0] "" Vector__XXX

        BO_ 302 Types: 5 Vector__XXX
         SG_ Int : 0|8@1+ (1,0) [0|0] "" Vector__XXX
         SG_ Half : 8|8@1+ (0.5,0) [0|0] "" Vector__XXX
         SG_ OnePointZero : 16|8@1+ (1.0,0) [0|0] "" Vector__XXX
         SG_ Lin : 24|8@1- (2,1) [0|0] "" Vector__XXX
         SG_ Round : 32|8@1+ (1,0) [0|0] "" Vector__XXX

        SIG_VALTYPE_ 257 F32 : 1;
        SIG_VALTYPE_ 258 F64 : 2;
        VAL_ 300 Mode 0 "Off" 1 "On" 2 "Auto" ;
        """

    // MARK: - Bit layouts

    @Test func intelAndMotorolaLayout() throws {
        let codec = Self.codec("Layout")
        // Moto12 = 0xABC, Motorola from bit 7: MSB first, byte 0 = 0xAB, then the low
        //   nibble C into byte 1 bits 7..4 -> 0xC0.
        // Signed4 = -3, Intel bits 8..11: 4-bit two's complement 0b1101 = 0xD in byte 1's low
        //   nibble -> byte 1 = 0xC0 | 0x0D = 0xCD (neither field disturbs the other).
        // Intel8 = 0xA5 from bit 20: low nibble 5 into byte 2 bits 4..7 (0x50), high nibble A
        //   into byte 3 bits 0..3 (0x0A): it crosses the byte boundary.
        // Moto10 = 0x2A5 = 0b10_1010_0101 from bit 35 (byte 4, bit 3): the top four bits 1010
        //   fill byte 4 bits 3..0 (0x0A), the remaining 100101 byte 5 bits 7..2 (0x94).
        let values: [String: SignalInput] = ["Moto12": 0xABC, "Signed4": -3, "Intel8": 0xA5, "Moto10": 0x2A5]
        let payload = try codec.encode(values)
        #expect(payload == [0xAB, 0xCD, 0x50, 0x0A, 0x0A, 0x94, 0x00, 0x00])

        let decoded = try codec.decode(payload)
        // Signals come in cantools' order: by start bit (network order for Motorola).
        #expect(decoded.map(\.name) == ["Moto12", "Signed4", "Intel8", "Moto10"])
        #expect(decoded.map(\.value) == [.integer(0xABC), .integer(-3), .integer(0xA5), .integer(0x2A5)])

        // The most negative 4-bit value, -8 = 0b1000.
        var extreme = values
        extreme["Signed4"] = -8
        #expect(try codec.encode(extreme)[1] == 0xC8)
        #expect(try codec.decode([0, 0x08, 0, 0, 0, 0, 0, 0])[1].value == .integer(-8))
        #expect(try codec.decode([0, 0x07, 0, 0, 0, 0, 0, 0])[1].value == .integer(7))
    }

    @Test func float32Intel() throws {
        let codec = Self.codec("Float32")
        // 1.5 = 0x3FC00000, written least significant byte first.
        #expect(try codec.encode(["F32": 1.5]) == [0x00, 0x00, 0xC0, 0x3F])
        #expect(try codec.decode([0x00, 0x00, 0xC0, 0x3F]).map(\.value) == [.float(1.5)])
        // An integer input to a float signal is stored as that float.
        #expect(try codec.encode(["F32": 2]) == [0x00, 0x00, 0x00, 0x40])
    }

    @Test func float64Motorola() throws {
        let codec = Self.codec("Float64")
        // -2.25 = 0xC002000000000000, Motorola from bit 7: most significant byte first.
        #expect(try codec.encode(["F64": -2.25]) == [0xC0, 0x02, 0, 0, 0, 0, 0, 0])
        #expect(try codec.decode([0xC0, 0x02, 0, 0, 0, 0, 0, 0]).map(\.value) == [.float(-2.25)])
    }

    @Test func unsigned64AllBitsSet() throws {
        let codec = Self.codec("Wide")
        let all = Int128(UInt64.max)
        #expect(try codec.encode(["U64": .integer(all)]) == [UInt8](repeating: 0xFF, count: 8))
        #expect(try codec.decode([UInt8](repeating: 0xFF, count: 8)).map(\.value) == [.integer(18_446_744_073_709_551_615)])
    }

    @Test func signed63Negative() throws {
        let codec = Self.codec("Signed63")
        // -2^62 in 63-bit two's complement is 2^63 - 2^62 = 0x4000000000000000; bit 63
        // (the top bit of byte 7) is outside the field and stays 0.
        let minimum = -(Int128(1) << 62)
        #expect(try codec.encode(["S63": .integer(minimum)]) == [0, 0, 0, 0, 0, 0, 0, 0x40])
        #expect(try codec.decode([0, 0, 0, 0, 0, 0, 0, 0x40]).map(\.value) == [.integer(minimum)])
        // -1 is 63 one bits: 0x7FFFFFFFFFFFFFFF.
        #expect(try codec.encode(["S63": -1]) == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
        // Bit 63 set in the payload does not belong to the field: still -1.
        #expect(try codec.decode([UInt8](repeating: 0xFF, count: 8)).map(\.value) == [.integer(-1)])
    }

    // MARK: - Encoding errors name the signal

    /// Ctl's values that encode: Mode=On (1, bits 0-1), Level=15 (bits 2-5), Flag=1 (bit 6),
    /// Temp=21.5 ((21.5 + 40) / 0.5 = 123 = 0x7B).
    static let ctlValues: [String: SignalInput] = ["Mode": "On", "Level": 15, "Flag": 1, "Temp": 21.5]

    @Test func ctlEncodes() throws {
        // byte 0 = 1 | 15 << 2 | 1 << 6 = 0x01 | 0x3C | 0x40 = 0x7D.
        #expect(try Self.codec("Ctl").encode(Self.ctlValues) == [0x7D, 0x7B])
    }

    @Test func aboveMaximum() {
        var values = Self.ctlValues
        values["Temp"] = 50.5
        let error = #expect(throws: DBCEncodeError.self) { try Self.codec("Ctl").encode(values) }
        #expect(error == .aboveMaximum(message: "Ctl", signal: "Temp", value: "50.5", maximum: "50"))
        #expect(error?.signal == "Temp")
    }

    @Test func belowMinimum() {
        var values = Self.ctlValues
        values["Temp"] = -40.5
        let error = #expect(throws: DBCEncodeError.self) { try Self.codec("Ctl").encode(values) }
        #expect(error == .belowMinimum(message: "Ctl", signal: "Temp", value: "-40.5", minimum: "-40"))
        #expect(error?.signal == "Temp")
    }

    @Test func rawValueThatDoesNotFitThrowsInsteadOfTruncating() throws {
        // Level's DBC range [0|20] allows 16, but 4 bits hold 0...15. Truncating would give
        // byte 0 = 0x41 (Level 0) and an unmasked write would set bit 6, Flag's bit: the
        // encoder must refuse instead.
        var values = Self.ctlValues
        values["Level"] = 16
        let error = #expect(throws: DBCEncodeError.self) { try Self.codec("Ctl").encode(values) }
        #expect(error?.signal == "Level")
        guard case let .rawValueOutOfRange(message, signal, _, raw, bits, signed) = error else {
            Issue.record("expected rawValueOutOfRange, got \(String(describing: error))")
            return
        }
        #expect(message == "Ctl" && signal == "Level" && raw == "16" && bits == 4 && !signed)

        // Neighbours keep their bits when Level is at its largest raw value, and with
        // Flag = 0 bit 6 stays clear: Level's write never spills into it.
        values["Level"] = 15
        values["Flag"] = 0
        #expect(try Self.codec("Ctl").encode(values) == [0x3D, 0x7B])
    }

    @Test func unknownChoice() {
        var values = Self.ctlValues
        values["Mode"] = "Turbo"
        let error = #expect(throws: DBCEncodeError.self) { try Self.codec("Ctl").encode(values) }
        #expect(error == .unknownChoice(message: "Ctl", signal: "Mode", choice: "Turbo", known: ["Off", "On", "Auto"]))
        #expect(error?.signal == "Mode")
    }

    @Test func missingSignal() {
        var values = Self.ctlValues
        values["Temp"] = nil
        let error = #expect(throws: DBCEncodeError.self) { try Self.codec("Ctl").encode(values) }
        #expect(error == .missingSignal(message: "Ctl", signal: "Temp"))
    }

    @Test func extraUnknownSignal() {
        var values = Self.ctlValues
        values["Bogus"] = 1
        let error = #expect(throws: DBCEncodeError.self) { try Self.codec("Ctl").encode(values) }
        #expect(error == .unexpectedSignals(message: "Ctl", signals: ["Bogus"]))
        #expect(error?.signal == "Bogus")
    }

    @Test func invalidMultiplexerValue() throws {
        let codec = Self.codec("Sel")
        let error = #expect(throws: DBCEncodeError.self) { try codec.encode(["Selector": 7, "Zero": 1]) }
        #expect(error == .invalidMultiplexerValue(message: "Sel", multiplexer: "Selector", value: "7", expected: [0, 1]))
        #expect(error?.signal == "Selector")
        // A signal of the other branch is "not required", not silently dropped.
        #expect(throws: DBCEncodeError.unexpectedSignals(message: "Sel", signals: ["One"])) {
            try codec.encode(["Selector": 0, "Zero": 1, "One": 1])
        }
        #expect(try codec.encode(["Selector": 1, "One": -1]) == [0x01, 0xFF])
    }

    // MARK: - Decoding

    @Test func payloadLength() throws {
        let codec = Self.codec("Ctl")
        #expect(throws: DBCDecodeError.wrongLength(message: "Ctl", actual: 1, expected: 2)) { try codec.decode([0x7D]) }
        #expect(throws: DBCDecodeError.wrongLength(message: "Ctl", actual: 0, expected: 2)) { try codec.decode([]) }
        // A longer payload is accepted; the extra byte is ignored.
        let decoded = try codec.decode([0x7D, 0xA3, 0xFF])
        #expect(decoded.map(\.name) == ["Mode", "Level", "Flag", "Temp"])
        // Temp raw 0xA3 = 163: 163 * 0.5 - 40 = 41.5.
        #expect(decoded.map(\.value) == [.choice("On", raw: 1), .integer(15), .integer(1), .float(41.5)])
    }

    @Test func choicesAsNamesOrNumbers() throws {
        let codec = Self.codec("Ctl")
        // 0x7E: Mode = 2 ("Auto"), Level = 15, Flag = 1.
        #expect(try codec.decode([0x7E, 0xA3])[0].value == .choice("Auto", raw: 2))
        #expect(try codec.decode([0x7E, 0xA3], choices: false)[0].value == .integer(2))
        // Mode = 3 has no name: a number either way.
        #expect(try codec.decode([0x7F, 0xA3])[0].value == .integer(3))
    }

    @Test func decodeInvalidMultiplexerValue() throws {
        let codec = Self.codec("Sel")
        #expect(throws: DBCDecodeError.invalidMultiplexerValue(message: "Sel", multiplexer: "Selector", value: 7, expected: [0, 1])) {
            try codec.decode([0x07, 0xFF])
        }
        // Selector 1 picks the signed One; Zero is absent.
        let decoded = try codec.decode([0x01, 0xFF])
        #expect(decoded.map(\.name) == ["Selector", "One"])
        #expect(decoded.map(\.value) == [.integer(1), .integer(-1)])
    }

    // MARK: - cantools' number typing and rounding

    @Test func integerOrFloatLikeCantools() throws {
        let codec = Self.codec("Types")
        let decoded = try codec.decode([3, 3, 3, 3, 3])
        #expect(decoded.map(\.name) == ["Int", "Half", "OnePointZero", "Lin", "Round"])
        // (1,0): identity, an int. (0.5,0): a float, 1.5. (1.0,0): identity too, so an int
        // although the factor is written as a float. (2,1): integer factor and offset, an
        // int: 3 * 2 + 1 = 7.
        #expect(decoded.map(\.value) == [.integer(3), .float(1.5), .integer(3), .integer(7), .integer(3)])
        // Zero stays typed: 0.0 for the float signal, 0 for the others; Lin's offset gives 1.
        #expect(try codec.decode([0, 0, 0, 0, 0]).map(\.value) == [.integer(0), .float(0.0), .integer(0), .integer(1), .integer(0)])
    }

    @Test func roundHalfToEvenOnEncode() throws {
        let codec = Self.codec("Types")
        // Python's round(): ties go to the even integer.
        // Half 1.25 -> 2.5 -> 2; OnePointZero 3.5 -> 4; Lin -3 -> (-3 - 1) / 2 = -2 = 0xFE;
        // Round 3.5 -> 4.
        #expect(try codec.encode(["Int": 3, "Half": 1.25, "OnePointZero": 3.5, "Lin": -3, "Round": 3.5]) == [3, 2, 4, 0xFE, 4])
        // Round 2.5 -> 2; Half 1.5 -> 3 exactly; OnePointZero 3; Lin 7 -> 3.
        #expect(try codec.encode(["Int": 3, "Half": 1.5, "OnePointZero": 3, "Lin": 7, "Round": 2.5]) == [3, 3, 3, 3, 2])
        // Half 1.75 -> 3.5 -> 4; OnePointZero 0.5 -> 0; Lin 8 -> 3.5 -> 4; Round 1.5 -> 2.
        #expect(try codec.encode(["Int": 3, "Half": 1.75, "OnePointZero": 0.5, "Lin": 8, "Round": 1.5]) == [3, 4, 0, 4, 2])
    }
}

/// Overlapping signals (GMLAN's group signals: a container over a value and its validity
/// bit), which cantools' strict mode refuses whole: decoded by position, and a frame
/// encodes the signals given as long as no two share a bit.
@Suite struct OverlappingSignalCodecTests {
    static let codec: MessageCodec = {
        let text = """
            BO_ 303 Grouped: 2 Vector__XXX
             SG_ ValueGroup : 0|9@1+ (1,0) [0|0] "" Vector__XXX
             SG_ ValueV : 0|1@1+ (1,0) [0|1] "" Vector__XXX
             SG_ Value : 1|8@1+ (1,0) [0|255] "" Vector__XXX
             SG_ Other : 9|7@1+ (1,0) [0|127] "" Vector__XXX
            """
        do {
            let database = try DBCDatabase(parsing: text, source: "grouped.dbc")
            return database.message(named: "Grouped")!.codec
        } catch {
            fatalError("fixture does not load: \(error)")
        }
    }()

    static func index(_ name: String) -> Int { codec.index(ofSignal: name)! }

    @Test func everyOverlappingPairIsKnown() {
        let codec = Self.codec
        #expect(codec.hasOverlappingSignals)
        #expect(Set(codec.overlappingSignals(ofSignalAt: Self.index("ValueGroup"))) == [Self.index("ValueV"), Self.index("Value")])
        #expect(codec.overlappingSignals(ofSignalAt: Self.index("Value")) == [Self.index("ValueGroup")])
        #expect(codec.overlappingSignals(ofSignalAt: Self.index("Other")).isEmpty)
        #expect(codec.collision(among: [Self.index("ValueV"), Self.index("Value"), Self.index("Other")]) == nil)
        #expect(
            codec.collision(among: [Self.index("Value"), Self.index("ValueGroup")]).map { [$0.0, $0.1] } == [Self.index("Value"), Self.index("ValueGroup")])
    }

    @Test func theMembersOrTheContainerEncode() throws {
        let codec = Self.codec
        // ValueV = 1 (bit 0), Value = 5 (bits 1-8), Other = 3 (bits 9-15): 0x0B, 0x06.
        #expect(try codec.encode(["ValueV": 1, "Value": 5, "Other": 3]) == [0x0B, 0x06])
        #expect(try codec.encode(["ValueGroup": 0x1FF, "Other": 0]) == [0xFF, 0x01])
        // Overlapping signals may all be left out: their bits are 0.
        #expect(try codec.encode(["Other": 3]) == [0x00, 0x06])
        // The frames decode by position, the container and its members alike.
        let decoded = try codec.decode([0x0B, 0x06])
        #expect(decoded.map(\.name) == codec.signalNames)
        #expect(
            Dictionary(uniqueKeysWithValues: decoded.map { ($0.name, $0.value) }) == [
                "ValueGroup": .integer(11), "ValueV": .integer(1), "Value": .integer(5), "Other": .integer(3),
            ])
    }

    @Test func givenSignalsThatShareABitAreRefusedNamingBoth() {
        let error = #expect(throws: DBCEncodeError.self) { try Self.codec.encode(["ValueGroup": 1, "Value": 5, "Other": 0]) }
        #expect(error == .overlappingSignals(message: "Grouped", signal: "ValueGroup", other: "Value"))
        #expect(error?.description == "Signals \"ValueGroup\" and \"Value\" of message \"Grouped\" share bits: a frame carries one of them, not both.")
    }

    @Test func aSignalThatOverlapsNothingIsStillRequired() {
        #expect(throws: DBCEncodeError.missingSignal(message: "Grouped", signal: "Other")) { try Self.codec.encode(["Value": 5]) }
    }

    @Test func oneSignalCarriesAValueWhateverItsNeighbours() throws {
        let codec = Self.codec
        #expect(try codec.carried(.integer(200), signalAt: Self.index("Value")) == .integer(200))
        #expect(throws: DBCEncodeError.aboveMaximum(message: "Grouped", signal: "Value", value: "256", maximum: "255")) {
            try codec.carried(.integer(256), signalAt: Self.index("Value"))
        }
    }
}
