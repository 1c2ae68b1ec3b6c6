import CANKit
import CarplayClient
import CarplayJSON
import CarplayText
import VehicleKit

/// How a piece of the screen is shown; the text alone always says it (markers, words),
/// styles only add emphasis, so NO_COLOR and a capture read the same.
package enum DashStyle: Sendable, Equatable {
    case plain, title, focused, selected, pending, failed, confirmed, dim
}

/// One screen line: styled pieces.
package struct DashLine: Sendable, Equatable {
    package struct Piece: Sendable, Equatable {
        var text: String
        var style: DashStyle
    }
    package var pieces: [Piece] = []

    package init(_ text: String = "", _ style: DashStyle = .plain) {
        if !text.isEmpty { pieces = [Piece(text: text, style: style)] }
    }

    package var text: String { pieces.map(\.text).joined() }
    package var width: Int { pieces.reduce(0) { $0 + $1.text.count } }

    package mutating func append(_ text: String, _ style: DashStyle = .plain) {
        if !text.isEmpty { pieces.append(Piece(text: text, style: style)) }
    }

    package static func + (line: DashLine, other: DashLine) -> DashLine {
        var joined = line
        joined.pieces += other.pieces
        return joined
    }

    /// Exactly `width` columns: cut, or padded with spaces.
    package func fitted(to width: Int) -> DashLine {
        var result = DashLine()
        var left = width
        for piece in pieces where left > 0 {
            let text = piece.text.count <= left ? piece.text : String(piece.text.prefix(left))
            result.append(text, piece.style)
            left -= text.count
        }
        if left > 0 { result.append(String(repeating: " ", count: left)) }
        return result
    }
}

