import CANKit
import CarplayText

/// `carplayctl dbc show`: the database as a table a person can scan.
enum DBCTable {
    static func render(_ database: DBCDatabase) -> String {
        var out = ""
        let nodes = database.nodes.map(\.name).joined(separator: ", ")
        out += "\(database.source): \(database.messages.count) messages"
        if let version = database.version, !version.isEmpty { out += ", version \"\(version)\"" }
        if !nodes.isEmpty { out += ", nodes: \(nodes)" }
        out += "\n"
        for message in database.messages {
            out += "\n"
            var header = "\(message.name)  id 0x\(String(message.frameID, radix: 16, uppercase: true))"
            header += message.isExtended ? " (extended)" : " (standard)"
            header += "  \(message.length) bytes  \(message.isFD ? "CAN FD" : "classic")"
            if let cycle = message.cycleTime { header += "  cycle \(cycle) ms" }
            if !message.senders.isEmpty { header += "  from \(message.senders.joined(separator: ", "))" }
            out += header + "\n"
            if let comment = message.comment { out += "  // \(comment)\n" }
            let rows: [[String]] = message.signals.map { signal in
                var mux = ""
                if signal.isMultiplexer { mux = "mux" }
                if let ids = signal.multiplexerIDs {
                    let selector = signal.multiplexerSignal ?? "?"
                    mux += (mux.isEmpty ? "" : " ") + "\(selector)=\(compactRanges(ids))"
                }
                let type: String
                switch signal.valueType {
                case let .integer(signed): type = signed ? "signed" : "unsigned"
                case .float32: type = "float32"
                case .float64: type = "float64"
                }
                let range = signal.minimum.map { "[\($0)|\(signal.maximum.map(\.description) ?? "")]" } ?? "-"
                let choices = signal.choices.prefix(4).map { "\($0.value)=\($0.name)" }.joined(separator: " ") + (signal.choices.count > 4 ? " …" : "")
                return [
                    signal.name, "\(signal.startBit)", "\(signal.length)", signal.byteOrder == .littleEndian ? "intel" : "motorola", type,
                    "\(signal.scale)", "\(signal.offset)", range, signal.unit ?? "", mux, choices,
                ]
            }
            out += textTable(["signal", "start", "len", "order", "type", "factor", "offset", "range", "unit", "mux", "choices"], rows)
        }
        return out
    }

    /// 1,2,3,7 -> "1-3,7"
    static func compactRanges(_ ids: [Int]) -> String {
        var parts: [String] = []
        var index = 0
        while index < ids.count {
            var end = index
            while end + 1 < ids.count, ids[end + 1] == ids[end] + 1 { end += 1 }
            parts.append(end == index ? "\(ids[index])" : "\(ids[index])-\(ids[end])")
            index = end + 1
        }
        return parts.joined(separator: ",")
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}

/// Rows under their headings, each column as wide as its widest cell plus two, indented by
/// two; trailing spaces cut. `rightAligned` columns (numbers) are padded on the left.
func textTable(_ headings: [String], _ rows: [[String]], rightAligned: Set<Int> = []) -> String {
    let widths = headings.indices.map { column in ([headings[column]] + rows.map { $0[column] }).map(\.count).max()! }
    func line(_ cells: [String]) -> String {
        let text = cells.enumerated().map { column, cell in
            let padding = String(repeating: " ", count: widths[column] - cell.count)
            return (rightAligned.contains(column) ? padding + cell : cell + padding) + "  "
        }.joined()
        return ("  " + text).trimmingTrailingSpaces() + "\n"
    }
    return line(headings) + rows.map(line).joined()
}
