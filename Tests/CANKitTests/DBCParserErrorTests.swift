import Testing

@testable import CANKit

/// Malformed DBC text must fail with the file, the exact line and column of the
/// offending token, and text that names what was expected and what was found.
/// Columns are 1-based byte offsets; each fixture's comment shows how they were counted.
@Suite struct DBCParserErrorTests {
    /// The first problem of `text`: what parsing throws, else the first of what it set
    /// aside; nil when all of it loads.
    static func parseError(_ text: String, source: String = "bad.dbc") -> DBCParseError? {
        do {
            return try DBCDatabase(parsing: text, source: source).errors.first
        } catch {
            return error
        }
    }

    /// Parses `text` and checks the error's position exactly; `expected` must contain
    /// every fragment of `mentions`, `found` must equal `found`.
    static func check(
        _ text: String, line: Int, column: Int, mentions: [String], found: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error = parseError(text) else {
            Issue.record("expected a DBCParseError, but the text loaded", sourceLocation: sourceLocation)
            return
        }
        #expect(error.file == "bad.dbc", sourceLocation: sourceLocation)
        #expect(error.line == line, "line, in \(error)", sourceLocation: sourceLocation)
        #expect(error.column == column, "column, in \(error)", sourceLocation: sourceLocation)
        for fragment in mentions {
            #expect(error.expected.contains(fragment), "expected text lacks \(fragment): \(error)", sourceLocation: sourceLocation)
        }
        #expect(error.found == found, "found text, in \(error)", sourceLocation: sourceLocation)
        // The description starts with the location, like a compiler diagnostic.
        #expect(error.description.hasPrefix("bad.dbc:\(line):\(column): error: "), sourceLocation: sourceLocation)
    }

    // MARK: - Syntax errors in SG_

    @Test func signalWithoutAt() {
        // Line 2: " SG_ S : 0|8 1+ ..." -- col 1 ' ', 2-4 "SG_", 6 'S', 8 ':', 10 '0', 11 '|', 12 '8',
        // 14 '1' (the byte order where '@' belongs).
        Self.check(
            """
            BO_ 100 M: 8 Vector__XXX
             SG_ S : 0|8 1+ (1,0) [0|0] "" Vector__XXX
            """,
            line: 2, column: 14, mentions: ["'@'", "byte order"], found: "'1'")
    }

    @Test func byteOrderTwo() {
        // " SG_ S : 0|8@2+": '@' is col 13, the '2' col 14.
        Self.check(
            """
            BO_ 100 M: 8 Vector__XXX
             SG_ S : 0|8@2+ (1,0) [0|0] "" Vector__XXX
            """,
            line: 2, column: 14, mentions: ["byte order 0 (Motorola) or 1 (Intel)"], found: "'2'")
    }

    @Test func missingSign() {
        // " SG_ S : 0|8@1 (1,0)": '@' col 13, '1' col 14, '(' col 16 where '+'/'-' belongs.
        Self.check(
            """
            BO_ 100 M: 8 Vector__XXX
             SG_ S : 0|8@1 (1,0) [0|0] "" Vector__XXX
            """,
            line: 2, column: 16, mentions: ["'+'", "'-'"], found: "'('")
    }

    @Test func signalLengthZero() {
        // " SG_ S : 0|0@1+": the length '0' is col 12.
        Self.check(
            """
            BO_ 100 M: 8 Vector__XXX
             SG_ S : 0|0@1+ (1,0) [0|0] "" Vector__XXX
            """,
            line: 2, column: 12, mentions: ["length greater than 0", "'S'"], found: "0")
    }

    @Test func unterminatedString() {
        // The string opens at line 3, col 13 ("CM_ BO_ 100 " is 12 bytes) and runs to the end
        // of the file, across line 4: the error names where it opened.
        Self.check(
            """
            BO_ 100 M: 8 Vector__XXX
             SG_ S : 0|8@1+ (1,0) [0|0] "" Vector__XXX
            CM_ BO_ 100 "never closed;
            BO_ 200 N: 8 Vector__XXX
            """,
            line: 3, column: 13, mentions: ["comment in quotes"], found: "an unterminated string")
    }