/// Draws a `DashModel` as lines of text for a width x height. Pure.
///
///     row 0        status: the car, reachability, the bus and its health
///     cabin        the cabin from above: zones and seats, defrosters, doors, climate, audio, power
///     frames       one row per CAN ID on the bus (GetBusTraffic): its rate, last data, counts, the keys it changed
///     row h-2      the last thing that happened (a request pending, confirmed, failed)
///     row h-1      the keys
package enum DashRenderer {
    package static func render(_ model: DashModel, columns: Int, rows: Int, now: Double) -> [DashLine] {
        guard columns > 0, rows > 0 else { return [] }
        var lines: [DashLine] = [statusLine(model)]
        let footer = [noteLine(model), keyLine(model)]
        let body = max(0, rows - 1 - footer.count)
        var middle: [DashLine]
        if model.showHelp {
            middle = [rule("Keys", focused: true, columns: columns)] + helpLines()
        } else {
            middle = [rule("Cabin", focused: model.pane == .cabin, columns: columns)] + cabin(model, columns: columns)
            middle += [rule("Frames", focused: model.pane == .frames, columns: columns, extra: frameSummary(model))]
            middle += framePane(model, columns: columns, rows: max(0, body - middle.count))
        }
        lines += middle.prefix(body)
        while lines.count < 1 + body { lines.append(DashLine()) }
        lines += footer
        return lines.prefix(rows).map { $0.fitted(to: columns) }
    }

    /// The fallback view (a dumb terminal, a pipe): the status line and the cabin, as text.
    package static func plainText(_ model: DashModel, columns: Int = 80) -> [String] {
        ([statusLine(model)] + cabin(model, columns: columns) + [noteLine(model)])
            .map { line in
                var text = line.fitted(to: columns).text
                while text.last == " " { text.removeLast() }
                return text
            }
    }

    // MARK: - Status and footer

    package static func statusLine(_ model: DashModel) -> DashLine {
        var line = DashLine(" \(model.vehicle.name)", .title)
        // Intent mode is the default and unmarked: the 80 columns go to the bus.
        if model.mode == .panel { line.append("  PANEL (driver)", .pending) }
        if let problem = model.connectionProblem {
            line.append("  ✗ \(problem)", .failed)
            return line
        }
        switch model.reachable {
        case true?: line.append("  ● reachable", .confirmed)
        case false?: line.append("  ○ unreachable", .failed)
        case nil: line.append("  ○ connecting", .dim)
        }
        guard let bus = model.bus else {
            line.append("  untrusted 0")
            return line
        }
        line.append("  bus \(bus.interface) (\(bus.kind)) \(bus.health.state.rawValue)")
        line.append("  untrusted \(bus.untrustedFrames)", bus.untrustedFrames > 0 ? .failed : .plain)
        // The other counters (by the interface's names) only when they count something.
        let health = bus.health
        let counters = [("droppedFrames", Int(health.droppedFrames)), ("errorFrames", health.errorFrames), ("restarts", health.restarts)]
        for (name, count) in counters where count > 0 { line.append("  \(name) \(count)", .failed) }
        return line
    }

    package static func rule(_ title: String, focused: Bool, columns: Int, extra: String = "") -> DashLine {
        var line = DashLine("─")
        line.append(focused ? "[\(title)]" : " \(title) ", focused ? .focused : .title)
        let tail = extra.isEmpty ? "" : "─ \(extra) "
        line.append(tail + String(repeating: "─", count: max(0, columns - line.width - tail.count)))
        return line
    }

    package static func noteLine(_ model: DashModel) -> DashLine {
        guard let note = model.note else { return DashLine() }
        let style: DashStyle =
            switch note.kind {
            case .info: .plain
            case .pending: .pending
            case .confirmed: .confirmed
            case .failed: .failed
            }
        return DashLine(" " + note.text, style)
    }

    package static func keyLine(_ model: DashModel) -> DashLine {
        let text =
            model.showHelp
            ? " any key: back   q: quit"
            : model.mode == .panel
                ? " PANEL: you are the driver  p intents  +/- temp  h heat  f/F fan  l lock  q quit"
                : model.pane == .cabin
                    ? " Tab frames  z zone  s seat  +/- temp  h heat  f/F fan  l lock  ? help  q quit"
                    : " Tab cabin  ↑/↓ message  Enter signals  +/- temp  h heat  l lock  ? help  q quit"
        return DashLine(text, .dim)
    }

    package static func helpLines() -> [DashLine] {
        DashKeys.help.map { DashLine("  \(padded($0.0, 14))\($0.1)") }
            + [DashLine(), DashLine("  Values in flight show '→ target …'; refused ones '✗' (the reason below).")]
    }

    // MARK: - Cabin

    package static func cabin(_ model: DashModel, columns: Int) -> [DashLine] {
        var lines: [DashLine] = []
        let values = model.values
        let half = max(20, (columns - 6) / 2)

        // Front: defroster, doors, signals that are on.
        var front = DashLine("  ")
        if model.vehicle.properties.contains("defroster.front") { front = front + flag(model, "defroster.front", "front defroster") }
        var body = DashLine()
        if model.vehicle.properties.contains("lock.locked") {
            body = body + value(model, "lock.locked", label: "doors ") { $0 == .bool(true) ? "locked" : "unlocked" }
        }
        if values["signal.visible"] == .bool(true) { body.append("  LIGHTS", .pending) }
        if values["signal.audible"] == .bool(true) { body.append("  HORN", .pending) }
        if front.width < half + 4 { front.append(String(repeating: " ", count: half + 4 - front.width)) }
        lines.append(front + body)

        // The zones, two boxes a row, their seats inside.
        let zones = model.vehicle.zones
        var index = 0
        while index < zones.count {
            let pair = Array(zones[index..<min(zones.count, index + 2)])
            let width = pair.count == 1 && zones.count == 1 ? columns - 4 : half
            let boxes = pair.enumerated().map { box(model, zone: $0.element, zoneIndex: index + $0.offset, width: width) }
            let height = boxes.map(\.count).max() ?? 0
            for row in 0..<height {
                var line = DashLine("  ")
                for (offset, box) in boxes.enumerated() {
                    if offset > 0 { line.append("  ") }
                    line = line + (row < box.count ? box[row] : DashLine(String(repeating: " ", count: width)))
                }
                lines.append(line)
            }
            index += 2
        }

        // Rear defroster.
        if model.vehicle.properties.contains("defroster.rear") { lines.append(DashLine("  ") + flag(model, "defroster.rear", "rear defroster")) }

        // The climate of the whole car.
        var climate = DashLine("  ")
        if values["climate.cabinTemperature"] != nil {
            climate = climate + value(model, "climate.cabinTemperature", label: "cabin ") { celsius($0) }
            climate.append("  ")
        }
        if model.vehicle.properties.contains("climate.fan") || model.vehicle.properties.contains("climate.fanSpeed") {
            climate.append("fan ")
            if model.vehicle.properties.contains("climate.fan") { climate = climate + value(model, "climate.fan", label: "") { readable($0) } + DashLine(" ") }
            if model.vehicle.properties.contains("climate.fanSpeed") {
                let levels = model.vehicle.fanSpeedLevels
                climate = climate + value(model, "climate.fanSpeed", label: "") { readable($0) + (levels > 0 ? "/\(levels)" : "") }
            }
            climate.append("  ")
        }
        for (key, label) in [("climate.airConditioner", "A/C"), ("climate.autoMode", "auto"), ("climate.climateControl", "climate")]
        where model.vehicle.properties.contains(key) {
            climate = climate + flag(model, key, label) + DashLine("  ")
        }
        if model.vehicle.properties.contains("climate.airCirculation") {
            climate = climate + value(model, "climate.airCirculation", label: "air ") { $0.stringValue == "recirculateAir" ? "recirc" : "fresh" }
        }
        if climate.width > 2 { lines.append(climate) }

        // Extensions: read, no SiriKit intent carries them.
        var extensions = DashLine("  ")
        if model.vehicle.properties.contains(PropertyKey.outsideTemperature.rawValue) {
            extensions = extensions + value(model, PropertyKey.outsideTemperature.rawValue, label: "outside ") { celsius($0) } + DashLine("  ")
        }
        if model.vehicle.properties.contains(PropertyKey.autoDefog.rawValue) {
            extensions = extensions + flag(model, PropertyKey.autoDefog.rawValue, "auto defog") + DashLine("  ")
        }
        if extensions.width > 2 { lines.append(DashLine("  ext ", .dim) + extensions) }

        // Audio and power.
        var audio = DashLine("  ")
        if let source = values["audio.source"] {
            audio.append("audio ")
            audio = audio + value(model, "audio.source", label: "") { _ in readable(source) }
        }
        if let radio = IntentSentence.radioText(values) {
            audio.append(" · \(radio)")
            if let band = values["radio.band"]?.stringValue, let frequency = values["radio.frequency"]?.doubleValue,
                let station = model.vehicle.station(band: band, frequency: frequency)
            {
                audio.append(" \(station)")
            }
        }
        let power = powerText(values)
        if !power.isEmpty {
            if audio.width + 2 + power.count <= columns {
                audio.append(String(repeating: " ", count: max(2, columns - audio.width - power.count - 1)) + power)
            } else {
                lines.append(audio)
                audio = DashLine("  " + power)
            }
        }
        if audio.width > 2 { lines.append(audio) }
        return lines
    }

    /// One zone: its target temperature (and its own cabin temperature, if the car has
    /// one), then its seats with their levels.
    package static func box(_ model: DashModel, zone: DashVehicle.Zone, zoneIndex: Int, width: Int) -> [DashLine] {
        let selected = zoneIndex == min(model.zoneIndex, max(0, model.vehicle.zones.count - 1))
        var title = zone.id
        // The driver's zone: named by the side, or the one with the driver's seat.
        if let driver = model.vehicle.driverSide, driver == zone.id || zone.seats.contains("front" + capitalizedFirst(driver)) { title += " · driver" }
        let inner = width - 2
        var top = DashLine("┌")
        top.append(selected ? "▸\(title) " : " \(title) ", selected ? .selected : .title)
        top.append(String(repeating: "─", count: max(0, inner - top.width + 1)) + "┐")
        var rows: [DashLine] = []
        func row(_ content: DashLine) { rows.append(DashLine("│") + content.fitted(to: inner) + DashLine("│")) }

        var temperature = DashLine(" ")
        temperature = temperature + value(model, "climate.temperature.\(zone.id)", label: "set ") { celsius($0) }
        if model.values["climate.cabinTemperature.\(zone.id)"] != nil {
            temperature = temperature + DashLine("   ") + value(model, "climate.cabinTemperature.\(zone.id)", label: "cabin ") { celsius($0) }
        }
        row(temperature)
        let selectedSeat = model.pane == .cabin ? model.selectedSeat?.name : nil
        for name in zone.seats {
            let isSelected = name == selectedSeat
            var line = DashLine(isSelected ? "▸" : " ", .selected)
            line.append(padded(name, 14), isSelected ? .selected : .plain)
            if let seat = model.vehicle.seat(named: name), seat.hasFeatures {
                for (feature, short, maximum) in [("heating", "heat", seat.heating), ("cooling", "cool", seat.cooling), ("massage", "mass", seat.massage)]
                where maximum > 0 {
                    line = line + value(model, "seat.\(name).\(feature)", label: "\(short) ") { readable($0) } + DashLine(" ")
                }
            } else {
                line.append("–", .dim)
            }
            row(line)
        }
        let bottom = DashLine("└" + String(repeating: "─", count: max(0, inner)) + "┘")
        return [top] + rows + [bottom]
    }

    /// `label value`, and what is wanted of it: `→ target …` pending, `✗ target` refused.
    package static func value(_ model: DashModel, _ key: String, label: String, _ text: (JSONValue) -> String) -> DashLine {
        var line = DashLine(label)
        line.append(model.values[key].map(text) ?? "?")
        if let wish = model.wanted[key] {
            switch wish.phase {
            case .pending: line.append(" → \(text(wish.target)) …", .pending)
            case .failed: line.append(" ✗ \(text(wish.target))", .failed)
            }
        }
        return line
    }

    package static func flag(_ model: DashModel, _ key: String, _ label: String) -> DashLine {
        value(model, key, label: "\(label) ") { readable($0) }
    }

    package static func celsius(_ value: JSONValue) -> String {
        value.doubleValue.map { "\(readableNumber($0)) °C" } ?? readable(value)
    }

    /// Fuel / charge and range, then any other power key as it is named (new ones appear).
    package static func powerText(_ values: [String: JSONValue]) -> String {
        var parts: [String] = []
        var keys = Set(values.keys.filter { $0.hasPrefix("power.") })
        func take(_ key: String) -> JSONValue? { keys.remove(key) == nil ? nil : values[key] }
        if let fuel = take("power.fuelPercent") { parts.append("fuel \(readable(fuel)) %") }
        if let charge = take("power.chargePercent") { parts.append("charge \(readable(charge)) %") }
        let charging = take("power.charging") == .bool(true)
        if charging { parts.append("charging") }
        // Minutes to full mean something only while charging.
        if let minutes = take("power.minutesToFull"), charging { parts.append("\(readable(minutes)) min to full") }
        if let range = take("power.distanceRemaining") { parts.append("range \(readable(range)) km") }
        for key in keys.sorted() { parts.append("\(key.dropFirst("power.".count)) \(readable(values[key]!))") }
        return parts.joined(separator: " · ")
    }
}
