import VehicleKit

/// When a scenario's events are due: a pure, deterministic cursor over time since the
/// scenario started. Each event yields its occurrences in order (pass by pass when the
/// scenario loops); the schedule hands out the earliest first, ties by the event's place
/// in the file. The jitter of an occurrence depends only on the seed, the event, the pass
/// and the occurrence's number, so however the time is cut into `due(through:)` calls the
/// same file and seed give the same sequence. `afterCommand` events have no place on the
/// clock: `ScenarioRunner` plays them when the command comes.
public struct ScenarioSchedule: Sendable {
    public struct Occurrence: Sendable, Hashable {
        /// Since the scenario started, jitter included.
        public var time: Duration
        /// The event's index in `scenario.events`.
        public var event: Int
        /// The loop pass (0 without `loop`).
        public var pass: Int
        /// The occurrence's number within its pass (0 for `at`).
        public var number: Int
    }

    public let scenario: Scenario
    /// Each event's next occurrence; nil when it has no more.
    private var upcoming: [Occurrence?]

    public init(_ scenario: Scenario) {
        self.scenario = scenario
        upcoming = scenario.events.indices.map { Self.occurrence(scenario, event: $0, pass: 0, number: 0) }
    }

    /// When the next occurrence is due; nil when the scenario is over.
    public var nextTime: Duration? { next?.time }

    /// The occurrences due at or before `time`, in order; they are consumed.
    public mutating func due(through time: Duration) -> [Occurrence] {
        var result: [Occurrence] = []
        while let first = next, first.time <= time {
            result.append(first)
            upcoming[first.event] = Self.following(scenario, first)
        }
        return result
    }

    /// The occurrences in `[start, end)`, from a fresh schedule (for tests and tools).
    public static func occurrences(of scenario: Scenario, from start: Duration, to end: Duration) -> [Occurrence] {
        var schedule = ScenarioSchedule(scenario)
        return schedule.due(through: end - .nanoseconds(1)).filter { $0.time >= start }
    }

    private var next: Occurrence? {
        var best: Occurrence?
        for case let candidate? in upcoming {
            if let current = best, (current.time, current.event) <= (candidate.time, candidate.event) { continue }
            best = candidate
        }
        return best
    }

    /// The occurrence after `occurrence` of the same event: the next number in the pass,
    /// else the first of the next pass when looping.
    private static func following(_ scenario: Scenario, _ occurrence: Occurrence) -> Occurrence? {
        if let next = Self.occurrence(scenario, event: occurrence.event, pass: occurrence.pass, number: occurrence.number + 1) { return next }
        guard scenario.loop else { return nil }
        return Self.occurrence(scenario, event: occurrence.event, pass: occurrence.pass + 1, number: 0)
    }

    /// The `number`th occurrence of an event in a pass, if the event has one.
    private static func occurrence(_ scenario: Scenario, event index: Int, pass: Int, number: Int) -> Occurrence? {
        let event = scenario.events[index]
        let base: Duration
        switch event.timing {
        case let .at(time):
            guard number == 0 else { return nil }
            base = time
        case let .every(period, first, until):
            base = first + period * number
            if let until, base >= until { return nil }
        case .afterCommand:
            return nil  // not on the clock: the runner waits for the command
        }
        if let duration = scenario.duration, base >= duration { return nil }
        let start = (scenario.duration ?? .zero) * pass
        return Occurrence(time: start + base + jitter(scenario, event: index, pass: pass, number: number), event: index, pass: pass, number: number)
    }

    /// A uniform delay in [0, jitter], from the seed and the occurrence's coordinates.
    static func jitter(_ scenario: Scenario, event index: Int, pass: Int, number: Int) -> Duration {
        let jitter = scenario.events[index].jitter
        guard jitter > .zero else { return .zero }
        var random = ScenarioRandom(seed: scenario.seed, UInt64(index), UInt64(pass), UInt64(number))
        let span = jitter / .nanoseconds(1)
        return .nanoseconds(Int64(random.unit() * span))
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): small, fast and the same on every platform,
/// which is what a reproducible scenario needs (not cryptographic quality).
public struct ScenarioRandom: Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator for one coordinate tuple: each part is mixed in turn.
    public init(seed: UInt64, _ parts: UInt64...) {
        state = seed
        for part in parts { state = Self.mix(state &+ 0x9E37_79B9_7F4A_7C15 ^ part) }
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// In [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
