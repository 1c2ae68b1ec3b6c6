import CarIntents
import CarplayJSON
import CarplayText

/// A key as the dash reads it.
package enum DashKey: Sendable, Equatable {
    case character(Character)
    case tab, backTab, up, down, left, right, enter, escape
    /// Ctrl-C (raw mode turns off the terminal's signal keys, so it arrives as a byte).
    case interrupt
    /// Ctrl-L.
    case redraw

    /// The keys in bytes read from a raw terminal: ANSI arrows (CSI and SS3 forms),
    /// back-tab, UTF-8 characters.
    package static func parse(_ bytes: [UInt8]) -> [DashKey] {
        var keys: [DashKey] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x1B:
                if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "[") || bytes[index] == UInt8(ascii: "O") {
                    let final = bytes[index + 1]
                    index += 2
                    switch final {
                    case UInt8(ascii: "A"): keys.append(.up)
                    case UInt8(ascii: "B"): keys.append(.down)
                    case UInt8(ascii: "C"): keys.append(.right)
                    case UInt8(ascii: "D"): keys.append(.left)
                    case UInt8(ascii: "Z"): keys.append(.backTab)
                    default:
                        // Other sequences (F keys, Home, ...): skip to their final byte.
                        while index < bytes.count, !(0x40...0x7E).contains(bytes[index - 1]) { index += 1 }
                    }
                } else {
                    keys.append(.escape)
                }
            case 0x09: keys.append(.tab)
            case 0x0D, 0x0A: keys.append(.enter)
            case 0x03: keys.append(.interrupt)
            case 0x0C: keys.append(.redraw)
            case 0x20...0x7E: keys.append(.character(Character(Unicode.Scalar(byte))))
            default:
                // UTF-8 beyond ASCII, whole: no key of the dash, but not garbage either.
                if byte >= 0xC0 {
                    var end = index
                    while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
                    if let text = String(validating: bytes[(index - 1)..<end], as: UTF8.self), let first = text.first { keys.append(.character(first)) }
                    index = end
                }
            }
        }
        return keys
    }
}

