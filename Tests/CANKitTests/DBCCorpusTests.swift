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
                if name.hasPrefix("issue_199") {
                    // cantools refuses both: IDs above 0x7FF without bit 31, read as extended here.
                    #expect(database.warnings.contains { $0.message.contains("above 0x7FF without bit 31") }, "\(name)")
                }
                if name == "issue_199_extended.dbc" {
                    // DriverDoorStatus's ID 0xFFFFFFFF fits no frame: that message alone is set aside.
                    #expect(database.unreadableMessages.map(\.name) == ["DriverDoorStatus"])
                    #expect(database.errors.first?.line ?? 0 > 1)
                } else {
                    #expect(database.errors.isEmpty, "\(name): \(database.errors)")
                }
            } catch {
                Issue.record("\(name): \(error)")
            }
        }
        #expect(loaded == files.count)
        print("corpus: \(loaded) of \(files.count) files, \(messages) messages, \(signals) signals")
    }
}
