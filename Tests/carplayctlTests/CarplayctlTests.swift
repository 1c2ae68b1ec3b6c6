import CANKit
import Foundation
import TestSupport
import Testing

/// End-to-end tests of the `carplayctl` binary: arguments in, stdout/stderr/exit code out.
///
/// How the binary is found: the test target depends on the `carplayctl` executable
/// target, so SwiftPM builds it before the tests, into the same directory as the test
/// runner (`<scratch>/debug/carplaydPackageTests.xctest`, a plain executable on Linux).
/// So the tests look next to their own executable. `CARPLAYCTL` overrides the path
/// (e.g. to test an installed binary). Running the real process (rather than
/// `@testable import carplayctl` and calling `CarplayCtl.run`) also covers `main.swift`,
/// the exit codes as the shell sees them, and output written straight to fd 1 and 2.
@Suite struct CarplayctlTests {
    static let binary: URL = {
        if let path = ProcessInfo.processInfo.environment["CARPLAYCTL"] { return URL(fileURLWithPath: path) }
        let candidates = [Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])].compactMap { $0 }
        for runner in candidates {
            let url = runner.deletingLastPathComponent().appendingPathComponent("carplayctl")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        // Reported by the tests that need it (see `run`).
        return URL(fileURLWithPath: "/nonexistent/carplayctl")
    }()

    static var repositoryRoot: URL { TestPaths.repositoryRoot }

    static func corpusFile(_ name: String) throws -> String {
        try #require(TestPaths.corpusFile(name), "DBC corpus file missing: \(name) in \(TestPaths.dbcCorpus.path)")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs carplayctl with `arguments` and `stdin`. Output goes to temporary files, so a
    /// chatty stderr can never block the child while we read stdout.
    /// `run` on a thread of its own: a test blocked in waitUntilExit must not hold one of
    /// the cooperative pool's threads (two on a two-core machine) that other suites need.
    static func runOffThePool(_ arguments: [String], stdin: String = "") async throws -> Result {
        try await offThePool { try run(arguments, stdin: stdin) }
    }

    static func runProgramOffThePool(_ path: String, _ arguments: [String], stdin: String = "") async throws -> Result {
        try await offThePool { try runProgram(path, arguments, stdin: stdin) }
    }

    static func run(_ arguments: [String], stdin: String = "") throws -> Result {
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "carplayctl not found next to the test runner; set CARPLAYCTL")
        return try runProgram(binary.path, arguments, stdin: stdin)
    }

    /// Runs any program (e.g. script(1) around carplayctl) the same way.
    static func runProgram(_ path: String, _ arguments: [String], stdin: String = "") throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carplayctlTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        try #require(FileManager.default.createFile(atPath: outURL.path, contents: nil))
        try #require(FileManager.default.createFile(atPath: errURL.path, contents: nil))
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = outHandle
        process.standardError = errHandle
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    // MARK: - dbc encode

    @Test func encodeMotohawk() async throws {
        let dbc = try Self.corpusFile("motohawk.dbc")
        let result = try await Self.runOffThePool(["dbc", "encode", dbc, "ExampleMessage", "Enable=Enabled", "AverageRadius=3.2", "Temperature=250.1"])
        // cantools: db.get_message_by_name("ExampleMessage").encode({"Enable": "Enabled",
        // "AverageRadius": 3.2, "Temperature": 250.1}).hex() == "c001400000000000";
        // frame ID 496 = 0x1F0.
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "1F0#C001400000000000\n")
        #expect(result.stderr == "")

        // The frame ID (decimal or hex) names the message too.
        for id in ["496", "0x1F0"] {
            let byID = try await Self.runOffThePool(["dbc", "encode", dbc, id, "Enable=Enabled", "AverageRadius=3.2", "Temperature=250.1"])
            #expect(byID.status == 0 && byID.stdout == "1F0#C001400000000000\n", "\(id): \(byID)")
        }
    }

    @Test func encodeOutOfRangeExitsOneNamingTheSignal() async throws {
        let dbc = try Self.corpusFile("motohawk.dbc")
        // AverageRadius is [0|5].
        let result = try await Self.runOffThePool(["dbc", "encode", dbc, "ExampleMessage", "Enable=Enabled", "AverageRadius=6", "Temperature=250.1"])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.contains("\"AverageRadius\""), "\(result.stderr)")
        #expect(result.stderr.contains("smaller than or equal to 5"), "\(result.stderr)")
    }

    @Test func encodeUnknownChoiceExitsOne() async throws {
        let dbc = try Self.corpusFile("motohawk.dbc")
        let result = try await Self.runOffThePool(["dbc", "encode", dbc, "ExampleMessage", "Enable=Maybe", "AverageRadius=1", "Temperature=250"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Enable") && result.stderr.contains("Maybe"), "\(result.stderr)")
    }

    @Test(arguments: [
        // Not SIGNAL=VALUE.
        ["ExampleMessage", "Enable"],
        // No such message.
        ["NoSuchMessage", "Enable=1"],
        // A signal given twice.
        ["ExampleMessage", "Enable=1", "Enable=0", "AverageRadius=1", "Temperature=250"],
        // An unknown option.
        ["--bogus", "ExampleMessage"],
    ])
    func encodeWrongArgumentsExitTwo(_ tail: [String]) async throws {
        let dbc = try Self.corpusFile("motohawk.dbc")
        let result = try await Self.runOffThePool(["dbc", "encode", dbc] + tail)
        #expect(result.status == 2, "\(tail): \(result)")
        #expect(result.stdout == "")
        // A usage error says where the verb's help is, and does not print it.
        #expect(result.stderr.hasSuffix("\nsee: carplayctl dbc --help\n"), "\(result.stderr)")
        #expect(!result.stderr.contains("usage:"), "\(result.stderr)")
    }

    /// A file that cannot be read is a data error: exit 1, and no usage text.
    @Test func unreadableDBCFailsWithoutUsage() async throws {
        let result = try await Self.runOffThePool(["dbc", "show", "/nonexistent/file.dbc"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("/nonexistent/file.dbc"))
        #expect(!result.stderr.contains("usage:"), "\(result.stderr)")
        #expect(!result.stderr.contains("--help"), "\(result.stderr)")
    }

    /// A DBC with unreadable statements: the rest is shown, every problem is listed with
    /// file:line:column in one run, and no usage text follows.
    @Test func everyProblemOfADBCInOneRun() async throws {
        let path = NSTemporaryDirectory() + "carplayctl-problems-\(getpid()).dbc"
        let text = """
            BO_ 100 Good: 8 XXX
             SG_ A : 0|8@1+ (1,0) [0|255] "" XXX
            BO_ 200 Broken: 8 XXX
             SG_ B : 0|8@2+ (1,0) [0|255] "" XXX
            BO_ 300 AlsoBroken 8 XXX
            """
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await Self.runOffThePool(["dbc", "show", path])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Good"))
        #expect(result.stderr.contains("\(path):4:14: error:"), "\(result.stderr)")
        #expect(result.stderr.contains("\(path):5:20: error:"), "\(result.stderr)")
        #expect(result.stderr.contains("2 message(s) set aside, the rest loaded: Broken, AlsoBroken"), "\(result.stderr)")
        #expect(!result.stderr.contains("usage:"))
    }

    // MARK: - dbc decode

    /// One frame per kind of line: -L log, human format, an unknown ID, garbage, a short
    /// frame in both formats, and an empty line (ignored).
    static let candump = """
        (1700000000.000000) vcan0 1F0#C001400000000000
          vcan0  1F0   [8]  3E 7F E0 00 00 00 00 00
        (1700000000.100000) vcan0 123#1122
        this is not a frame
        (1700000000.200000) vcan0 1F0#C001

          vcan0  1F0   [2]  C0 01

        """

    @Test func decodeCandump() async throws {
        let dbc = try Self.corpusFile("motohawk.dbc")
        let result = try await Self.runOffThePool(["dbc", "decode", dbc], stdin: Self.candump)
        // Line 1 is the encode test's frame. Line 2: 0x3E = 0b0011_1110: Enable (bit 7) 0,
        // AverageRadius (bits 6..1) 31 -> 3.1; Temperature, 12 bits Motorola from bit 0:
        // 0 then 0x7F then 111 = 0x3FF = 1023 -> 250 + 10.23. cantools decodes both the same.
        // Line 4's error is the candump parser's: "this" reads as an interface, "is" as an ID.
        // Decoding goes on after each error, and the run succeeds.
        let expected = """
            {"id":496,"name":"ExampleMessage","signals":{"Enable":"Enabled","AverageRadius":3.2,"Temperature":250.1}}
            {"id":496,"name":"ExampleMessage","signals":{"Enable":"Disabled","AverageRadius":3.1,"Temperature":260.23}}
            {"id":291,"error":"unknown message"}
            {"line":4,"error":"column 6: expected a hex digit in the CAN ID, found 'i'"}
            {"id":496,"name":"ExampleMessage","error":"Wrong data size: 2 instead of 8 bytes"}
            {"id":496,"name":"ExampleMessage","error":"Wrong data size: 2 instead of 8 bytes"}

            """
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == expected)
        #expect(result.stderr == "")
        // Every line is JSON that a standard parser reads.
        for line in result.stdout.split(separator: "\n") {
            #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: Data(line.utf8)) }
        }
    }

    @Test func decodeRawChoices() async throws {
        let dbc = try Self.corpusFile("motohawk.dbc")
        let lines = """
            (1700000000.000000) vcan0 1F0#C001400000000000
            vcan0 1F0#3E7FE00000000000

            """
        let result = try await Self.runOffThePool(["dbc", "decode", "--raw-choices", dbc], stdin: lines)
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                {"id":496,"name":"ExampleMessage","signals":{"Enable":1,"AverageRadius":3.2,"Temperature":250.1}}
                {"id":496,"name":"ExampleMessage","signals":{"Enable":0,"AverageRadius":3.1,"Temperature":260.23}}

                """)
    }

    /// Standard 0x400 is not extended 0x400: a frame matches a message only with the same kind of ID.
    @Test func decodeMatchesTheKindOfID() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carplayctlTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dbc = directory.appendingPathComponent("ext.dbc")
        try Data(
            """
            BO_ 2147484672 Ext: 1 Vector__XXX
             SG_ S : 0|8@1+ (1,0) [0|255] "" Vector__XXX

            """.utf8
        ).write(to: dbc)
        let result = try await Self.runOffThePool(["dbc", "decode", dbc.path], stdin: "400#22\n00000400#22\n")
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                {"id":1024,"error":"unknown message"}
                {"id":1024,"name":"Ext","signals":{"S":34}}

                """)
    }

    @Test func decodeNeedsOneFile() async throws {
        let result = try await Self.runOffThePool(["dbc", "decode"])
        #expect(result.status == 2)
        #expect(result.stderr == "carplayctl dbc: decode takes one DBC file\nsee: carplayctl dbc --help\n", "\(result.stderr)")
    }

    // MARK: - dbc show

    @Test(arguments: ["motohawk.dbc", "multiplex_2.dbc", "vehicle.dbc", "issue_184_extended_mux_cascaded.dbc"])
    func showListsEveryMessageAndSignal(_ file: String) async throws {
        let path = try Self.corpusFile(file)
        let database = try DBCDatabase(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let result = try await Self.runOffThePool(["dbc", "show", path])
        #expect(result.status == 0, "\(result.stderr)")
        // Message names start header lines, signal names start the (indented) rows: collect
        // the first word of every line.
        let firstWords = Set(result.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
        #expect(!database.messages.isEmpty)
        for message in database.messages {
            #expect(firstWords.contains(message.name), "\(file): message \(message.name) not shown")
            for signal in message.signals {
                #expect(firstWords.contains(signal.name), "\(file): signal \(message.name).\(signal.name) not shown")
            }
        }
    }

    @Test func showMotohawk() async throws {
        // Independent of the parser: the names as written in the file.
        let result = try await Self.runOffThePool(["dbc", "show", try Self.corpusFile("motohawk.dbc")])
        #expect(result.status == 0)
        for name in ["ExampleMessage", "Temperature", "AverageRadius", "Enable"] {
            #expect(result.stdout.contains(name), "\(name) missing in:\n\(result.stdout)")
        }
        #expect(result.stdout.contains("0x1F0"))
        #expect(result.stdout.contains("0=Disabled 1=Enabled"))
    }

    // MARK: - top level

    @Test func help() async throws {
        let result = try await Self.runOffThePool(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("usage: carplayctl"))
        #expect(result.stdout.contains("dbc"))
        #expect(result.stderr == "")
    }

    @Test func unknownVerb() async throws {
        let result = try await Self.runOffThePool(["nosuchverb"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == "carplayctl: unknown verb 'nosuchverb'\nsee: carplayctl --help\n", "\(result.stderr)")
    }

    /// A usage error is two lines: what is wrong, and where the help is. The verb's whole
    /// help page scrolled the one useful line away.
    @Test(arguments: [
        (["climate", "--foo"], "carplayctl climate: unknown option --foo", "see: carplayctl climate --help"),
        (["climate", "--zone", "moon"], "carplayctl climate: --zone: 'moon' is not one of driver, passenger,", "see: carplayctl climate --help"),
        (["unlock", "--status"], "carplayctl unlock: unknown option --status", "see: carplayctl unlock --help"),
        (["profile", "check"], "carplayctl profile: check takes one profile directory", "see: carplayctl profile --help"),
    ])
    func usageErrorIsTheErrorAndWhereTheHelpIs(_ arguments: [String], _ error: String, _ help: String) async throws {
        let result = try await Self.runOffThePool(arguments)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[0].hasPrefix(error) && lines[1] == help && lines[2].isEmpty, "\(result.stderr)")
    }

    @Test func noArguments() async throws {
        let result = try await Self.runOffThePool([])
        #expect(result.status == 2)
        #expect(result.stderr.contains("usage: carplayctl"))
    }
}
