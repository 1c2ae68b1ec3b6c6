import CarplayClient
import CarplayJSON
import CarplayProtocol
import Foundation
import TestSupport
import Testing

@testable import carplayctl

/// `carplayctl status`: the live state in sections.
@Suite struct StatusReportTests {
    /// Issue 25, item 7: extensions have a section of their own, after power and before
    /// whatever else the car reports.
    @Test func extensionsHaveASectionOfTheirOwn() throws {
        let state = SedanReplies.getState.replacingOccurrences(
            of: #""audio.source":"radio","#, with: #""audio.source":"radio","extension.outsideTemperature":12.5,"extension.autoDefog":false,"#)
        let vehicle = try DescribeReply(["vehicle": .object(SedanReplies.object(SedanReplies.describe))]).vehicle
        let text = StatusReport.render(try GetStateReply(SedanReplies.object(state)), vehicle: vehicle)
        let lines = text.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex(of: "extensions"), Comment(rawValue: text))
        #expect(Array(lines[(start + 1)...].prefix(2)) == ["  auto defog    off", "  outside       12.5 °C"], Comment(rawValue: text))
        #expect(!text.contains("extension."), "the prefix is the section's title")
    }

    /// Issue 25, item 6: why a bound property has no value is in GetState and shown.
    @Test func unreadablePropertiesAreListedWithWhy() throws {
        var object = try SedanReplies.object(SedanReplies.getState)
        object["unreadable"] = .object(["power.fuelPercent": .string("FlLvlPctV = 1 says the value is not valid (valid: 0)")])
        let reply = try GetStateReply(object)
        #expect(reply.unreadable == ["power.fuelPercent": "FlLvlPctV = 1 says the value is not valid (valid: 0)"])
        let vehicle = try DescribeReply(["vehicle": .object(SedanReplies.object(SedanReplies.describe))]).vehicle
        let lines = StatusReport.render(reply, vehicle: vehicle).split(separator: "\n").map(String.init)
        #expect(lines.suffix(2) == ["unreadable", "  power.fuelPercent: FlLvlPctV = 1 says the value is not valid (valid: 0)"])
        #expect(try GetStateReply(SedanReplies.object(SedanReplies.getState)).unreadable.isEmpty, "absent: every property read")
    }
}
