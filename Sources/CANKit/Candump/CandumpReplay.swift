/// A candump log as something to play back (`canplayer`-like): its frames in file order,
/// each at its recorded time relative to the log's first timestamp. The interface names
/// of the log are not kept: a replay goes to the one bus it is played on. Pure: the same
/// log gives the same frames at the same offsets; `CandumpPlayer` sends them.
public struct CandumpReplay: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        /// Since the first frame of the pass.
        public var offset: Duration
        public var frame: CANFrame
    }

    public let entries: [Entry]
    /// How long one pass lasts when looping: the last frame's offset plus the mean
    /// interval between frames (1 s for a log of one frame, or of one instant), so that
    /// the frames of the next pass keep the log's rate.
    public let period: Duration

    /// Error frames (`CAN_ERR_FLAG`) are left out: they are what a controller reports,
    /// not something to send. Lines without a timestamp (cansend form) keep the time of
    /// the line before (the first at 0); time never runs backwards (an earlier stamp
    /// plays at once).
    public init(records: [CandumpRecord]) {
        var entries: [Entry] = []
        var first: CandumpTimestamp?
        var last = Duration.zero
        for record in records where !record.frame.isError {
            if let stamp = record.timestamp {
                if first == nil { first = stamp }
                last = max(last, Self.duration(stamp) - Self.duration(first!))
            }
            entries.append(Entry(offset: last, frame: record.frame))
        }
        self.entries = entries
        if entries.count > 1, last > .zero {
            period = last + last / (entries.count - 1)
        } else {
            period = .seconds(1)
        }
    }

    /// The log's text (`candump -L` lines, also `-t a` and cansend forms).
    public init(parsing text: [UInt8]) throws(CandumpParseError) {
        self.init(records: try CandumpReader.records(in: text))
    }

    /// When entry `index` of pass `pass` is due, since the replay started.
    public func time(of index: Int, pass: Int = 0) -> Duration {
        period * pass + entries[index].offset
    }

    static func duration(_ stamp: CandumpTimestamp) -> Duration {
        .seconds(stamp.seconds) + .microseconds(Int64(stamp.microseconds))
    }
}
