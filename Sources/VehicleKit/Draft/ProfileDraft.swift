import CANKit
import CarplayJSON

/// `carplayctl profile draft`: a starting schema-2 profile from a DBC alone. Pure: the
/// DBC in, the profile's JSON and a report out.
///
/// Each signal name is read word by word (`DraftVocabulary.swift`: snake_case, camelCase,
/// compounds; English, German and French, `Temp`/`Tmp`/`SetPt`, `AC`/`AirCnd`, `Defog`/`Dfg`,
/// `Blower`/`Blw`/`Geblaese`, `Lock`/`Lk`/`Verriegelung`, `Fuel`/`Fl`/`Kraftstoff`,
/// `DTE`/`Reichweite`/`autonomie`, ...), then matched to the properties of the vocabulary
/// by those words, its unit, range, size and value table (`DraftRules.swift`). Every
/// binding is a **status**: a command is not bound, because nothing in a DBC shows that the
/// car would confirm it; the report lists the request signals it found, for the user to
/// bind once the car has shown what they do. The draft passes `profile check`: a binding
/// the loader refuses is dropped, with its reason.
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
        /// How the status reads the signal (`values`, `otherwise`, `linear`), and for a seat
        /// feature its highest level.
        var status: [String: JSONValue] = [:]
        var levels: Int?
    }

    /// `dbcFile`: the DBC's file name as the profile names it (beside profile.json);
    /// `bytes`: its content (the draft is checked by loading it).
    public static func draft(_ database: DBCDatabase, dbcFile: String, bytes: [UInt8], role: String?, name: String) -> Draft {
        var candidates: [Candidate] = []
        let language = Self.language(of: database)
        for message in database.messages {
            let sentByRole = role.map { message.senders.contains($0) } ?? false
            let context = read(message.name, language: language)
            // A steering, brake or camera message's signals are that system's.
            if context.has(.other) { continue }
            for signal in message.signals where !signal.isMultiplexer {
                let name = read(signal.name, language: language)
                // GMLAN's validity bit `<Signal>V` beside its signal is a qualifier.
                if name.words.last == "v", message.signals.contains(where: { $0.name == String(signal.name.dropLast()) }) { continue }
                for match in matches(name, signal, context: context) {
                    // Named as a request or a press, or in a request's or a switch's message.
                    let asked = (name.hasAny(.request, .press) || (context.hasAny(.request, .press) && !context.has(.status))) && !name.has(.status)
                    let isRequest = sentByRole || (role == nil && asked)
                    var score = match.confidence
                    if let role, signal.receivers.contains(role) { score = min(1, score + 0.1) }
                    if name.has(.status) { score = min(1, score + 0.05) }
                    // A switch's state is a press, not the car's state; a raw sensor, a second
                    // tank, a status in a request message, a negated name come after the plain one.
                    if name.has(.press) { score -= 0.1 }
                    if name.has(.sensor) || name.has(.secondary) || context.has(.secondary) { score -= 0.1 }
                    if context.has(.request), !context.has(.status) { score -= 0.1 }
                    if name.has(.negation) { score -= 0.05 }
                    candidates.append(
                        Candidate(
                            key: match.key, message: message, signal: signal, confidence: score, reason: match.reason, isRequest: isRequest,
                            status: match.status, levels: match.levels))
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
        var dropped: [Note] = []
        let (json, bound) = loadable(chosen, database: database, dbcFile: dbcFile, bytes: bytes, name: name) { candidate, reason in
            dropped.append(
                Note(
                    kind: .dropped, property: candidate.key.rawValue, message: candidate.message.name, signal: candidate.signal.name,
                    confidence: candidate.confidence, reason: reason))
        }
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
    }

    /// The profile of `chosen` as the loader takes it: load, drop the binding the loader
    /// refuses (told to `dropped` with the loader's reason), load again. What is left and
    /// its JSON; an empty profile when nothing is (still one the loader takes).
    static func loadable(
        _ chosen: [PropertyKey: Candidate], database: DBCDatabase, dbcFile: String, bytes: [UInt8], name: String,
        dropped: (Candidate, String) -> Void
    ) -> (json: JSONValue, bound: [PropertyKey: Candidate]) {
        var chosen = chosen
        while true {
            // Fan levels bring the fan's on/off with them: the same signal, 0 = off. A
            // binding like any other, so the report counts and lists what the file binds.
            var bound = chosen
            if let level = chosen[.fanSpeed], chosen[.fan] == nil {
                var fan = level
                fan.key = .fan
                fan.reason = "fan on/off: the fan level's 0 is off (\(level.signal.name))"
                fan.status = ["values": .object(["false": .integer(0)]), "otherwise": .bool(true)]
                bound[.fan] = fan
            }
            let json = profileJSON(bound, database: database, dbcFile: dbcFile, name: name)
            let text = json.serialized()
            let files = ["draft/profile.json": Array(text.utf8), "draft/\(dbcFile)": bytes]
            do {
                _ = try ProfileLoader.load(directory: "draft") { files[$0] }
                return (json, bound)
            } catch {
                // The property named in the error's path goes; a refusal no property
                // causes drops the first, until none is left.
                let keys = bound.keys.sorted()
                let named =
                    keys.first { error.path.contains("\"\($0.rawValue)\"") }
                    ?? keys.first { error.reason.contains("bindings[\"\($0.rawValue)\"]") }
                    ?? keys.first { error.path.contains(zonePath($0)) }
                // A refused fan on/off that came with the fan level goes with the level.
                let key = named == .fan && chosen[.fan] == nil ? .fanSpeed : named
                guard let key, let candidate = chosen.removeValue(forKey: key) else {
                    if chosen.isEmpty { return (json, [:]) }
                    let first = chosen.keys.sorted()[0]
                    dropped(chosen.removeValue(forKey: first)!, "\(error.path): \(error.reason)")
                    continue
                }
                dropped(candidate, "\(error.path): \(error.reason)")
            }
        }
    }

    /// The capability path a zone's temperature needs (`climate.temperature`).
    static func zonePath(_ key: PropertyKey) -> String { key.rawValue.hasPrefix("climate.temperature.") ? "climate" : "\u{0}" }

    /// The words of a signal name: split at `_`, digits, other punctuation and case
    /// changes, lowercased, umlauts and accents written out (`Gebläse` -> geblaese,
    /// `dégivrage` -> degivrage; `RmClmCtrlACSetReq` -> rm clm ctrl ac set req).
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        let characters = Array(name)
        for (index, character) in characters.enumerated() {
            if !character.isLetter {
                if !current.isEmpty { words.append(fold(current)) }
                current = ""
                continue
            }
            if character.isUppercase, !current.isEmpty {
                let previousLower = current.last!.isLowercase
                let nextLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previousLower || nextLower {
                    words.append(fold(current))
                    current = ""
                }
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(fold(current)) }
        return words
    }

    /// Lowercase, German umlauts as `ae` `oe` `ue` `ss`, French accents dropped.
    static func fold(_ word: String) -> String {
        let spelled: [Character: String] = [
            "ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "é": "e", "è": "e", "ê": "e", "ë": "e", "à": "a", "â": "a", "î": "i", "ï": "i",
            "ô": "o", "û": "u", "ù": "u", "ç": "c",
        ]
        return word.lowercased().map { spelled[$0] ?? String($0) }.joined()
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
        let order = ["left", "right", "frontLeft", "frontRight", "rearLeft", "rearRight", "rear", "front"]
        let zones = keys.filter { $0.rawValue.hasPrefix("climate.temperature.") }.map { String($0.rawValue.dropFirst("climate.temperature.".count)) }
            .sorted { (order.firstIndex(of: $0) ?? order.count, $0) < (order.firstIndex(of: $1) ?? order.count, $1) }
        let climateKeys = keys.filter { $0.rawValue.hasPrefix("climate.") }
        if !climateKeys.isEmpty {
            var climate: [String: JSONValue] = [:]
            if !zones.isEmpty {
                let seats: [String: [String]] = [
                    "left": ["frontLeft"], "right": ["frontRight"], "front": ["frontLeft", "frontRight"], "rear": ["rearLeft", "rearRight"],
                    "frontLeft": ["frontLeft"], "frontRight": ["frontRight"], "rearLeft": ["rearLeft"], "rearRight": ["rearRight"],
                    "thirdRowLeft": ["thirdRowLeft"], "thirdRowRight": ["thirdRowRight"],
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
            climate["fanSpeedLevels"] = .integer(chosen[.fanSpeed]?.levels ?? 0)
            if keys.contains(.airConditioner) { climate["airConditioner"] = .bool(true) }
            if keys.contains(.autoMode) { climate["autoMode"] = .bool(true) }
            if keys.contains(.airCirculation) { climate["recirculation"] = .bool(true) }
            if keys.contains(.climateControl) { climate["climateControl"] = .bool(true) }
            if keys.contains(.climateControl(zone: "rear")) {
                climate["climateControlZones"] = .array([.object(["id": .string("rear"), "seats": .array([.string("rearLeft"), .string("rearRight")])])])
            }
            root["climate"] = .object(climate)
        }
        let defrosters = ["front", "rear"].filter { keys.contains(PropertyKey("defroster.\($0)")) }
        if !defrosters.isEmpty { root["defrosters"] = .array(defrosters.map { .string($0) }) }
        // Each seat with the highest level of each feature found.
        var seats: [String: [String: JSONValue]] = [:]
        for seat in CarSeat.physical {
            for feature in SeatFeature.allCases {
                if let levels = chosen[.seat(seat, feature)]?.levels {
                    seats[seat.rawValue, default: ["seat": .string(seat.rawValue)]][feature.rawValue] = .integer(levels)
                }
            }
        }
        if !seats.isEmpty { root["seats"] = .array(CarSeat.physical.compactMap { seats[$0.rawValue].map { .object($0) } }) }
        let signals = CarSignal.allCases.filter { keys.contains(.signal($0)) }
        if !signals.isEmpty { root["carSignals"] = .array(signals.map { .string($0.rawValue) }) }
        root["lock"] = .bool(keys.contains(.locked))
        let battery: Set<PropertyKey> = [
            .chargePercent, .charging, .minutesToFull, .distanceRemainingElectric, .maximumDistanceElectric, .minimumBatteryCapacity,
            .currentBatteryCapacity, .maximumBatteryCapacity, .activeConnector,
        ]
        root["power"] = .object(["fuel": .bool(keys.contains(.fuelPercent)), "battery": .bool(keys.contains(where: battery.contains))])
        root["policies"] = .object(["confirmationTimeoutMs": .integer(2000), "unreachableAfterCycles": .integer(5)])
        var messages: [String: JSONValue] = [:]
        var bindings: [String: JSONValue] = [:]
        for (key, candidate) in chosen {
            var status = candidate.status
            status["message"] = .string(candidate.message.name)
            status["signal"] = .string(candidate.signal.name)
            bindings[key.rawValue] = .object(["status": .object(status)])
            if candidate.message.cycleTime == nil { messages[candidate.message.name] = .object(["cycleTimeMs": .integer(1000)]) }
        }
        if !messages.isEmpty { root["messages"] = .object(messages) }
        root["bindings"] = .object(bindings)
        return .object(root)
    }
}