    @Test func unterminatedUnitString() {
        // " SG_ S : 0|8@1+ (1,0) [0|0] \"degC": '[' col 23, ']' col 27, '"' col 29.
        Self.check(
            """
            BO_ 100 M: 8 Vector__XXX
             SG_ S : 0|8@1+ (1,0) [0|0] "degC Vector__XXX
            """,
            line: 2, column: 29, mentions: ["unit"], found: "an unterminated string")
    }

    // MARK: - BO_

    @Test func messageWithNonNumericID() {
        // "BO_ ABC": the ID is col 5.
        Self.check(
            """
            VERSION ""
            BO_ ABC M: 8 Vector__XXX
            """,
            line: 2, column: 5, mentions: ["frame ID"], found: "'ABC'")
    }

    @Test func messageWithNegativeID() {
        // "-1" lexes as a number, which is not an unsigned frame ID.
        Self.check("BO_ -1 M: 8 Vector__XXX\n", line: 1, column: 5, mentions: ["frame ID", "whole number"], found: "'-1'")
    }

    @Test func signalBeforeAnyMessage() {
        // The SG_ keyword is col 2 of line 2 (after one space).
        Self.check(
            """
            BU_: ECU
             SG_ S : 0|8@1+ (1,0) [0|0] "" Vector__XXX
            """,
            line: 2, column: 2, mentions: ["SG_", "BO_"], found: "")
    }

    @Test func standardIDAbove7FFIsReadAsExtended() throws {
        // 2048 = 0x800 does not fit 11 bits and bit 31 is clear: opendbc's files write
        // extended IDs so. Extended, with a warning at the ID (line 2, col 5).
        let database = try DBCDatabase(parsing: "BU_: ECU\nBO_ 2048 Big: 8 ECU\n", source: "bad.dbc")
        let message = try #require(database.message(named: "Big"))
        #expect(message.isExtended && message.frameID == 0x800)
        #expect(database.errors.isEmpty)
        let warning = try #require(database.warnings.first { $0.message.contains("above 0x7FF without bit 31") })
        #expect((warning.line, warning.column) == (2, 5))
    }

    @Test func extendedIDAbove29Bits() {
        // 2684354560 = 0x80000000 (the extended flag) | 0x20000000: 30 bits.
        Self.check(
            "BO_ 2684354560 Huge: 8 Vector__XXX\n",
            line: 1, column: 5, mentions: ["extended frame ID", "29 bits", "Huge", "0x20000000"], found: "")
    }

    @Test func largestIDsAreAccepted() throws {
        // The edges: 0x7FF standard, 0x1FFFFFFF extended (0x80000000 | 0x1FFFFFFF = 2684354559).
        let database = try DBCDatabase(parsing: "BO_ 2047 A: 8 X\nBO_ 2684354559 B: 8 X\n")
        #expect(database.messages.map(\.frameID) == [0x7FF, 0x1FFF_FFFF])
        #expect(database.messages.map(\.isExtended) == [false, true])
    }

    // MARK: - Semantic errors (found is empty)

    @Test func float32OnSixteenBitSignal() {
        // SIG_VALTYPE_ 1 (float32) needs a 32-bit signal; the error points at the
        // SIG_VALTYPE_ statement (line 4, col 1).
        Self.check(
            """
            BO_ 100 M: 8 Vector__XXX
             SG_ S : 0|16@1+ (1,0) [0|0] "" Vector__XXX

            SIG_VALTYPE_ 100 S : 1;
            """,
            line: 4, column: 1, mentions: ["32 bits", "float32", "S", "16"], found: "")
    }

    @Test func float64OnThirtyTwoBitSignal() {
        Self.check(
            """
            BO_ 100 M: 8 Vector__XXX
             SG_ S : 0|32@1+ (1,0) [0|0] "" Vector__XXX
            SIG_VALTYPE_ 100 S : 2;
            """,
            line: 3, column: 1, mentions: ["64 bits", "float64", "S", "32"], found: "")
    }

