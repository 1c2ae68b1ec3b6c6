import CANKit
import CarplayClient
import CarplayJSON
import CarplayText
import VehicleKit

/// The frame pane: every CAN ID the bus carried, the selected one's signals.
extension DashRenderer {
    package static func frameSummary(_ model: DashModel) -> String {
        let count = model.frames.messages.count
        return "\(count) CAN ID\(count == 1 ? "" : "s") on the bus · untrusted \(model.bus?.untrustedFrames ?? 0)"
    }

    package static func framePane(_ model: DashModel, columns: Int, rows: Int) -> [DashLine] {
        guard rows > 0 else { return [] }
        var lines = [DashLine("  ID        " + padded("message", 18) + "  Hz  data              changed", .dim)]
        let messages = model.frames.messages
        if messages.isEmpty { lines.append(DashLine("  (no frame yet)", .dim)) }
        let selected = min(model.frameIndex, max(0, messages.count - 1))
        // The selected message and its signals stay in view.
        var detail: [DashLine] = []
        if model.showSignals, messages.indices.contains(selected) {
            detail = signalLines(model, messages[selected])
        }
        let room = max(1, rows - lines.count - detail.count)
        let first = max(0, min(selected - room + 1, messages.count - room))
        for index in messages.indices.dropFirst(first).prefix(room) {
            let message = messages[index]
            let mark = model.pane == .frames && index == selected
            var line = DashLine(mark ? "▸ " : "  ", .selected)
            var text = padded(message.idText, 10)
            text += padded(message.name ?? model.database?.message(id: message.id)?.name ?? "?", 18)
            let rate = model.frames.rate(of: message)
            text += leftPadded(rate >= 10 ? readableNumber(rate.rounded()) : oneDecimal(rate), 4)
            text += "  " + padded(message.dataText, 18)
            line.append(text, mark ? .selected : .plain)
            // Untrusted frames of this ID first (they are why a command may time out),
            // then what the head unit sent with it, then the keys its last frame changed.
            if message.untrusted > 0 { line.append("untrusted \(message.untrusted) ", .failed) }
            if message.sent > 0 { line.append("sent \(message.sent) ", .dim) }
            line.append(message.keys.joined(separator: " "), .dim)
            lines.append(line)
            if index == selected { lines += detail }
        }
        return Array(lines.prefix(rows))
    }

    /// The selected frame decoded: with `--dbc`, every signal; without, the state keys it
    /// set. Then each key's VSS paths, where the daemon names them.
    package static func signalLines(_ model: DashModel, _ message: DashFrameTable.Message) -> [DashLine] {
        var lines: [DashLine]
        if let database = model.database {
            if let dbc = database.message(id: message.id) {
                do {
                    lines = try dbc.codec.decode(message.data).map { DashLine("      \($0.name) = \($0.value)", .dim) }
                } catch {
                    lines = [DashLine("      \(error)", .failed)]
                }
            } else {
                lines = [DashLine("      not in the DBC", .dim)]
            }
        } else {
            let keys = message.keys.map { "\($0)=\(model.values[$0].map(readable) ?? "?")" }
            lines = [DashLine("      " + keys.joined(separator: "  ") + "   (signals: dash --dbc FILE)", .dim)]
        }
        for key in message.keys {
            guard let paths = model.vssPaths[key], !paths.isEmpty else { continue }
            lines.append(DashLine("      \(key) → " + paths.joined(separator: ", "), .dim))
        }
        return lines
    }

    package static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    package static func leftPadded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
