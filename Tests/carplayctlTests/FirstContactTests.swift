import CarplayJSON
import Foundation
import TestSupport
import Testing
import Varlink

/// What a newcomer hit trying the README's own commands (issue 36, item 9): each
/// message, sentence and help text as they read it.
@Suite(.serialized) struct FirstContactTests {
    static let sedan = TestPaths.repository("VehicleProfiles/sedan").path
}

// MARK: - A malformed intent says so once

extension FirstContactTests {
    /// `intent: malformed JSON: malformed JSON: unexpected end ...`: the prefix was doubled.
    @Test func aMalformedIntentSaysMalformedJSONOnce() async throws {
        let result = try await CarplayctlTests.runOffThePool(["perform", "--simulate", Self.sedan, #"{"intent":"#])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("carplayctl perform: intent: malformed JSON: unexpected end at line 1, column 11\n"), "\(result.stderr)")
    }
}

// MARK: - call: malformed parameters say where

extension FirstContactTests {
    /// Truncated JSON said `parameters must be a JSON object`, with no position: it is
    /// malformed JSON, and the parser knows where.
    @Test func callWithTruncatedParametersSaysWhereTheJSONBreaks() async throws {
        let daemon = try FakeDaemon()
        let truncated = try await ctl(["call", "Perform", #"{"intent":"GetCarLockStatus""#], daemon)
        #expect(truncated.status == 2)
        #expect(
            truncated.stderr.hasPrefix("carplayctl call: parameters: malformed JSON: unexpected end at line 1, column 29\n"), "\(truncated.stderr)")
        let bad = try await ctl(["call", "Perform", "{\"intent\":\n \"GetCarLockStatus\" \"parameters\":{}}"], daemon)
        #expect(bad.stderr.hasPrefix("carplayctl call: parameters: malformed JSON: expected ',' or '}' at line 2, column 21\n"), "\(bad.stderr)")
        // JSON that is not an object still says what is wanted.
        let array = try await ctl(["call", "GetState", "[1]"], daemon)
        #expect(array.status == 2)
        #expect(array.stderr.hasPrefix("carplayctl call: parameters must be a JSON object"), "\(array.stderr)")
        #expect(daemon.calls.isEmpty, "nothing is sent")
    }
}
