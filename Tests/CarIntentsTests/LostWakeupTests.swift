import CANBus
import CANKit
import TestSupport
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents

/// A command whose confirmation never comes must end in a timeout even when its task
/// stalls, after sending, for longer than the timeout: the stall is simulated on a
/// manual clock, so the timer fires while the command has not started waiting yet.
@Suite struct LostWakeupTests {
    @Test func aStallBeforeTheWaitStillTimesOut() async throws {
        let profile = try ShippedProfiles.load("sedan")
        let clock = ManualClock()
        let bus = VirtualCANBus()
        let timeout = Duration.seconds(2)
        let controller = VehicleController(
            profile: profile, port: bus.makePort(), clock: clock,
            stallBeforeWaiting: {
                // The scheduler does not run this task for longer than the timeout: the
                // clock moves past the deadline and the timer does its work meanwhile.
                clock.advance(by: timeout * 3)
                await LostWakeupTests.untilTimerIdle(clock)
            })
        controller.start()
        // The vehicle drops every command: only a timeout can end the wait.
        let simulation = VehicleSimulation(profile: profile, state: VehicleSimulation.defaultState(for: profile), faults: FaultPlan([FaultRule(.drop)]))
        let vehicle = SimulatedVehicleNode(simulation: simulation, port: bus.makePort())
        let vehicleTask = vehicle.start()
        #expect(await controller.waitUntilReachable(timeout: .seconds(3600)))

        let done = Locked<CommandOutcome?>(nil)
        let command = Task {
            // One try (`apply` tries a setpoint again on a car that never acknowledged, by
            // when virtual time has left the vehicle's real-time status frames far behind).
            let outcome = await controller.applyOnce(
                [.temperature(zone: "left"): .number(25)], timeout: timeout, origin: HeadUnit.CommandOrigin(id: nil, intent: nil))
            done.withLock { $0 = outcome }
        }
        // Virtual time moves on until the command ends; real time is only a bound.
        for _ in 0..<2000 where done.withLock({ $0 }) == nil {
            clock.advance(by: .milliseconds(100))
            try await Task.sleep(for: .milliseconds(1))
        }
        let outcome = done.withLock { $0 }
        #expect(outcome != nil, "the command never woke up: its timeout was lost")
        if let outcome {
            guard case .timeout? = outcome.failure else {
                Issue.record("a timeout expected, got \(String(describing: outcome.failure))")
                return
            }
        }
        controller.stop()  // wakes a command that is still waiting (the bug), so the test ends
        await command.value
        vehicleTask.cancel()
    }

    /// The rest of the stall: once no timer sleeps on the clock any more (`advance` woke
    /// those it reached), a little real time for a woken one to do its work.
    static func untilTimerIdle(_ clock: ManualClock) async {
        for _ in 0..<1000 where clock.sleeperCount > 0 { try? await Task.sleep(for: .milliseconds(1)) }
        try? await Task.sleep(for: .milliseconds(20))
    }
}
