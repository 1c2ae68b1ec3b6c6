import CANKit
import CarplayJSON

/// `carplayctl profile draft`: a starting schema-2 profile from a DBC alone. Pure: the
/// DBC in, the profile's JSON and a report out.
///
/// Each property of the vocabulary is looked for by the words of signal names, in the
/// abbreviations real DBCs use (`Temp`/`Tmp`/`SetPt`, `AC`/`AirCnd`, `Defog`/`Dfg`,
/// `Blower`/`Blw`/`Fan`, `Lock`/`Lk`, `Fuel`/`Fl`, `DTE`/`Rng`, ...), then by unit, range,
/// size and value table. Every binding is a **status**: a command is not bound, because
/// nothing in a DBC shows that the car would confirm it; the report lists the request
/// signals it found, for the user to bind once the car has shown what they do. The draft
/// passes `profile check`: a binding the loader refuses is dropped, with its reason.
public enum ProfileDraft {
    /// One finding of the report: a bound status, a request candidate, a dropped guess.
    public struct Note: Sendable, Equatable {
        public enum Kind: String, Sendable { case bound, request, dropped, assumed }
        public var kind: Kind
        public var property: String
        public var message: String
        public var signal: String
        /// 0...1.
        public var confidence: Double
        public var reason: String
    }

    public struct Draft: Sendable {
        public var json: JSONValue
        public var notes: [Note]
        /// The bound statuses: property -> (message, signal).
        public var bindings: [PropertyKey: SignalReference]
    }

    /// A candidate signal for a property, with how sure the match is and why.
    struct Candidate {
        var key: PropertyKey
        var message: DBCMessage
        var signal: DBCSignal
        var confidence: Double
        var reason: String
        /// The signal is a request (sent by `role`, or named like one).
        var isRequest: Bool
    }

    /// `dbcFile`: the DBC's file name as the profile names it (beside profile.json);
    /// `bytes`: its content (the draft is checked by loading it).
    public static func draft(_ database: DBCDatabase, dbcFile: String, bytes: [UInt8], role: String?, name: String) -> Draft {
        var candidates: [Candidate] = []
        for message in database.messages {
            let sentByRole = role.map { message.senders.contains($0) } ?? false
            for signal in message.signals where !signal.isMultiplexer {
                let words = Self.words(signal.name)
                for (key, confidence, reason) in matches(words, signal) {
                    // "Set" asks, except in "set point" (a value, reported as well as asked).
                    let setPoint = words.contains("point") || words.contains("pt")
                    let requestWords = words.contains { ["req", "rq", "cmd", "sw", "btn", "button", "request"].contains($0) || ($0 == "set" && !setPoint) }
                    let statusWords = ["disp", "disply", "stat", "stt", "sts", "status", "state", "ind", "indicator", "io", "led"]
                    let isRequest = sentByRole || (role == nil && requestWords && !words.contains { statusWords.contains($0) })
                    var score = confidence
                    if let role, signal.receivers.contains(role) { score = min(1, score + 0.1) }
                    if words.contains(where: { statusWords.contains($0) }) { score = min(1, score + 0.05) }
                    // A switch's state is a press, not the car's state.
                    if words.contains(where: { ["sw", "switch"].contains($0) }) { score -= 0.1 }
                    candidates.append(Candidate(key: key, message: message, signal: signal, confidence: score, reason: reason, isRequest: isRequest))
                }
            }
        }
        // The best status per property; requests go to the report.
        var chosen: [PropertyKey: Candidate] = [:]
        var notes: [Note] = []
        for candidate in candidates.sorted(by: { ($0.confidence, $1.message.name, $1.signal.name) > ($1.confidence, $0.message.name, $0.signal.name) }) {
            if candidate.isRequest {
                notes.append(
                    Note(
                        kind: .request, property: candidate.key.rawValue, message: candidate.message.name, signal: candidate.signal.name,
                        confidence: candidate.confidence, reason: candidate.reason + "; not bound: a command is bound once the car shows what it does"))
                continue
            }
            guard chosen[candidate.key] == nil else { continue }
            // One status signal for one property.
            if chosen.values.contains(where: { $0.message.name == candidate.message.name && $0.signal.name == candidate.signal.name }) { continue }
            chosen[candidate.key] = candidate
        }
        // Load, drop what the loader refuses, load again.
        var dropped: [Note] = []
        while true {
            // Fan levels bring the fan's on/off with them: the same signal, 0 = off. A
            // binding like any other, so the report counts and lists what the file binds.
            var bound = chosen
            if let level = chosen[.fanSpeed], chosen[.fan] == nil {
                var fan = level
                fan.key = .fan
                fan.reason = "fan on/off: the fan level's 0 is off (\(level.signal.name))"
                bound[.fan] = fan
            }
            let json = profileJSON(bound, database: database, dbcFile: dbcFile, name: name)
            let text = json.serialized()
            let files = ["draft/profile.json": Array(text.utf8), "draft/\(dbcFile)": bytes]
            do {
                _ = try ProfileLoader.load(directory: "draft") { files[$0] }
                for candidate in bound.values.sorted(by: { $0.key < $1.key }) {
                    notes.append(
                        Note(
                            kind: .bound, property: candidate.key.rawValue, message: candidate.message.name, signal: candidate.signal.name,
                            confidence: candidate.confidence, reason: candidate.reason))
                    if candidate.message.cycleTime == nil {
                        notes.append(
                            Note(
                                kind: .assumed, property: candidate.key.rawValue, message: candidate.message.name, signal: candidate.signal.name,
                                confidence: 0,
                                reason:
                                    "\(dbcFile) gives no cycle time for \(candidate.message.name): 1000 ms assumed (messages.\(candidate.message.name).cycleTimeMs)"
                            ))
                    }
                }
                let bindings = bound.mapValues { SignalReference(message: $0.message.name, signal: $0.signal.name) }
                return Draft(json: json, notes: notes + dropped, bindings: bindings)
            } catch {
                // The property named in the error's path goes; a refusal no property
                // causes leaves an empty draft (still a profile the loader takes).
                let keys = bound.keys.sorted()
                let named =
                    keys.first { error.path.contains("\"\($0.rawValue)\"") }
                    ?? keys.first { error.reason.contains("bindings[\"\($0.rawValue)\"]") }
                    ?? keys.first { error.path.contains(zonePath($0)) }
                // A refused fan on/off that came with the fan level goes with the level.
                let key = named == .fan && chosen[.fan] == nil ? .fanSpeed : named
                guard let key, let candidate = chosen.removeValue(forKey: key) else {
                    if chosen.isEmpty { return Draft(json: json, notes: notes + dropped, bindings: [:]) }
                    let first = chosen.keys.sorted()[0]
                    let removed = chosen.removeValue(forKey: first)!
                    dropped.append(
                        Note(
                            kind: .dropped, property: first.rawValue, message: removed.message.name, signal: removed.signal.name,
                            confidence: removed.confidence, reason: "\(error.path): \(error.reason)"))
                    continue
                }
                dropped.append(
                    Note(
                        kind: .dropped, property: key.rawValue, message: candidate.message.name, signal: candidate.signal.name,
                        confidence: candidate.confidence, reason: "\(error.path): \(error.reason)"))
            }
        }
    }

