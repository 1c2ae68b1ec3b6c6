/// Plays a scenario on a running simulated vehicle: sleeps until the schedule's next
/// occurrence, then applies what is due through the node's own mechanisms -- `override`
/// (the vehicle's own change, status frames at once), `setFaults`, `setDriveState`.
public final class ScenarioRunner: Sendable {
    public let scenario: Scenario
    private let node: SimulatedVehicleNode
    private let clock: ContinuousClock
    private let log: @Sendable (String) -> Void

    /// `log` gets one line per applied occurrence (and why one could not be applied).
    public init(scenario: Scenario, node: SimulatedVehicleNode, clock: ContinuousClock = .init(), log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.scenario = scenario
        self.node = node
        self.clock = clock
        self.log = log
    }

    /// Returns when the scenario is over or the task is cancelled.
    public func run() async {
        var schedule = ScenarioSchedule(scenario)
        let origin = clock.now
        // Fault windows are in the simulation's time; the scenario starts now in it.
        let simulationOrigin = node.elapsedTime()
        while let next = schedule.nextTime {
            do { try await clock.sleep(until: origin.advanced(by: next), tolerance: .milliseconds(1)) } catch { return }
            if Task.isCancelled { return }
            for occurrence in schedule.due(through: clock.now - origin) {
                apply(occurrence, simulationTime: simulationOrigin + occurrence.time)
            }
        }
        log("scenario finished")
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
