import Testing

@testable import CANKit

/// The DBC files people have (opendbc's among them) bend the grammar: each bend is read
/// with a warning at file:line:column, a statement that cannot be read is set aside with
/// an error there, and the rest of the file loads. Every problem comes in one run.
@Suite struct DBCToleranceTests {
    static func warning(_ database: DBCDatabase, containing text: String) -> DBCDiagnostic? {
        database.warnings.first { $0.message.contains(text) }
    }

    @Test func namesThatStartWithADigit() throws {
        // psa_aee2010_r3: `SG_ 0_COUNTER`; mazda_2017: `BO_ 1275 2017_5`.
        let database = try DBCDatabase(
            parsing: """
                BO_ 1275 2017_5: 8 XXX
                 SG_ 0_COUNTER : 7|4@0+ (1,0) [0|15] "" XXX
                 SG_ 64_BIT_LE : 8|8@1+ (1,0) [0|255] "" XXX
                """, source: "odd.dbc")
        let message = try #require(database.message(named: "2017_5"))
        #expect(message.signals.map(\.name).sorted() == ["0_COUNTER", "64_BIT_LE"])
        #expect(database.errors.isEmpty)
        let warning = try #require(Self.warning(database, containing: "'2017_5' starts with a digit"))
        #expect((warning.file, warning.line, warning.column) == ("odd.dbc", 1, 10))
        #expect(Self.warning(database, containing: "'0_COUNTER'")?.line == 2)
    }

    @Test func commentForms() throws {
        // hyundai_kia_generic: `CM_ 145 "..."`; _honda_common: `CM_ SG_ 304 "..."`; a last
        // comment and value table without ';'.
        let database = try DBCDatabase(
            parsing: """
                BO_ 145 M: 8 XXX
                 SG_ S : 0|8@1+ (1,0) [0|255] "" XXX
                CM_ 145 "the message";
                CM_ SG_ 145 "no signal named";
                VAL_ 145 S 1 "one" 0 "zero"
                CM_ SG_ 145 S "last, no semicolon"
                """, source: "comments.dbc")
        let message = try #require(database.message(named: "M"))
        #expect(message.comment == "the message")
        #expect(message.signal(named: "S")?.comment == "last, no semicolon")
        #expect(message.signal(named: "S")?.choices.map(\.name) == ["one", "zero"])
        #expect(database.errors.isEmpty, "\(database.errors)")
        #expect(Self.warning(database, containing: "without BO_")?.line == 3)
        #expect(Self.warning(database, containing: "names no signal")?.line == 4)
        #expect(Self.warning(database, containing: "missing ';' after the value descriptions")?.line == 6)
        #expect(Self.warning(database, containing: "missing ';' after the comment")?.column != nil)
    }

    /// tesla_can: `VAL_ 568 UI_mapSpeedLimit ...` where the signal is in frame 968, not
    /// 568. The warning said "names no signal of any message", which was untrue.
    @Test func aValueTableOnTheWrongFrameSaysWhichMessageLacksTheSignal() throws {
        let database = try DBCDatabase(
            parsing: """
                BO_ 568 A: 8 XXX
                 SG_ S : 0|8@1+ (1,0) [0|255] "" XXX
                BO_ 968 B: 8 XXX
                 SG_ Limit : 0|8@1+ (1,0) [0|255] "" XXX
                VAL_ 568 Limit 1 "one" ;
                VAL_ 700 Limit 1 "one" ;
                """, source: "tables.dbc")
        #expect(database.errors.isEmpty, "\(database.errors)")
        let wrongFrame = try #require(Self.warning(database, containing: "VAL_ for 'Limit' in frame 568"))
        #expect(wrongFrame.message.contains("message A has no signal 'Limit'"), "\(wrongFrame.message)")
        #expect(wrongFrame.line == 5)
        let noFrame = try #require(Self.warning(database, containing: "names frame 700"))
        #expect(noFrame.message.contains("which no message has"), "\(noFrame.message)")
    }

    @Test func aFactorWithoutALeadingDigit() throws {
        // _stellantis_common: `(.25,0)`.
        let database = try DBCDatabase(
            parsing: """
                BO_ 100 M: 8 XXX
                 SG_ S : 0|8@1+ (.25,-.5) [0|63.75] "" XXX
                """, source: "factor.dbc")
        let signal = try #require(database.message(named: "M")?.signal(named: "S"))
        #expect(signal.scale.doubleValue == 0.25 && signal.offset.doubleValue == -0.5)
        #expect(database.warnings.filter { $0.message.contains("no digit before its point") }.count == 2)
    }

