import CANBus
import Synchronization
import Testing
import VehicleKit
@testable import CarIntents

/// Which handles wait for which: one at a time per command message (conflicting intents
/// apply in order), concurrently across command messages. The vehicle drops the
/// temperature command, so that intent holds its claim for its whole confirmation
/// timeout; what the others do meanwhile shows whether they waited for it.
/// The order in which intents finished.
final class FinishOrder: Sendable {
    private let names = Mutex<[String]>([])
    func append(_ name: String) { names.withLock { $0.append(name) } }
    var order: [String] { names.withLock { $0 } }
}

@Suite struct EngineConcurrencyTests {
    static let temperature = #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":23,"unit":"celsius"},"climateZone":"driver"}}"#

    /// A rig whose vehicle drops every temperature command, after one acknowledged
    /// command (so the controller does not retry the dropped one as a resynchronisation).
    static func rig() async throws -> Rig {
        let rig = try await Rig.start("sedan", faults: FaultPlan([.drop(property: "climate.temperature.")]), confirmationTimeout: .seconds(3))
        let first = try await rig.perform(#"{"intent":"SetSeatSettingsInCar","parameters":{"seat":"driver","level":1}}"#)
        #expect(first.response.code == .success, "\(first.response)")
        return rig
    }

    /// Starts the dropped temperature intent and returns once the vehicle has dropped
    /// its command (so the intent holds the climate message's claim).
    static func startDroppedTemperature(_ rig: Rig, finished: FinishOrder) async throws -> Task<IntentOutcome, any Error> {
        let task = Task {
            let result = try await rig.perform(temperature)
            finished.append("temperature")
            return result
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while rig.vehicle.statistics().commandsDropped == 0 {
            #expect(clock.now < deadline, "the vehicle never dropped the temperature command")
            if clock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        return task
    }

    @Test func anotherCommandMessageDoesNotWait() async throws {
        let rig = try await Self.rig()
        defer { Task { await rig.stop() } }
        let finished = FinishOrder()
        let temperature = try await Self.startDroppedTemperature(rig, finished: finished)
        let seat = try await rig.perform(#"{"intent":"SetSeatSettingsInCar","parameters":{"seat":"driver","level":2}}"#)
        finished.append("seat")
        #expect(seat.response.code == .success, "\(seat.response)")
        let dropped = try await temperature.value
        #expect(dropped.response.code == .failure)
        #expect(dropped.response.reason == "timeout")
        // The seat intent (SeatCommand) finished while the climate one still waited.
        #expect(finished.order == ["seat", "temperature"])
    }

    @Test func theSameCommandMessageWaitsItsTurn() async throws {
        let rig = try await Self.rig()
        defer { Task { await rig.stop() } }
        let finished = FinishOrder()
        let temperature = try await Self.startDroppedTemperature(rig, finished: finished)
        let fan = try await rig.perform(#"{"intent":"SetClimateSettingsInCar","parameters":{"fanSpeedIndex":5}}"#)
        finished.append("fan")
        #expect(fan.response.code == .success, "\(fan.response)")
        #expect(fan.state[.fanSpeed] == .integer(5))
        _ = try await temperature.value
        // The fan speed rides on ClimateCommand too: it was sent only after the
        // temperature command had timed out.
        #expect(finished.order == ["temperature", "fan"])
    }
}
