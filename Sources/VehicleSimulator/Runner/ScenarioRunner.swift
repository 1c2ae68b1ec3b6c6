import CANBus
import VehicleKit

/// Plays a scenario on a running simulated vehicle: sleeps until the schedule's next
/// occurrence, then applies what is due through the node's own mechanisms -- `override`
/// (the vehicle's own change, status frames at once), `setFaults`, `setDriveState`.
/// It sleeps on the node's clock, the simulation's time (a test's manual clock moves both).
public final class ScenarioRunner: Sendable {
    public let scenario: Scenario
    private let node: SimulatedVehicleNode
    private let clock: any MonotonicClock
    private let log: @Sendable (String) -> Void

    /// `log` gets one line per applied occurrence (and why one could not be applied).
    public init(scenario: Scenario, node: SimulatedVehicleNode, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.scenario = scenario
        self.node = node
        self.clock = node.clock
        self.log = log
    }

    /// `run()` in a task of its own on the node's clock's thread (see `SimulatedVehicleNode.start`).
    public func start() -> Task<Void, Never> {
        Task(executorPreference: clock.executor) { await self.run() }
    }

    /// Returns when the scenario is over or the task is cancelled. With `afterCommand`
    /// events it is over at its `duration` (without `loop`), else only when cancelled.
    public func run() async {
        let origin = clock.now
        // Fault windows are in the simulation's time; the scenario starts now in it.
        let simulationOrigin = node.elapsedTime()
        let reactive = scenario.events.indices.filter { if case .afterCommand = scenario.events[$0].timing { true } else { false } }
        guard !reactive.isEmpty else {
            await playTimed(origin: origin, simulationOrigin: simulationOrigin)
            log("scenario finished")
            return
        }
        // Subscribed before anything is due, so no command is missed.
        let commands = node.appliedCommands()
        let reacting = Task(executorPreference: clock.executor) {
            await self.react(to: commands, events: reactive, origin: origin, simulationOrigin: simulationOrigin)
        }
        await withTaskCancellationHandler {
            await playTimed(origin: origin, simulationOrigin: simulationOrigin)
            // Reacting lasts the scenario's duration, or until the scenario is stopped.
            if !scenario.loop, let duration = scenario.duration {
                try? await clock.sleep(until: origin.advanced(by: duration))
            } else {
                while !Task.isCancelled { try? await clock.sleep(for: .seconds(3600)) }
            }
        } onCancel: {
            reacting.cancel()
        }
        reacting.cancel()
        await reacting.value
        log("scenario finished")
    }

    /// The events on the clock, in the schedule's order.
    private func playTimed(origin: ContinuousClock.Instant, simulationOrigin: Duration) async {
        var schedule = ScenarioSchedule(scenario)
        while let next = schedule.nextTime {
            do { try await clock.sleep(until: origin.advanced(by: next)) } catch { return }
            if Task.isCancelled { return }
            for occurrence in schedule.due(through: clock.now - origin) {
                apply(occurrence, simulationTime: simulationOrigin + occurrence.time)
            }
        }
    }

    /// The `afterCommand` events: each command the vehicle applies starts, for every event
    /// waiting for its message (in file order), the event's delay; then it is applied.
    private func react(to commands: AsyncStream<String>, events: [Int], origin: ContinuousClock.Instant, simulationOrigin: Duration) async {
        var counts = [Int](repeating: 0, count: scenario.events.count)
        await withTaskGroup(of: Void.self) { pending in
            for await message in commands {
                let heard = clock.now
                for index in events {
                    guard case let .afterCommand(wanted, delay) = scenario.events[index].timing, wanted == message else { continue }
                    // The reaction's jitter, like a timed event's, from the seed and its number.
                    let late = delay + ScenarioSchedule.jitter(scenario, event: index, pass: 0, number: counts[index])
                    let occurrence = ScenarioSchedule.Occurrence(time: heard + late - origin, event: index, pass: 0, number: counts[index])
                    counts[index] += 1
                    pending.addTask {
                        do { try await self.clock.sleep(until: heard.advanced(by: late)) } catch { return }
                        self.apply(occurrence, simulationTime: simulationOrigin + occurrence.time)
                    }
                }
            }
            pending.cancelAll()
        }
    }

    /// Applies one occurrence now; `simulationTime` is when it was due, in the simulation's time.
    public func apply(_ occurrence: ScenarioSchedule.Occurrence, simulationTime: Duration) {
        let event = scenario.events[occurrence.event]
        let label = "\(event.path) at \(ScenarioEvent.text(occurrence.time)) s"
        switch event.action {
        case let .set(values):
            node.override(values)
            log("\(label): set \(Self.describe(values))")
        case let .add(deltas):
            let values = Self.adding(deltas, to: node.state())
            node.override(values)
            log("\(label): add -> \(Self.describe(values))")
        case let .fault(rule, lasting):
            var rule = rule
            rule.from = simulationTime
            rule.until = lasting.map { simulationTime + $0 }
            var plan = node.faults()
            // Rules whose window closed do nothing any more; do not let them pile up.
            plan.rules.removeAll { $0.until.map { $0 <= simulationTime } ?? false }
            plan.rules.append(rule)
            node.setFaults(plan)
            log("\(label): fault \(rule)")
        case .clearFaults:
            node.setFaults(.none)
            log("\(label): faults cleared")
        case let .plugIn(connector):
            var drive = node.driveState()
            drive.connector = connector
            if connector != nil { drive.speedKmh = 0 }  // a plugged-in car does not drive
            setDrive(drive, label, connector.map { "plugged in at \($0.rawValue)" } ?? "unplugged")
        case let .drive(speed):
            var drive = node.driveState()
            if speed > 0 { drive.connector = nil }  // driving off unplugs
            drive.speedKmh = speed
            setDrive(drive, label, speed > 0 ? "driving at \(speed) km/h" : "stopped")
        }
    }

    private func setDrive(_ drive: DriveState, _ label: String, _ what: String) {
        do {
            try node.setDriveState(drive)
            log("\(label): \(what)")
        } catch {
            log("\(label): not applied: \(error)")
        }
    }

    /// The state's values moved by `deltas`: integers stay integers; percentages stay in
    /// 0…100 and the other `power.` quantities (ranges, capacities, minutes) at or above 0,
    /// as a real gauge does. A key the state lacks is left out.
    public static func adding(_ deltas: [PropertyKey: Double], to state: VehicleState) -> [PropertyKey: PropertyValue] {
        var values: [PropertyKey: PropertyValue] = [:]
        for (key, delta) in deltas {
            let name = key.rawValue
            let lower: Double? = name.hasPrefix("power.") ? 0 : nil
            let upper: Double? = name.hasSuffix("Percent") ? 100 : nil
            func clamp(_ value: Double) -> Double { min(upper ?? .infinity, max(lower ?? -.infinity, value)) }
            switch state[key] {
            case let .integer(value)?: values[key] = .integer(Int(clamp(Double(value) + delta)))
            case let .number(value)?: values[key] = .number(clamp(value + delta))
            default: continue
            }
        }
        return values
    }

    static func describe(_ values: [PropertyKey: PropertyValue]) -> String {
        values.keys.sorted { $0.rawValue < $1.rawValue }.map { "\($0.rawValue)=\(values[$0]!)" }.joined(separator: " ")
    }
}
