/// A readable summary of a loaded profile (what `carplayctl profile check` prints).
public struct ProfileSummary: Sendable, CustomStringConvertible {
    public var lines: [String]

    /// What the profile leaves unprotected that looks protected: a message it binds with a
    /// signal named like a checksum or an alive counter and no `messages.<M>.protection`.
    /// Sent, such a frame carries 0 there (a real car drops it); received, it is not checked.
    public static func unprotectedWarnings(_ profile: VehicleProfile) -> [String] {
        var bound = Set<String>()
        for binding in profile.bindings.values {
            bound.insert(binding.status.message)
            if let command = binding.command { bound.insert(command.message) }
        }
        if let acknowledgement = profile.acknowledgement { bound.insert(acknowledgement.message) }
        var warnings: [String] = []
        for message in profile.database.messages where bound.contains(message.name) && profile.protection[message.name] == nil {
            let suspects = message.signals.map(\.name).filter { name in
                Self.words(of: name).contains { ["CHECKSUM", "CHKSUM", "CRC", "COUNTER", "ALIVE", "ZAEHLER"].contains($0) }
            }
            guard !suspects.isEmpty else { continue }
            warnings.append(
                "message \(message.name) has \(suspects.joined(separator: ", ")), which look like a checksum or counter, but no "
                    + "messages.\(message.name).protection: frames sent carry the DBC's default there and the car may drop them; "
                    + "frames received are not checked")
        }
        return warnings
    }

    /// Per command message, the signals its frames write that the profile does not name
    /// (no binding, companion, protection field or `defaults` entry), with the value the
    /// head unit sends there: the DBC's start value, a "NoRequest" choice or 0. A seat's
    /// mode bit left so goes out as 0 beside a fan command, and the seat module may act on it.
    public static func unboundCommandSignals(_ profile: VehicleProfile) -> [(message: String, signals: [(name: String, value: String)])] {
        let frames = VehicleFrames(profile: profile)
        let commandMessages = Set(profile.bindings.values.compactMap { $0.command?.message }).sorted()
        var found: [(message: String, signals: [(name: String, value: String)])] = []
        for name in commandMessages {
            guard let message = profile.database.message(named: name) else { continue }
            let named = profile.commandSignalsNamed(in: name)
            let namedSet = Set(named.map(\.signal))
            let written = FrameWrites.resolve(named, in: message).written
            var counters: [String: UInt8] = [:]
            guard let frame = try? frames.idleFrames(of: name, state: VehicleState(), counters: &counters).first,
                let pairs = try? message.codec.decode(frame.data, choices: true)
            else { continue }
            let decoded = Dictionary(pairs.map { ($0.name, $0.value) }) { first, _ in first }
            var signals: [(name: String, value: String)] = []
            for (index, signal) in message.signals.enumerated() where written[index] && !namedSet.contains(signal.name) && !signal.isMultiplexer {
                if let value = decoded[signal.name] { signals.append((signal.name, "\(value)")) }
            }
            if !signals.isEmpty { found.append((name, signals)) }
        }
        return found
    }

    /// The words of a signal name, upper-cased: split at `_`, digits and case changes
    /// (`DAS_bodyControlsChecksum`: DAS BODY CONTROLS CHECKSUM; `RmClmCtrlRcrcSetReq` has
    /// no CRC in it).
    static func words(of name: String) -> [String] {
        var words: [String] = []
        var current = ""
        let characters = Array(name)
        for (index, character) in characters.enumerated() {
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            let startsWord =
                !current.isEmpty
                && (character.isUppercase && (current.last!.isLowercase || (next?.isLowercase ?? false) && current.last!.isUppercase))
            if character == "_" || character.isNumber {
                if !current.isEmpty { words.append(current.uppercased()) }
                current = ""
                continue
            }
            if startsWord {
                words.append(current.uppercased())
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current.uppercased()) }
        return words
    }

