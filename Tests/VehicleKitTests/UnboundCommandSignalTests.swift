import CANKit
import Testing

@testable import VehicleKit

/// A command frame carries every signal of its message, bound or not: what no binding
/// writes goes out at its default in every frame. A seat's mode bit left unbound went out
/// as 0 beside a fan command, a real seat module may switch off on it, and the simulated
/// car (which knows only the bindings) said success. `profile check` names such signals.
@Suite struct UnboundCommandSignalTests {
    @Test func theSummaryNamesWhatACommandFrameCarriesUnbound() throws {
        var sedan = try ProfileFixture("sedan")
        try sedan.json(
            #""command": {"kind": "setpoint", "message": "SeatCommand", "signal": "HeatFrontRight", "idle": "NoRequest"},"#, "")
        let profile = try sedan.load()
        let unbound = ProfileSummary.unboundCommandSignals(profile)
        let seat = try #require(unbound.first { $0.message == "SeatCommand" })
        #expect(seat.signals.map(\.name) == ["HeatFrontRight"])
        #expect(seat.signals.first?.value == "NoRequest")
        #expect(ProfileSummary(profile).description.contains("SeatCommand: HeatFrontRight = NoRequest"))
        // The shipped sedan names every signal of its command frames.
        #expect(ProfileSummary.unboundCommandSignals(try ProfileFixture("sedan").load()).isEmpty)
    }
}
