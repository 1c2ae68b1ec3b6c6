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