    public init(_ profile: VehicleProfile) {
        var lines: [String] = []
        let database = profile.database
        lines.append("\(profile.displayName) (\(profile.identifier))")
        lines.append("car names: \(profile.carNames.joined(separator: ", ")); driver side: \(profile.driverSide.rawValue)")

        let messages = database.messages
        let extended = messages.filter(\.isExtended).count
        let fd = messages.filter(\.isFD).count
        let signals = messages.flatMap(\.signals)
        let intel = signals.filter { $0.byteOrder == .littleEndian }.count
        let ids = extended == messages.count ? "29-bit IDs" : extended == 0 ? "11-bit IDs" : "\(extended) extended, \(messages.count - extended) standard IDs"
        let orders = intel == signals.count ? "Intel byte order" : intel == 0 ? "Motorola byte order" : "Intel and Motorola byte order"
        lines.append("DBC: \(database.source): \(messages.count) messages (\(ids), \(fd) CAN FD), \(signals.count) signals, \(orders)")
        for message in messages {
            var facts = ["0x\(String(message.frameID, radix: 16, uppercase: true))\(message.isExtended ? " (extended)" : "")", "\(message.length) bytes"]
            if message.isFD { facts.append("CAN FD") }
            // The cycle time in force: the profile's (messages.<M>.cycleTimeMs) before the DBC's.
            if let cycle = profile.cycleTime(of: message) {
                let ms = cycle.components.seconds * 1000 + cycle.components.attoseconds / 1_000_000_000_000_000
                facts.append("every \(ms) ms" + (profile.messages[message.name]?.cycleTime != nil ? " (profile)" : ""))
            }
            if let protection = profile.protection[message.name] { facts.append(protection.protection.scheme.name) }
            let carried = profile.bindings.filter { $0.value.command?.message == message.name || $0.value.status.message == message.name }.keys.sorted()
            let role =
                profile.acknowledgement?.message == message.name
                ? "; acknowledgement" : carried.isEmpty ? "" : "; \(carried.map(\.rawValue).joined(separator: ", "))"
            lines.append("  \(message.name): \(facts.joined(separator: ", "))\(role)")
        }

        let statusOnly = profile.bindings.keys.filter(\.isStatusOnly).count
        let commanded = profile.bindings.values.filter { $0.command != nil }.count
        var kinds: [PropertyCommand.Kind: Int] = [:]
        for binding in profile.bindings.values { if let command = binding.command { kinds[command.kind, default: 0] += 1 } }
        let byKind = kinds.keys.sorted().map { "\(kinds[$0]!) \($0.rawValue)" }.joined(separator: ", ")
        lines.append(
            "bound properties: \(profile.bindings.count): \(commanded) commanded\(byKind.isEmpty ? "" : " (\(byKind))"), "
                + "\(profile.bindings.count - commanded - statusOnly) read-only, \(statusOnly) status only")
        if let climate = profile.climate {
            func listed(_ zones: [ClimateZone]) -> String {
                zones.map { "\($0.id) (\($0.seats.map(\.rawValue).joined(separator: ", ")))" }.joined(separator: "; ")
            }
            lines.append("climate zones: \(climate.zones.count)\(climate.zones.isEmpty ? " (no temperature)" : ": " + listed(climate.zones))")
            var features = climate.fanSpeedLevels > 0 ? ["fan levels 1...\(climate.fanSpeedLevels)"] : ["no fan levels"]
            if climate.airConditioner { features.append("A/C") }
            if climate.autoMode { features.append("auto") }
            if climate.recirculation { features.append("recirculation") }
            if climate.climateControl { features.append("on/off") }
            if !climate.climateControlZones.isEmpty { features.append("on/off per zone: \(listed(climate.climateControlZones))") }
            var ranges = ""
            if let celsius = climate.celsius, let fahrenheit = climate.fahrenheit {
                ranges =
                    "\(celsius.min.plainText())...\(celsius.max.plainText()) °C step \(celsius.step.plainText()), "
                    + "\(fahrenheit.min.plainText())...\(fahrenheit.max.plainText()) °F step \(fahrenheit.step.plainText()); "
            }
            lines.append("  " + ranges + features.joined(separator: ", "))
        } else {
            lines.append("climate zones: none")
        }
        lines.append("defrosters: \(profile.defrosters.isEmpty ? "none" : profile.defrosters.map(\.rawValue).joined(separator: ", "))")
        let seats = profile.seats.map { seat -> String in
            let features = SeatFeature.allCases.filter { seat.maximum($0) > 0 }.map { "\($0.rawValue) \(seat.maximum($0))" }
            return "\(seat.seat.rawValue) (\(features.isEmpty ? "no features" : features.joined(separator: ", ")))"
        }
        lines.append("seats: \(profile.seats.count): \(seats.joined(separator: "; "))")
        if let radio = profile.radio {
            let bands = radio.bands.map {
                "\($0.type.rawValue) \($0.range.min.plainText())...\($0.range.max.plainText()) \($0.unit) step \($0.range.step.plainText())"
            }
            lines.append("radio bands: \(radio.bands.count): \(bands.joined(separator: "; "))")
            lines.append(
                "  \(radio.presets.count) presets, \(radio.stations.count) stations, satellite \(radio.satelliteSubscribed ? "subscribed" : "not subscribed")")
        } else {
            lines.append("radio bands: none")
        }
        lines.append("audio sources: \(profile.audioSources.count): \(profile.audioSources.map(\.rawValue).joined(separator: ", "))")
        lines.append("profile slots: \(profile.carProfileSlots)")
        // Car Commands the head unit can send, apart from what the car only reports.
        var commands: [String] = []
        var reported: [String] = []
        if profile.hasLock {
            if profile.isReadOnly(.locked) { reported.append("lock") } else { commands.append("lock") }
        }
        for signal in profile.carSignals {
            if profile.isReadOnly(.signal(signal)) { reported.append("signal \(signal.rawValue)") } else { commands.append("signal \(signal.rawValue)") }
        }
        if profile.power.fuel { reported.append("fuel") }
        if profile.power.battery { reported.append("battery") }
        lines.append("car commands: \(commands.isEmpty ? "none" : commands.joined(separator: ", "))")
        lines.append("reported only: \(reported.isEmpty ? "none" : reported.joined(separator: ", "))")
        let policies = profile.policies
        let timeout = policies.confirmationTimeout.components
        let milliseconds = timeout.seconds * 1000 + timeout.attoseconds / 1_000_000_000_000_000
        lines.append(
            "policies: refused while the car is locked: \(policies.refusedWhileCarLocked.isEmpty ? "nothing" : policies.refusedWhileCarLocked.sorted().joined(separator: ", "))"
        )
        lines.append("  confirmation timeout \(milliseconds) ms, unreachable after \(policies.unreachableAfterCycles) cycles")
        lines.append("protected: \(profile.protection.count) messages; acknowledgement: \(profile.acknowledgement?.message ?? "none")")
        let unbound = Self.unboundCommandSignals(profile)
        if !unbound.isEmpty {
            lines.append("command frames also carry, in every frame, signals no binding writes (a module reading them acts on these values;")
            lines.append("  say what they must carry in messages.<M>.defaults):")
            for (message, signals) in unbound {
                lines.append("  \(message): \(signals.map { "\($0.name) = \($0.value)" }.joined(separator: ", "))")
            }
        }
        self.lines = lines
    }

    public var description: String { lines.joined(separator: "\n") }
}