/// What a key does: pure, from the model; a request to send comes back to the caller,
/// which sends it (the terminal layer never decides what a key means).
package enum DashKeys {
    /// One line per key, for `?` and docs/CLI.md.
    package static let help: [(String, String)] = [
        ("Tab", "switch between the cabin and the frame pane"),
        ("z Z  ← →", "select the next / previous climate zone"),
        ("s  ↑ ↓", "select the next / previous seat (cabin pane)"),
        ("+ -", "selected zone one step warmer / cooler"),
        ("h c m", "selected seat: next heating / cooling / massage level"),
        ("f F", "fan one speed faster / slower"),
        ("a u r", "A/C, auto mode, recirculated air on/off"),
        ("d D", "front / rear defroster on/off"),
        ("l", "lock or unlock the doors"),
        ("p", "panel mode on/off: the keys act as the driver on a simulated car"),
        ("↑ ↓  Enter", "frame pane: select a message, show its signals"),
        ("?", "this help (any key closes it)"),
        ("q  Ctrl-C", "quit"),
    ]

    /// Applies `key`; returns the request it asks for, if any.
    package static func handle(_ key: DashKey, _ model: inout DashModel) -> DashRequest? {
        if model.showHelp {
            model.showHelp = false
            if key == .interrupt || key == .character("q") { model.quit = true }
            return nil
        }
        switch key {
        case .interrupt, .character("q"): model.quit = true; return nil
        case .character("?"): model.showHelp = true; return nil
        case .tab, .backTab: model.pane = model.pane == .cabin ? .frames : .cabin; return nil
        case .character("p"):
            model.mode = model.mode == .intents ? .panel : .intents
            model.note = DashNote(
                text: model.mode == .panel ? "panel mode: the keys act as the driver (the car's own controls)" : "intent mode: the keys send intents",
                kind: .info)
            return nil
        case .redraw: return nil
        default: break
        }
        if model.pane == .frames {
            switch key {
            case .up, .character("k"): model.frameIndex = max(0, model.frameIndex - 1)
            case .down, .character("j"): model.frameIndex = min(max(0, model.frames.messages.count - 1), model.frameIndex + 1)
            case .enter, .character(" "): model.showSignals.toggle()
            default: return asMode(cabinRequest(key, &model), model)
            }
            return nil
        }
        return asMode(cabinRequest(key, &model), model)
    }

    /// In panel mode a key's targets are what the driver sets, not an intent's.
    private static func asMode(_ request: DashRequest?, _ model: DashModel) -> DashRequest? {
        guard var request, model.mode == .panel else { return request }
        request.asDriver = true
        return request
    }

    /// The cabin's keys: selection, and the common intents.
    private static func cabinRequest(_ key: DashKey, _ model: inout DashModel) -> DashRequest? {
        let zones = max(1, model.vehicle.zones.count)
        let seats = max(1, model.vehicle.selectableSeats.count)
        switch key {
        case .character("z"), .right: model.zoneIndex = (model.zoneIndex + 1) % zones
        case .character("Z"), .left: model.zoneIndex = (model.zoneIndex + zones - 1) % zones
        case .character("s"), .down: model.seatIndex = (model.seatIndex + 1) % seats
        case .character("S"), .up: model.seatIndex = (model.seatIndex + seats - 1) % seats
        case .character("+"), .character("="): return temperature(model, up: true)
        case .character("-"), .character("_"): return temperature(model, up: false)
        case .character("h"): return seatLevel(&model, "heating")
        case .character("c"): return seatLevel(&model, "cooling")
        case .character("m"): return seatLevel(&model, "massage")
        case .character("f"): return fan(&model, by: 1)
        case .character("F"): return fan(&model, by: -1)
        case .character("a"): return toggle(&model, "climate.airConditioner", .setClimateSettingsInCar, "enableAirConditioner")
        case .character("u"): return toggle(&model, "climate.autoMode", .setClimateSettingsInCar, "enableAutoMode")
        case .character("r"): return recirculation(&model)
        case .character("d"): return defroster(&model, "front")
        case .character("D"): return defroster(&model, "rear")
        case .character("l"): return lock(&model)
        default: break
        }
        return nil
    }

    private static func missing(_ what: String, _ model: inout DashModel) -> DashRequest? {
        model.note = DashNote(text: "this car has no \(what)", kind: .info)
        return nil
    }

    package static func temperature(_ model: DashModel, up: Bool) -> DashRequest? {
        guard let zone = model.selectedZone else { return nil }
        let key = "climate.temperature.\(zone.id)"
        guard let current = model.wantedOrActual(key)?.doubleValue else { return nil }
        let vehicle = model.vehicle
        let step = vehicle.temperatureStep > 0 ? vehicle.temperatureStep : 0.5
        let target = min(vehicle.temperatureMax, max(vehicle.temperatureMin, ((current / step).rounded() + (up ? 1 : -1)) * step))
        var parameters: [String: JSONValue] = ["temperature": .object(["value": .number(target), "unit": .string("celsius")])]
        // SiriKit names a zone by a seat in it.
        if let seat = zone.seats.first { parameters["climateZone"] = .string(seat) }
        return DashRequest(intent: .setClimateSettingsInCar, parameters: parameters, targets: [key: .number(target)])
    }

    package static func seatLevel(_ model: inout DashModel, _ feature: String) -> DashRequest? {
        guard let seat = model.selectedSeat else { return missing("seat settings", &model) }
        let maximum = feature == "heating" ? seat.heating : feature == "cooling" ? seat.cooling : seat.massage
        let key = "seat.\(seat.name).\(feature)"
        guard maximum > 0 else { return missing("\(feature) on \(seat.name)", &model) }
        let level = ((model.wantedOrActual(key)?.intValue ?? 0) + 1) % (maximum + 1)
        var parameters: [String: JSONValue] = ["seat": .string(seat.name), "enable" + capitalizedFirst(feature): .bool(level > 0)]
        if level > 0 { parameters["level"] = .integer(level) }
        return DashRequest(intent: .setSeatSettingsInCar, parameters: parameters, targets: [key: .integer(level)])
    }

    package static func fan(_ model: inout DashModel, by step: Int) -> DashRequest? {
        let key = "climate.fanSpeed"
        guard model.vehicle.properties.contains(key), model.vehicle.fanSpeedLevels > 0 else { return missing("fan speed", &model) }
        let speed = min(model.vehicle.fanSpeedLevels, max(1, (model.wantedOrActual(key)?.intValue ?? 0) + step))
        return DashRequest(intent: .setClimateSettingsInCar, parameters: ["fanSpeedIndex": .integer(speed)], targets: [key: .integer(speed)])
    }

    package static func toggle(_ model: inout DashModel, _ key: String, _ intent: IntentName, _ parameter: String) -> DashRequest? {
        guard model.vehicle.properties.contains(key) else { return missing(key, &model) }
        let on = !(model.wantedOrActual(key)?.boolValue ?? false)
        return DashRequest(intent: intent, parameters: [parameter: .bool(on)], targets: [key: .bool(on)])
    }

    package static func recirculation(_ model: inout DashModel) -> DashRequest? {
        let key = "climate.airCirculation"
        guard model.vehicle.properties.contains(key) else { return missing("air circulation setting", &model) }
        let mode = model.wantedOrActual(key)?.stringValue == "recirculateAir" ? "freshAir" : "recirculateAir"
        return DashRequest(intent: .setClimateSettingsInCar, parameters: ["airCirculationMode": .string(mode)], targets: [key: .string(mode)])
    }

    package static func defroster(_ model: inout DashModel, _ which: String) -> DashRequest? {
        let key = "defroster.\(which)"
        guard model.vehicle.properties.contains(key) else { return missing("\(which) defroster", &model) }
        let on = !(model.wantedOrActual(key)?.boolValue ?? false)
        return DashRequest(intent: .setDefrosterSettingsInCar, parameters: ["defroster": .string(which), "enable": .bool(on)], targets: [key: .bool(on)])
    }

    package static func lock(_ model: inout DashModel) -> DashRequest? {
        toggle(&model, "lock.locked", .setCarLockStatus, "locked")
    }
}
