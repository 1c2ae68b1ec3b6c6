/// Which signals changed between two recordings of a bus (before and after a button was
/// pressed), ranked by how cleanly they changed: `carplayctl dbc diff`. Pure: frames in,
/// a ranked list out.
///
/// Every frame of a message the DBC knows is decoded, signal by signal (overlapping and
/// multiplexed signals too: a signal absent from a frame's page is not counted there).
/// A signal's two series of raw values are then compared:
/// - `flip`: each side holds one value (nearly all its frames), and the values differ: a
///   status that followed the press and stays. The cleanest; ranked first.
/// - `pulse`: the same value before and after, but the after side holds another for a
///   short run: a request held while the button was down, then released.
/// - `step`: a few distinct values on each side, and the after side's differ: a level
///   moved through several values (a fan level, a set point).
/// - `noise`: values that change on both sides (a sensor, a rolling counter or checksum):
///   listed last, with the least weight.
/// Signals with the same values on both sides are left out. A score also weighs how many
/// frames show the change: a "flip" seen in one frame a side (a slow message's alive
/// counter) is weaker evidence than one held over twenty.
public enum SignalDiff {
    public enum Kind: String, Sendable, Comparable, CaseIterable {
        case flip, pulse, step, noise

        var order: Int {
            switch self {
            case .flip: 0
            case .pulse: 1
            case .step: 2
            case .noise: 3
            }
        }

        public static func < (a: Kind, b: Kind) -> Bool { a.order < b.order }
    }

    /// One signal that changed.
    public struct Change: Sendable, Equatable {
        public var message: String
        public var id: CANID
        public var signal: String
        public var kind: Kind
        /// 0...1: how cleanly it changed (1: one value before, another after, every frame).
        public var score: Double
        /// The values as decoded (choices by name), the most frequent first.
        public var before: [SignalValue]
        public var after: [SignalValue]
        /// Frames of the message that carried the signal on each side.
        public var framesBefore: Int
        public var framesAfter: Int
    }

    /// The changed signals, best first: by kind, then score, then message and signal name.
    /// A change seen in one frame a side is at best a step.
    public static func changes(in database: DBCDatabase, before: [CANFrame], after: [CANFrame]) -> [Change] {
        let beforeSeries = series(database, before)
        let afterSeries = series(database, after)
        var changes: [Change] = []
        for (key, afterValues) in afterSeries {
            guard let beforeValues = beforeSeries[key], !beforeValues.isEmpty, !afterValues.isEmpty,
                let message = database.message(id: key.id)
            else { continue }
            guard let change = compare(beforeValues, afterValues) else { continue }
            changes.append(
                Change(
                    message: message.name, id: key.id, signal: message.codec.signalName(at: key.signal), kind: change.kind, score: change.score,
                    before: distinct(beforeValues), after: distinct(afterValues), framesBefore: beforeValues.count, framesAfter: afterValues.count))
        }
        return changes.sorted {
            if $0.kind != $1.kind { return $0.kind < $1.kind }
            if $0.score != $1.score { return $0.score > $1.score }
            if $0.message != $1.message { return $0.message < $1.message }
            return $0.signal < $1.signal
        }
    }

    struct SeriesKey: Hashable {
        let id: CANID
        let signal: Int
    }

    /// Per message and signal, the decoded values in bus order.
    static func series(_ database: DBCDatabase, _ frames: [CANFrame]) -> [SeriesKey: [SignalValue]] {
        var result: [SeriesKey: [SignalValue]] = [:]
        for frame in frames where !frame.isError && !frame.isRemote {
            guard let message = database.message(id: frame.id) else { continue }
            try? frame.data.withUnsafeBufferPointer { (data) throws(DBCDecodeError) in
                try message.codec.decode(data, choices: true) { index, value in
                    result[SeriesKey(id: frame.id, signal: index), default: []].append(value)
                }
            }
        }
        return result
    }

    /// The distinct values, the most frequent first (ties: in order of appearance).
    static func distinct(_ values: [SignalValue]) -> [SignalValue] {
        var counts: [SignalValue: Int] = [:]
        var order: [SignalValue] = []
        for value in values {
            if counts[value] == nil { order.append(value) }
            counts[value, default: 0] += 1
        }
        return order.enumerated().sorted { a, b in
            let (countA, countB) = (counts[a.element]!, counts[b.element]!)
            return countA != countB ? countA > countB : a.offset < b.offset
        }.map(\.element)
    }

    /// How a signal's values changed, or nil when both sides hold the same values.
    static func compare(_ before: [SignalValue], _ after: [SignalValue]) -> (kind: Kind, score: Double)? {
        let beforeSet = Set(before)
        let afterSet = Set(after)
        guard beforeSet != afterSet else { return nil }
        let (beforeMode, beforeShare) = mode(before)
        let (afterMode, afterShare) = mode(after)
        let seen = Double(min(before.count, after.count))
        let evidence = seen / (seen + 2)
        // Changes between neighbouring frames: a counter or a sensor changes at most frames.
        let restless = changeRate(before) > 0.3 && changeRate(after) > 0.3
        if restless { return (.noise, 0.1 * min(beforeShare, afterShare) * evidence) }
        if beforeMode != afterMode {
            // One frame a side cannot tell a held value from a slow counter.
            if beforeShare >= 0.9, afterShare >= 0.9, seen >= 2 { return (.flip, beforeShare * afterShare * evidence) }
            return (.step, 0.5 * beforeShare * afterShare * evidence)
        }
        // The same value held on both sides: a short run of another one after is a press.
        let others = after.filter { $0 != afterMode }.count
        if beforeShare >= 0.9, others > 0, runs(after, of: afterMode) <= 2, seen >= 2 {
            return (.pulse, beforeShare * afterShare * evidence)
        }
        return (.noise, 0.1 * beforeShare * afterShare * evidence)
    }

    /// The most frequent value and its share of the frames.
    static func mode(_ values: [SignalValue]) -> (value: SignalValue, share: Double) {
        var counts: [SignalValue: Int] = [:]
        for value in values { counts[value, default: 0] += 1 }
        let best = counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key.description > $1.key.description }!
        return (best.key, Double(best.value) / Double(values.count))
    }

    /// The share of neighbouring frames whose values differ.
    static func changeRate(_ values: [SignalValue]) -> Double {
        guard values.count > 1 else { return 0 }
        var changes = 0
        for index in 1..<values.count where values[index] != values[index - 1] { changes += 1 }
        return Double(changes) / Double(values.count - 1)
    }

    /// How many runs of values other than `held` the series has.
    static func runs(_ values: [SignalValue], of held: SignalValue) -> Int {
        var count = 0
        var inside = false
        for value in values {
            if value != held, !inside { count += 1 }
            inside = value != held
        }
        return count
    }
}