    /// One unreadable message is set aside; the others load; all problems are reported.
    @Test func anUnreadableMessageIsSetAsideAndEveryProblemReported() throws {
        let database = try DBCDatabase(
            parsing: """
                BO_ 100 Good: 8 XXX
                 SG_ A : 0|8@1+ (1,0) [0|255] "" XXX
                BO_ 200 Broken: 8 XXX
                 SG_ B : 0|8@2+ (1,0) [0|255] "" XXX
                 SG_ C : 8|8 1+ (1,0) [0|255] "" XXX
                BO_ 300 BadHeader 8 XXX
                 SG_ D : 0|8@1+ (1,0) [0|255] "" XXX
                BA_DEF_ BO_ "GenMsgCycleTime" INT 0 65535;
                BA_ "GenMsgCycleTime" BO_ 100 oops;
                BO_ 400 AlsoGood: 8 XXX
                 SG_ E : 0|8@1+ (1,0) [0|255] "" XXX
                """, source: "mixed.dbc")
        #expect(database.messages.map(\.name) == ["Good", "AlsoGood"])
        #expect(database.unreadableMessages.map(\.name) == ["Broken", "BadHeader"])
        #expect(database.unreadableMessage(named: "Broken")?.errors.count == 2, "both bad signals")
        #expect(database.errors.map(\.line) == [4, 5, 6, 9], "\(database.errors)")
        #expect(database.errors.allSatisfy { $0.description.hasPrefix("mixed.dbc:") })
    }

    @Test func importsAreFollowedRelativeToTheFile() throws {
        let files: [String: String] = [
            "/cars/vw_meb.dbc": """
            CM_ "IMPORT _common.dbc";
            BO_ 300 Own: 8 XXX
             SG_ O : 0|8@1+ (1,0) [0|255] "" XXX
            """,
            "/cars/_common.dbc": """
            BO_ 100 Shared: 8 XXX
             SG_ S : 0|8@1+ (1,0) [0|255] "" XXX
            CM_ SG_ 100 S "from the common file";
            """,
        ]
        let database = try DBCDatabase.load(path: "/cars/vw_meb.dbc") { files[$0].map { Array($0.utf8) } }
        #expect(database.messages.map(\.name).sorted() == ["Own", "Shared"])
        #expect(database.message(named: "Shared")?.signal(named: "S")?.comment == "from the common file")
        #expect(database.errors.isEmpty)
        #expect(database.comment == nil, "the IMPORT comment is not the bus comment")
    }

    @Test func anImportCycleOrAMissingFileIsAnErrorAtTheImport() throws {
        let files: [String: String] = [
            "/d/a.dbc": "CM_ \"IMPORT b.dbc\";\nCM_ \"IMPORT missing.dbc\";\nBO_ 1 A: 8 XXX\n",
            "/d/b.dbc": "CM_ \"IMPORT a.dbc\";\nBO_ 2 B: 8 XXX\n",
        ]
        let database = try DBCDatabase.load(path: "/d/a.dbc") { files[$0].map { Array($0.utf8) } }
        #expect(database.messages.map(\.name).sorted() == ["A", "B"])
        let errors = database.errors.map(\.description)
        #expect(errors.contains { $0.hasPrefix("/d/b.dbc:1:5:") && $0.contains("/d/a.dbc -> /d/b.dbc -> /d/a.dbc") }, "\(errors)")
        #expect(errors.contains { $0.hasPrefix("/d/a.dbc:2:5:") && $0.contains("/d/missing.dbc") }, "\(errors)")
    }

    @Test func textIsUTF8WhereItIsValidElseCP1252() throws {
        var bytes = Array("BO_ 1 M: 8 XXX\n SG_ S : 0|8@1+ (1,0) [0|255] \"".utf8)
        bytes += Array("°C".utf8)  // UTF-8: C2 B0
        bytes += Array("\" XXX\nVAL_ 1 S 0 \"".utf8)
        bytes += [0x47, 0x72, 0x61, 0x64, 0x20, 0xB0, 0x43]  // cp1252 "Grad °C"
        bytes += Array("\";\n".utf8)
        let database = try DBCDatabase(parsing: bytes, source: "latin.dbc")
        let signal = try #require(database.message(named: "M")?.signal(named: "S"))
        #expect(signal.unit == "°C")
        #expect(signal.choices.first?.name == "Grad °C")
    }
}
