import CANKit
import CarplayText

/// `carplayctl dbc watch`'s model: the live bus decoded by the DBC, per message its
/// signals, rate and what changed last. Pure: frames and the time in, lines out.
package struct BusWatch: Sendable {
    package struct Signal: Sendable, Equatable {
        var name: String
        var value: SignalValue
        /// When the value last changed (monotonic seconds); nil: as first seen.
        var changedAt: Double?
    }

    package struct Message: Sendable {
        package var id: CANID
        package var name: String?
        package var frames = 0
        /// Arrival times within the last second, for the rate.
        package var recent: [Double] = []
        package var data: [UInt8] = []
        package var signals: [Signal] = []
        package var error: String?
    }

    package let database: DBCDatabase
    /// Shows only messages (or signals) whose name contains it, case-insensitively.
    package var filter: String
    package var messages: [CANID: Message] = [:]
    package var total = 0
    /// Rows scrolled past at the top.
    package var scroll = 0
    /// How long a change stays highlighted.
    package static let highlightSeconds = 2.0

    package init(database: DBCDatabase, filter: String = "") {
        self.database = database
        self.filter = filter
    }

    package mutating func receive(_ frame: CANFrame, at now: Double) {
        total += 1
        var message = messages[frame.id] ?? Message(id: frame.id, name: database.message(id: frame.id)?.name)
        message.frames += 1
        message.recent.append(now)
        message.recent.removeAll { now - $0 > 1 }
        message.data = frame.data
        if let dbc = database.message(id: frame.id) {
            do {
                let decoded = try dbc.codec.decode(frame.data)
                message.error = nil
                var signals: [Signal] = []
                for (name, value) in decoded {
                    let previous = message.signals.first { $0.name == name }
                    let changed = previous.map { $0.value != value ? now : $0.changedAt } ?? nil
                    signals.append(Signal(name: name, value: value, changedAt: changed))
                }
                message.signals = signals
            } catch {
                message.error = error.description
            }
        }
        messages[frame.id] = message
    }

    /// The messages to show, by ID, with the filter applied (a message whose name or
    /// any of whose signals' names contains it).
    package func shown() -> [Message] {
        let needle = filter.lowercased()
        return messages.values.sorted { $0.id < $1.id }.filter { message in
            needle.isEmpty || (message.name ?? "").lowercased().contains(needle)
                || message.signals.contains { $0.name.lowercased().contains(needle) }
        }
    }

    package func rate(_ message: Message, now: Double) -> Int { message.recent.filter { now - $0 <= 1 }.count }

    /// The screen: a status line, then per message a line and its signals, each change
    /// of the last seconds highlighted; `rows` x `columns`.
    package func render(columns: Int, rows: Int, now: Double, source: String) -> [DashLine] {
        guard columns > 0, rows > 0 else { return [] }
        let shown = shown()
        var status = DashLine("dbc watch  \(shown.count)/\(messages.count) messages  \(total) frames", .title)
        if !filter.isEmpty { status.append("  filter: \(filter)") }
        status.append("  \(source)")
        var body: [DashLine] = []
        for message in shown {
            var header = DashLine(padded(message.id.description, 9))
            header.append(padded(message.name ?? "(not in the DBC)", 28), message.name == nil ? .dim : .title)
            header.append(" \(rate(message, now: now))/s  \(message.data.map { String($0, radix: 16, uppercase: true).leftPadded(2) }.joined(separator: " "))")
            body.append(header)
            if let error = message.error { body.append(DashLine("    \(error)", .failed)) }
            for signal in message.signals
            where filter.isEmpty || (message.name ?? "").lowercased().contains(filter.lowercased()) || signal.name.lowercased().contains(filter.lowercased()) {
                let recent = signal.changedAt.map { now - $0 < Self.highlightSeconds } ?? false
                var line = DashLine("    ")
                line.append(padded(signal.name, 32))
                line.append(Self.text(signal.value), recent ? .confirmed : .plain)
                if recent { line.append("  ◂ changed", .confirmed) }
                body.append(line)
            }
        }
        let footer = DashLine("q quit  ↑ ↓ scroll  Ctrl-L redraw", .dim)
        let space = max(0, rows - 2)
        let start = min(max(0, scroll), max(0, body.count - space))
        var lines = [status] + Array(body.dropFirst(start).prefix(space))
        while lines.count < rows - 1 { lines.append(DashLine()) }
        if rows > 1 { lines.append(footer) }
        return lines.prefix(rows).map { $0.fitted(to: columns) }
    }
}

extension BusWatch {
    /// A value for people: a float in two decimals (12.6, not 12.599999999999994).
    package static func text(_ value: SignalValue) -> String {
        if case let .float(number) = value { return readableNumber(number) }
        return value.description
    }
}

extension String {
    package func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
