import CANKit
import CarplayClient
import CarplayProtocol

/// The frame pane's figures: every CAN ID the daemon's GetBusTraffic reports (all the bus
/// carried: counts, the last frame) with its rate between readings, and the state keys
/// its last frame changed (from the Monitor stream). Pure: readings come with the
/// daemon's uptime.
package struct DashFrameTable: Sendable, Equatable {
    package struct Reading: Sendable, Equatable {
        var uptime: Double
        var received: Int
    }

    package struct Message: Sendable, Equatable {
        var id: CANID
        /// The DBC message's name, as the daemon's DBC has it.
        var name: String?
        var data: [UInt8] = []
        var received = 0
        var untrusted = 0
        var sent = 0
        /// GetBusTraffic readings within the rate window, oldest first.
        var readings: [Reading] = []
        /// The state keys the last frame that changed the state changed.
        var keys: [String] = []

        var idText: String { id.description }
        var dataText: String { CandumpWriter.payload(data) }
    }

    /// Seconds the rate is averaged over.
    package static let window = 10.0

    /// By CAN ID, in ID order.
    private(set) var messages: [Message] = []

    /// A Monitor reply's frame (`(ts) iface ID#DATA`) and the keys it changed; lines that
    /// do not parse are left out (the daemon always writes candump -L).
    package mutating func record(line: String, keys: [String]) {
        guard let frame = Self.frame(line) else { return }
        let index = self.index(of: frame.id)
        messages[index].data = frame.data
        messages[index].keys = keys
    }

    /// A GetBusTraffic reply: counts, names and last payloads; a reading for the rates.
    /// An uptime below the last one is a new session (a reload): its counts start over.
    package mutating func apply(traffic reply: GetBusTrafficReply) {
        let uptime = reply.uptime
        for entry in reply.messages {
            let index = self.index(of: entry.id)
            var message = messages[index]
            message.name = entry.name
            message.received = entry.received
            message.untrusted = entry.untrusted
            message.sent = entry.sent
            if let frame = entry.lastFrame.flatMap(Self.frame) { message.data = frame.data }
            if let last = message.readings.last, uptime < last.uptime || message.received < last.received { message.readings.removeAll() }
            message.readings.append(Reading(uptime: uptime, received: message.received))
            message.readings.removeAll { $0.uptime < uptime - Self.window }
            messages[index] = message
        }
    }

    /// Frames received per second between the oldest and the newest reading of the window.
    package func rate(of message: Message) -> Double {
        guard let first = message.readings.first, let last = message.readings.last, last.uptime > first.uptime else { return 0 }
        return Double(last.received - first.received) / (last.uptime - first.uptime)
    }

    private mutating func index(of id: CANID) -> Int {
        if let found = messages.firstIndex(where: { $0.id == id }) { return found }
        let index = messages.firstIndex(where: { $0.id > id }) ?? messages.count
        messages.insert(Message(id: id), at: index)
        return index
    }

    package static func frame(_ line: String) -> CANFrame? {
        guard !line.isEmpty else { return nil }
        return (try? CandumpReader.record(line))??.frame
    }
}
