import CANKit

/// The frame pane's figures: every message seen in the Monitor stream (which carries the
/// frame that changed the state), its rate and last payload. Pure: times are given.
struct DashFrameTable: Sendable, Equatable {
    struct Message: Sendable, Equatable {
        var id: CANID
        var data: [UInt8]
        var count = 0
        /// Receive times within the rate window, oldest first.
        var recent: [Double] = []
        var firstSeen: Double
        /// The state keys the last frame changed.
        var keys: [String] = []

        var idText: String { id.description }
        var dataText: String { data.map { hexByte($0) }.joined() }
    }

    /// Seconds the rate is averaged over.
    static let window = 10.0

    /// By CAN ID, in ID order.
    private(set) var messages: [Message] = []

    /// Counts a Monitor reply's frame (`(ts) iface ID#DATA`); lines that do not parse
    /// are left out (the daemon always writes candump -L).
    mutating func record(line: String, keys: [String], now: Double) {
        guard !line.isEmpty, let record = try? CandumpReader.record(line) else { return }
        let id = record.frame.id
        let index: Int
        if let found = messages.firstIndex(where: { $0.id == id }) {
            index = found
        } else {
            index = messages.firstIndex(where: { $0.id > id }) ?? messages.count
            messages.insert(Message(id: id, data: [], firstSeen: now), at: index)
        }
        messages[index].data = record.frame.data
        messages[index].count += 1
        messages[index].keys = keys
        messages[index].recent.append(now)
        prune(index, now: now)
    }

    private mutating func prune(_ index: Int, now: Double) {
        let oldest = now - Self.window
        if let keep = messages[index].recent.firstIndex(where: { $0 >= oldest }) {
            messages[index].recent.removeFirst(keep)
        } else {
            messages[index].recent.removeAll()
        }
    }

    /// Frames per second over the last `window` seconds (or since first seen, at least 1 s,
    /// so a first frame does not read as a burst).
    func rate(of message: Message, now: Double) -> Double {
        let recent = message.recent.filter { $0 >= now - Self.window }
        let span = min(Self.window, max(1.0, now - message.firstSeen))
        return Double(recent.count) / span
    }
}

func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}
