import Testing

@testable import CarplayDaemon

@Suite struct LoggerTests {
    @Test func stderrOutsideSystemd() {
        #expect(Logger(level: .info, environment: ["HOME": "/root", "PATH": "/usr/bin"]).sink == .standardError)
        #expect(Logger(level: .info, environment: ["JOURNAL_STREAM": ""]).sink == .standardError)
    }

    @Test func journalUnderSystemd() {
        #expect(Logger(level: .info, environment: ["JOURNAL_STREAM": "8:12345"]).sink == .journal)
        #expect(Logger(level: .info, environment: ["INVOCATION_ID": "0123456789abcdef"]).sink == .journal)
    }

    @Test func canIDsFromCandumpLines() {
        let lines = ["(1.000000) vcan0 3A0#0102", "(1.010000) vcan0 3A1#00", "(1.020000) vcan0 3A0#0103", "(1.03) vcan0 18DAF110#01", "garbage"]
        #expect(Logger.canIDs(lines) == ["3A0", "3A1", "18DAF110"])
    }
}