    @Test func badMultiplexerIndicator() {
        // Line 3: " SG_ S mX : ..." -- 'S' col 6, "mX" col 8.
        Self.check(
            """
            BO_ 100 M: 8 Vector__XXX
             SG_ Mux M : 0|8@1+ (1,0) [0|0] "" Vector__XXX
             SG_ S mX : 8|8@1+ (1,0) [0|0] "" Vector__XXX
            """,
            line: 3, column: 8, mentions: ["multiplexer indicator", "S", "'mX'"], found: "")
    }

    @Test func intAttributeWithStringValue() {
        // Line 3: `BA_ "GenMsgCycleTime" BO_ 100 "fast";` -- the name's quotes are cols 5 and 21
        // (15 letters between), "BO_" 23, "100" 27, the value's quote col 31.
        Self.check(
            """
            BA_DEF_ BO_ "GenMsgCycleTime" INT 0 65535;
            BO_ 100 M: 8 Vector__XXX
            BA_ "GenMsgCycleTime" BO_ 100 "fast";
            """,
            line: 3, column: 31, mentions: ["whole number", "GenMsgCycleTime", "fast"], found: "")
    }

    @Test func intFrameFormatWithoutDefault() {
        // VFrameFormat as INT maps numbers onto cantools' names, which needs a default;
        // the error points at the definition.
        Self.check(
            """
            BO_ 100 M: 8 Vector__XXX
            BA_DEF_ BO_ "VFrameFormat" INT 0 15;
            """,
            line: 2, column: 1, mentions: ["default", "VFrameFormat"], found: "")
    }

    @Test func intFrameFormatWithDefaultLoads() throws {
        // The same definition with a default is fine: 14 is StandardCAN_FD.
        let database = try DBCDatabase(
            parsing: """
                BO_ 100 M: 64 Vector__XXX
                BA_DEF_ BO_ "VFrameFormat" INT 0 15;
                BA_DEF_DEF_ "VFrameFormat" 14;
                """)
        #expect(database.messages[0].isFD)
    }

    @Test func errorsAfterBOMCountColumnsWithoutIt() {
        // The three BOM bytes are not part of line 1: "BO_ ABC" still has the ID at col 5.
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("BO_ ABC M: 8 X\n".utf8)
        guard let error = (try? DBCDatabase(parsing: bytes, source: "bom.dbc"))?.errors.first else {
            Issue.record("expected an error")
            return
        }
        #expect(error.file == "bom.dbc")
        #expect(error.line == 1)
        #expect(error.column == 5)
        #expect(error.found == "'ABC'")
    }
}

/// What the parser skips, how it reads text, and what each supported statement gives.
@Suite struct DBCParserTests {
    @Test func unknownStatementsAreSkippedWithWarnings() throws {
        // FOO_ ends at its ';'; BAR_ has none and stops at the next keyword (BO_ on line 3); EV_ and
        // BA_DEF_REL_ are known-but-unused and skipped to their ';' even though they
        // contain keywords (BU_SG_REL_, BO_ would otherwise end the skip early).
        let database = try DBCDatabase(
            parsing: """
                FOO_ bar;
                BAR_ baz qux
                BO_ 100 First: 8 Vector__XXX
                 SG_ A : 0|8@1+ (1,0) [0|0] "" Vector__XXX
                EV_ EnvVar: 0 [0|0] "" 0 1 DUMMY_NODE_VECTOR0 Vector__XXX;
                BA_DEF_REL_ BU_SG_REL_ "GenSigTimeoutTime" INT 0 65535 BO_;
                BO_ 200 Second: 8 Vector__XXX
                 SG_ B : 0|8@1+ (1,0) [0|0] "" Vector__XXX
                """, source: "skip.dbc")
        #expect(database.messages.map(\.name) == ["First", "Second"])
        #expect(database.messages.map { $0.signals.map(\.name) } == [["A"], ["B"]])
        let warnings = database.warnings.map { ($0.line, $0.column) }
        #expect(warnings.elementsEqual([(1, 1), (2, 1), (5, 1), (6, 1)], by: ==), "\(database.warnings)")
        #expect(database.warnings.allSatisfy { $0.file == "skip.dbc" })
        #expect(database.warnings[0].message.contains("FOO_"))
        #expect(database.warnings[1].message.contains("BAR_"))
        #expect(database.warnings[2].message.contains("EV_"))
        #expect(database.warnings[3].message.contains("BA_DEF_REL_"))
        #expect(database.warnings[0].description.hasPrefix("skip.dbc:1:1: warning: "))
    }

