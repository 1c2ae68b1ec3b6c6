import Foundation
import TestSupport
import Testing

@testable import CANKit

@Suite struct DBCCorpusTests {
    /// Every real-world file of the corpus loads, except the two that cantools refuses,
    /// which give a clear error (file, line, what is wrong).
    @Test func corpusLoads() async throws {
        let files = try TestPaths.corpusFiles()
        #expect(files.count >= 80, "DBC corpus missing at \(TestPaths.dbcCorpus.path)")
        var loaded = 0
        var messages = 0
        var signals = 0
        var turn = CooperativePool.Turn()
        for file in files {
            await turn.yieldIfDue()
            let name = file.lastPathComponent
            let bytes = try TestPaths.bytes(file)
            do throws(DBCParseError) {
                let database = try DBCDatabase(parsing: bytes, source: name)
                loaded += 1
                messages += database.messages.count
                signals += database.messages.reduce(0) { $0 + $1.signals.count }
                #expect(!name.hasPrefix("issue_199"), "\(name) should be refused like cantools does")
            } catch {
                #expect(name.hasPrefix("issue_199"), "\(name): \(error)")
                #expect(error.file == name)
                #expect(error.line > 1)
                #expect(error.description.contains("DriverDoorStatus"))
            }
        }
        #expect(loaded == files.count - 2)
        print("corpus: \(loaded) of \(files.count) files, \(messages) messages, \(signals) signals")
    }
}
