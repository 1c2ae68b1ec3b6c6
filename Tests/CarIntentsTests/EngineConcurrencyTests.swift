import CANBus
import Synchronization
import Testing
import VehicleKit
import VehicleSimulator

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
    /// its command (so the intent holds the climate message's claim). Virtual time stands
    /// still until the test moves it: the intent waits for its timeout meanwhile.
    static func startDroppedTemperature(_ rig: Rig, finished: FinishOrder) async throws -> Task<IntentOutcome, Never> {
        let intent = try Intent(parsing: temperature)
        let task = Task {
            let result = await rig.engine.perform(intent)
            finished.append("temperature")
            return result
        }
        let dropped = try await rig.time.run(step: .zero) {
            while rig.vehicle.statistics().commandsDropped == 0 { await Task.yield() }
            return true
        }
        #expect(dropped == true, "the vehicle dropped the temperature command")
        return task
    }

    /// Performs `json` with virtual time standing still.
    static func performNow(_ rig: Rig, _ json: String) async throws -> IntentOutcome {
        let intent = try Intent(parsing: json)
        return try #require(try await rig.time.run(step: .zero) { await rig.engine.perform(intent) })
    }

    @Test func anotherCommandMessageDoesNotWait() async throws {
        let rig = try await Self.rig()
        try await stopping(rig) { rig in
            let finished = FinishOrder()
            let temperature = try await Self.startDroppedTemperature(rig, finished: finished)
            let seat = try await Self.performNow(rig, #"{"intent":"SetSeatSettingsInCar","parameters":{"seat":"driver","level":2}}"#)
            finished.append("seat")
            #expect(seat.response.code == .success, "\(seat.response)")
            // Now the temperature's timeout may pass.
            #expect(await rig.time.until { finished.order.contains("temperature") })
            let dropped = await temperature.value
            #expect(dropped.response.code == .failure)
            #expect(dropped.response.reason == "timeout")
            // The seat intent (SeatCommand) finished while the climate one still waited.
            #expect(finished.order == ["seat", "temperature"])
        }
    }

    @Test func theSameCommandMessageWaitsItsTurn() async throws {
        let rig = try await Self.rig()
        try await stopping(rig) { rig in
            let finished = FinishOrder()
            let temperature = try await Self.startDroppedTemperature(rig, finished: finished)
            let fanIntent = try Intent(parsing: #"{"intent":"SetClimateSettingsInCar","parameters":{"fanSpeedIndex":5}}"#)
            let fanTask = Task {
                let result = await rig.engine.perform(fanIntent)
                finished.append("fan")
                return result
            }
            // Both finish once time moves on: the temperature's timeout first, then the fan.
            #expect(await rig.time.until { finished.order.count == 2 })
            let fan = await fanTask.value
            #expect(fan.response.code == .success, "\(fan.response)")
            #expect(fan.state[.fanSpeed] == .integer(5))
            _ = await temperature.value
            // The fan speed rides on ClimateCommand too: it was sent only after the
            // temperature command had timed out.
            #expect(finished.order == ["temperature", "fan"])
        }
    }
}