    @Test func cp1252CommentBytesDecode() throws {
        // 0x80 is the euro sign in cp1252 (not a C1 control as in Latin-1); 0xE4 is 'ä'.
        let bytes = Array("BO_ 100 M: 8 X\nCM_ BO_ 100 \"Preis ".utf8) + [0x80, 0x20, 0x67, 0x72, 0xE4, 0x6E] + Array("\";\n".utf8)
        let database = try DBCDatabase(parsing: bytes)
        #expect(database.messages[0].comment == "Preis € grän")
    }

    /// The five bytes cp1252 leaves undefined read as U+FFFD, as cantools reads them
    /// (found in real cars' choice names).
    @Test func cp1252UndefinedBytesAreReplacementCharacters() throws {
        let bytes =
            Array("BO_ 1 M: 1 A\n SG_ S : 0|8@1+ (1,0) [0|0] \"\" A\nVAL_ 1 S 1 \"x".utf8)
            + [0x81, 0x8D, 0x8F, 0x90, 0x9D] + Array("y\" 2 \"a\u{7F}".utf8) + [0x80] + Array("\" ;\n".utf8)
        let database = try DBCDatabase(parsing: bytes)
        let choices = database.messages[0].signals[0].choices.map(\.name)
        #expect(choices == ["x\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}y", "a\u{7F}€"])
    }