    /// The capability path a zone's temperature needs (`climate.temperature`).
    static func zonePath(_ key: PropertyKey) -> String { key.rawValue.hasPrefix("climate.temperature.") ? "climate" : "\u{0}" }

    /// The words of a signal name: split at `_`, digits and case changes, lowercased
    /// (`RmClmCtrlACSetReq` -> rm clm ctrl ac set req, `CF_Datc_AcDisp` -> cf datc ac disp).
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        let characters = Array(name)
        for (index, character) in characters.enumerated() {
            if character == "_" || character == " " || character.isNumber {
                if !current.isEmpty { words.append(current.lowercased()) }
                current = ""
                continue
            }
            if character.isUppercase, !current.isEmpty {
                let previousLower = current.last!.isLowercase
                let nextLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previousLower || nextLower {
                    words.append(current.lowercased())
                    current = ""
                }
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current.lowercased()) }
        return words
    }

    /// The properties a signal may report, with a confidence and the reason.
    static func matches(_ words: [String], _ signal: DBCSignal) -> [(PropertyKey, Double, String)] {
        func has(_ any: [String]) -> Bool { words.contains { any.contains($0) } }
        let unit = (signal.unit ?? "").lowercased()
        let celsiusUnit = ["degc", "°c", "deg c", "deg", "c"].contains(unit)
        let bit = signal.length == 1
        var found: [(PropertyKey, Double, String)] = []
        let joined = words.joined()
        let temperature = has(["temp", "tmp", "setpt", "tmpr"]) || (has(["set"]) && has(["point"]))
        let excluded = has(["eng", "engine", "coolant", "clnt", "oil", "cool", "evp", "htr", "core", "batt", "bat", "trans", "motor", "glss", "hmdty", "snsr"])
        if temperature, !excluded {
            if has(["out", "ots", "amb", "outside", "ext"]) {
                found.append(
                    (.outsideTemperature, celsiusUnit ? 0.8 : 0.6, "outside temperature: \(words.joined(separator: " "))\(celsiusUnit ? ", unit \(unit)" : "")")
                )
            } else if has(["incar", "cabin", "interior", "inside"]) || joined.contains("incar") {
                found.append((.cabinTemperature, celsiusUnit ? 0.8 : 0.6, "cabin temperature: \(words.joined(separator: " "))"))
            } else if has(["set", "setpt", "trgt", "target", "disp", "req", "point", "clim", "climate", "datc", "clm"]) && !unit.contains("f") {
                let zone: String
                if has(["dr", "drv", "driver", "lt", "left", "fl", "l"]) {
                    zone = "left"
                } else if has(["ps", "pass", "passenger", "rt", "right", "fr", "r"]) {
                    zone = "right"
                } else if has(["rear", "rr"]) {
                    zone = "rear"
                } else {
                    zone = "front"
                }
                let zoneKey = PropertyKey.temperature(
                    zone: has(["rear", "rr"]) && zone != "rear" ? "rear\(zone.prefix(1).uppercased())\(zone.dropFirst())" : zone)
                found.append((zoneKey, celsiusUnit ? 0.8 : 0.6, "a set temperature (\(words.joined(separator: " "))); zone from its words"))
            }
        }
        if (has(["ac", "aircon", "aircnd", "airconditioner"]) || joined.contains("aircnd") || joined.contains("aircon")) && !has(["acc"]) && signal.length <= 2
            && !has(["comp", "compressor", "cmp", "load", "ld", "prs", "flt", "fld"])
        {
            found.append((.airConditioner, bit ? 0.8 : 0.6, "A/C: \(words.joined(separator: " "))"))
        }
        if has(["blower", "blw", "fan"]) && !has(["eng", "cool", "coolant", "clnt", "batt", "rear", "rr", "radiator"]) {
            if bit {
                found.append((.fan, 0.6, "fan on/off: \(words.joined(separator: " "))"))
            } else if has(["spd", "speed", "lvl", "level", "disp", "disply", "bars", "st", "sp"]) || signal.length <= 5 {
                found.append((.fanSpeed, 0.6, "fan level: \(words.joined(separator: " "))"))
            }
        }
        if has(["auto"]) && has(["clim", "datc", "clm", "mode", "disp", "ac"]) && signal.length <= 2 && !has(["defog", "dfg", "high", "beam", "light"]) {
            found.append((.autoMode, 0.5, "automatic climate: \(words.joined(separator: " "))"))
        }
        if has(["recirc", "rcrc", "intake", "intk", "recirculation"]) && signal.length <= 3 {
            found.append((.airCirculation, 0.4, "air intake (its raw values need naming): \(words.joined(separator: " "))"))
        }
        if has(["defog", "dfg", "defrost", "defr", "def", "dfrst"]) && signal.length <= 2 && !has(["auto", "inhibit", "ihbt"]) {
            let rear = has(["rear", "rr", "back", "wnd", "window"]) && !has(["front", "fr", "windscreen", "ws", "wind"])
            found.append((PropertyKey.defroster(rear ? .rear : .front), 0.6, "\(rear ? "rear" : "front") defroster: \(words.joined(separator: " "))"))
        }
        if has(["lock", "lck", "lk", "locked"]) && signal.length <= 3
            && !has(["lockout", "steer", "clmn", "column", "feedback", "light", "keyfob", "fob", "ajar", "changed", "cyl", "inh"])
        {
            found.append(
                (
                    .locked, has(["door", "dr", "status", "stat"]) ? 0.6 : 0.4,
                    "locks: \(words.joined(separator: " ")) (which raw value means locked needs checking)"
                ))
        }
        if has(["fuel", "fl"]) && has(["lvl", "level", "pct", "percent"]) && (unit == "%" || (signal.maximum?.doubleValue ?? 0) >= 99) && !has(["warn", "low"])
        {
            found.append((.fuelPercent, unit == "%" ? 0.8 : 0.5, "fuel level in %: \(words.joined(separator: " "))"))
        }
        if (has(["dte", "disttoempty"]) || (has(["rng", "range"]) && has(["fuel", "fl", "veh", "calc", "dist"]))) && !has(["ext"]) {
            found.append((.distanceRemaining, ["km", "mi"].contains(unit) ? 0.8 : 0.6, "range: \(words.joined(separator: " "))"))
        }
        return found
    }

    /// The profile for the chosen statuses: capabilities they imply, cycle times the DBC
    /// lacks (1 s assumed), every binding read-only.
    static func profileJSON(_ chosen: [PropertyKey: Candidate], database: DBCDatabase, dbcFile: String, name: String) -> JSONValue {
        var root: [String: JSONValue] = [
            "schema": .integer(2), "name": .string(name), "carNames": .array([.string(name)]), "driverSide": .string("left"),
            "dbc": .string(dbcFile),
        ]
        let keys = chosen.keys
        // Zones with seats of their own first: "front" takes only the seats they leave.
        let order = ["left", "right", "rearLeft", "rearRight", "rear", "front"]
        let zones = keys.filter { $0.rawValue.hasPrefix("climate.temperature.") }.map { String($0.rawValue.dropFirst("climate.temperature.".count)) }
            .sorted { (order.firstIndex(of: $0) ?? order.count, $0) < (order.firstIndex(of: $1) ?? order.count, $1) }
        let climateKeys = keys.filter { $0.rawValue.hasPrefix("climate.") }
        if !climateKeys.isEmpty {
            var climate: [String: JSONValue] = [:]
            if !zones.isEmpty {
                let seats: [String: [String]] = [
                    "left": ["frontLeft"], "right": ["frontRight"], "front": ["frontLeft", "frontRight"], "rear": ["rearLeft", "rearRight"],
                    "rearLeft": ["rearLeft"], "rearRight": ["rearRight"],
                ]
                var used = Set<String>()
                climate["zones"] = .array(
                    zones.compactMap { zone in
                        let free = (seats[zone] ?? []).filter { !used.contains($0) }
                        used.formUnion(free)
                        return free.isEmpty ? nil : .object(["id": .string(zone), "seats": .array(free.map { .string($0) })])
                    })
                // Whole degrees where a zone's signal has no finer scale.
                let coarse = chosen.filter { $0.key.rawValue.hasPrefix("climate.temperature.") }.contains { $0.value.signal.scale.doubleValue >= 1 }
                climate["temperature"] = .object([
                    "celsius": .object(["min": .integer(16), "max": .integer(28), "step": coarse ? .integer(1) : .number(0.5)]),
                    "fahrenheit": .object(["min": .integer(61), "max": .integer(82), "step": .integer(1)]),
                ])
            }
            // As many levels as the level signal counts (its DBC maximum), at most 8.
            let levelSignal = chosen[.fanSpeed]?.signal
            let counted = levelSignal.flatMap { $0.unit == "%" ? 8 : $0.maximum.map { Int($0.doubleValue) } } ?? 8
            climate["fanSpeedLevels"] = .integer(keys.contains(.fanSpeed) ? max(1, min(8, counted > 0 ? counted : 8)) : 0)
            if keys.contains(.airConditioner) { climate["airConditioner"] = .bool(true) }
            if keys.contains(.autoMode) { climate["autoMode"] = .bool(true) }
            if keys.contains(.airCirculation) { climate["recirculation"] = .bool(true) }
            root["climate"] = .object(climate)
        }
        let defrosters = ["front", "rear"].filter { keys.contains(PropertyKey("defroster.\($0)")) }
        if !defrosters.isEmpty { root["defrosters"] = .array(defrosters.map { .string($0) }) }
        root["lock"] = .bool(keys.contains(.locked))
        root["power"] = .object(["fuel": .bool(keys.contains(.fuelPercent)), "battery": .bool(false)])
        root["policies"] = .object(["confirmationTimeoutMs": .integer(2000), "unreachableAfterCycles": .integer(5)])
        var messages: [String: JSONValue] = [:]
        var bindings: [String: JSONValue] = [:]
        for (key, candidate) in chosen {
            var status: [String: JSONValue] = ["message": .string(candidate.message.name), "signal": .string(candidate.signal.name)]
            if key == .fan { status["values"] = .object(["false": .integer(0)]); status["otherwise"] = .bool(true) }
            if key == .airCirculation { status["values"] = .object(["freshAir": .integer(0), "recirculateAir": .integer(1)]) }
            if key == .locked, candidate.signal.choices.isEmpty { status["values"] = .object(["false": .integer(0), "true": .integer(1)]) }
            if key == .locked, !candidate.signal.choices.isEmpty {
                let locked = candidate.signal.choices.first { $0.name.lowercased().contains("lock") && !$0.name.lowercased().contains("unlock") }
                let unlocked = candidate.signal.choices.first { $0.name.lowercased().contains("unlock") }
                if let locked, let unlocked { status["values"] = .object(["true": .string(locked.name), "false": .string(unlocked.name)]) }
            }
            if key.kind == .bool, key != .fan, key != .locked, candidate.signal.length > 1 {
                status["values"] = .object(["false": .integer(0), "true": .integer(1)])
            }
            if key == .fanSpeed, (candidate.signal.unit ?? "") == "%" { status["linear"] = .object(["factor": .number(0.08)]) }
            bindings[key.rawValue] = .object(["status": .object(status)])
            if candidate.message.cycleTime == nil { messages[candidate.message.name] = .object(["cycleTimeMs": .integer(1000)]) }
        }
        if !messages.isEmpty { root["messages"] = .object(messages) }
        root["bindings"] = .object(bindings)
        return .object(root)
    }
}