    @Test func utf8BOMIsAccepted() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("VERSION \"2.1\"\nBO_ 100 M: 8 X\n".utf8)
        let database = try DBCDatabase(parsing: bytes)
        #expect(database.version == "2.1")
        #expect(database.messages.map(\.name) == ["M"])
        #expect(database.warnings.isEmpty, "\(database.warnings)")
    }

    @Test func simpleMultiplexing() throws {
        let database = try DBCDatabase(
            parsing: """
                BO_ 100 Mux: 8 Vector__XXX
                 SG_ Sel M : 0|8@1+ (1,0) [0|0] "" Vector__XXX
                 SG_ A m0 : 8|8@1+ (1,0) [0|0] "" Vector__XXX
                 SG_ B m1 : 8|16@1+ (1,0) [0|0] "" Vector__XXX
                 SG_ Always : 24|8@1+ (1,0) [0|0] "" Vector__XXX
                """)
        let message = try #require(database.message(named: "Mux"))
        #expect(message.isMultiplexed)
        let sel = try #require(message.signal(named: "Sel"))
        #expect(sel.isMultiplexer)
        #expect(sel.multiplexerIDs == nil)
        #expect(sel.multiplexerSignal == nil)
        let a = try #require(message.signal(named: "A"))
        #expect(!a.isMultiplexer)
        #expect(a.multiplexerIDs == [0])
        #expect(a.multiplexerSignal == "Sel")
        #expect(message.signal(named: "B")?.multiplexerIDs == [1])
        let always = try #require(message.signal(named: "Always"))
        #expect(always.multiplexerIDs == nil)
        #expect(always.multiplexerSignal == nil)
    }

    @Test func extendedMultiplexing() throws {
        // Two multiplexers (S0 and the cascaded S1, "m0M": selected by S0 = 0 and itself a
        // multiplexer), so SG_MUL_VAL_ says who selects whom. "0-0, 3-5" lexes as the
        // numbers 0, -0, 3, -5, as in cantools.
        let database = try DBCDatabase(
            parsing: """
                BO_ 200 Ext: 8 Vector__XXX
                 SG_ S0 M : 0|4@1+ (1,0) [0|0] "" Vector__XXX
                 SG_ S1 m0M : 4|4@1+ (1,0) [0|0] "" Vector__XXX
                 SG_ S2 m1 : 8|8@1+ (1,0) [0|0] "" Vector__XXX
                 SG_ S3 m0 : 16|8@1+ (1,0) [0|0] "" Vector__XXX

                SG_MUL_VAL_ 200 S1 S0 0-0;
                SG_MUL_VAL_ 200 S2 S1 1-1;
                SG_MUL_VAL_ 200 S3 S0 0-0, 3-5;
                """)
        let message = try #require(database.message(frameID: 200))
        let s0 = try #require(message.signal(named: "S0"))
        #expect(s0.isMultiplexer && s0.multiplexerIDs == nil && s0.multiplexerSignal == nil)
        let s1 = try #require(message.signal(named: "S1"))
        #expect(s1.isMultiplexer)
        #expect(s1.multiplexerIDs == [0])
        #expect(s1.multiplexerSignal == "S0")
        let s2 = try #require(message.signal(named: "S2"))
        #expect(!s2.isMultiplexer)
        #expect(s2.multiplexerIDs == [1])
        #expect(s2.multiplexerSignal == "S1")
        let s3 = try #require(message.signal(named: "S3"))
        #expect(s3.multiplexerIDs == [0, 3, 4, 5])
        #expect(s3.multiplexerSignal == "S0")

        // The tree works end to end: S0 = 0 selects S1 and S3, S1 = 1 selects S2.
        let payload = try message.codec.encode(["S0": 0, "S1": 1, "S2": 0xAB, "S3": 0xCD])
        #expect(payload == [0x10, 0xAB, 0xCD, 0, 0, 0, 0, 0])
        // S0 = 4 selects only S3 (S1 and S2 are absent).
        let decoded = try message.codec.decode([0x04, 0xAB, 0xCD, 0, 0, 0, 0, 0])
        #expect(decoded.map(\.name) == ["S0", "S3"])
    }

    @Test func frameFormatEnumMarksFD() throws {
        let database = try DBCDatabase(
            parsing: """
                BO_ 100 Classic: 8 Vector__XXX
                BO_ 101 Fast: 64 Vector__XXX
                BA_DEF_ BO_ "VFrameFormat" ENUM "StandardCAN","ExtendedCAN","reserved","J1939PG","reserved","reserved","reserved","reserved","reserved","reserved","reserved","reserved","reserved","reserved","StandardCAN_FD","ExtendedCAN_FD";
                BA_DEF_DEF_ "VFrameFormat" "StandardCAN";
                BA_ "VFrameFormat" BO_ 101 14;
                """)
        #expect(database.message(named: "Classic")?.isFD == false)
        #expect(database.message(named: "Fast")?.isFD == true)
    }

    @Test func cycleTimeAndInitialValue() throws {
        let database = try DBCDatabase(
            parsing: """
                BO_ 100 Timed: 8 Vector__XXX
                 SG_ S : 0|8@1+ (1,0) [0|0] "" Vector__XXX
                 SG_ R : 8|8@1+ (0.5,0) [0|0] "" Vector__XXX
                BO_ 101 Zero: 8 Vector__XXX
                BO_ 102 Default: 8 Vector__XXX
                BA_DEF_ BO_ "GenMsgCycleTime" INT 0 65535;
                BA_DEF_ SG_ "GenSigStartValue" FLOAT 0 1000;
                BA_DEF_DEF_ "GenMsgCycleTime" 0;
                BA_DEF_DEF_ "GenSigStartValue" 0;
                BA_ "GenMsgCycleTime" BO_ 100 100;
                BA_ "GenMsgCycleTime" BO_ 101 0;
                BA_ "GenSigStartValue" SG_ 100 S 42;
                BA_ "GenSigStartValue" SG_ 100 R 2.5;
                """)
        #expect(database.message(named: "Timed")?.cycleTime == 100)
        // 0 means "not cyclic": nil, both when set and when it is only the default.
        #expect(database.message(named: "Zero")?.cycleTime == nil)
        #expect(database.message(named: "Default")?.cycleTime == nil)
        let timed = try #require(database.message(named: "Timed"))
        // A FLOAT attribute holds floats, even for "42" (cantools: float(text)).
        #expect(timed.signal(named: "S")?.initialRawValue == .real(42))
        #expect(timed.signal(named: "R")?.initialRawValue == .real(2.5))
    }

    @Test func intInitialValueIsInteger() throws {
        let database = try DBCDatabase(
            parsing: """
                BO_ 100 M: 8 Vector__XXX
                 SG_ S : 0|8@1+ (1,0) [0|0] "" Vector__XXX
                 SG_ T : 8|8@1+ (1,0) [0|0] "" Vector__XXX
                BA_DEF_ SG_ "GenSigStartValue" INT 0 255;
                BA_ "GenSigStartValue" SG_ 100 S 7;
                """)
        #expect(database.messages[0].signal(named: "S")?.initialRawValue == .integer(7))
        #expect(database.messages[0].signal(named: "T")?.initialRawValue == nil)
    }

    @Test func sendersValueTablesSignalGroups() throws {
        let database = try DBCDatabase(
            parsing: """
                BU_: ECU GW ECU2
                VAL_TABLE_ Gears 0 "P" 1 "R" 2 "N" 3 "D" ;
                BO_ 100 M: 8 ECU
                 SG_ A : 0|8@1+ (1,0) [0|0] "" GW
                 SG_ B : 8|8@1+ (1,0) [0|0] "" GW,ECU2
                BO_TX_BU_ 100 : GW,ECU2,ECU;
                SIG_GROUP_ 100 Grp 1 : A B;
                """)
        let message = try #require(database.message(frameID: 100))
        // The BO_ sender first, then BO_TX_BU_'s, without repeating ECU.
        #expect(message.senders == ["ECU", "GW", "ECU2"])
        #expect(message.signal(named: "B")?.receivers == ["GW", "ECU2"])
        #expect(message.signalGroups == [DBCSignalGroup(name: "Grp", repetitions: 1, signalNames: ["A", "B"])])
        #expect(
            database.valueTables["Gears"] == [
                DBCChoice(value: 0, name: "P"), DBCChoice(value: 1, name: "R"), DBCChoice(value: 2, name: "N"), DBCChoice(value: 3, name: "D"),
            ])
        #expect(database.nodes.map(\.name) == ["ECU", "GW", "ECU2"])
    }

    @Test func extendedIDWithBit31() throws {
        // 2147484672 = 0x80000000 + 0x400: an extended frame with ID 0x400 (which as a
        // standard ID would be a different frame).
        let database = try DBCDatabase(
            parsing: """
                BO_ 2147484672 Ext: 8 Vector__XXX
                 SG_ S : 0|8@1+ (1,0) [0|0] "" Vector__XXX
                CM_ BO_ 2147484672 "by the DBC ID";
                """)
        let message = try #require(database.message(frameID: 0x400))
        #expect(message.isExtended)
        #expect(message.frameID == 0x400)
        #expect(message.canID == CANID(0x400, extended: true))
        #expect(message.comment == "by the DBC ID")
    }

    @Test func zeroRangeMeansNoRange() throws {
        // cantools compares the text: only "[0|0]" means "no range"; "[0.0|0]" is a range.
        let database = try DBCDatabase(
            parsing: """
                BO_ 100 M: 8 Vector__XXX
                 SG_ None : 0|8@1+ (1,0) [0|0] "" Vector__XXX
                 SG_ Range : 8|8@1- (1,0) [-5|100] "" Vector__XXX
                 SG_ RealZero : 16|8@1+ (1,0) [0.0|0] "" Vector__XXX
                """)
        let message = database.messages[0]
        #expect(message.signal(named: "None")?.minimum == nil)
        #expect(message.signal(named: "None")?.maximum == nil)
        #expect(message.signal(named: "Range")?.minimum == .integer(-5))
        #expect(message.signal(named: "Range")?.maximum == .integer(100))
        #expect(message.signal(named: "RealZero")?.minimum == .real(0))
        #expect(message.signal(named: "RealZero")?.maximum == .integer(0))
        // With no range, any value that fits the bits encodes.
        #expect(throws: Never.self) { try message.codec.encode(["None": 255, "Range": 100, "RealZero": 0]) }
    }
}
