import CANKit

/// Maps vehicle state onto a profile's frames and back, for both ends of the bus:
/// the head unit (commands out, status in) and the vehicle (commands in, status out).
/// Pure: alive counters and E2E checkers are the caller's state, passed `inout`.
public struct VehicleFrames: Sendable {
    public let profile: VehicleProfile

    /// A message that carries command signals.
    struct CommandMessage: Sendable {
        var message: DBCMessage
        /// Property -> command signal, for the properties this message sets.
        var properties: [PropertyKey: String]
        /// Every signal's input when it carries no request (E2E signals start at 0).
        var idleInputs: [String: SignalInput]
        /// Signal -> the raw value meaning "no request".
        var idleRaw: [String: Int128]
    }

    /// A message that reports state.
    public struct StatusMessage: Sendable {
        public var message: DBCMessage
        /// Property -> status signal.
        public var properties: [PropertyKey: String]
        /// `GenMsgCycleTime`; nil when the DBC gives none (sent on change only).
        public var cycleTime: Duration?
    }

    let commands: [String: CommandMessage]
    public let statusMessages: [String: StatusMessage]
    private let commandIDs: [CANID: String]
    private let statusIDs: [CANID: String]
    private let acknowledgementID: CANID?

    public init(profile: VehicleProfile) {
        self.profile = profile
        var commandProperties: [String: [PropertyKey: String]] = [:]
        var statusProperties: [String: [PropertyKey: String]] = [:]
        var idleRaw: [String: [String: Int128]] = [:]
        for (key, binding) in profile.bindings {
            if let command = binding.command {
                commandProperties[command.message, default: [:]][key] = command.signal
                if let idle = binding.idleRawValue { idleRaw[command.message, default: [:]][command.signal] = idle }
            }
            statusProperties[binding.status.message, default: [:]][key] = binding.status.signal
        }
        var commands: [String: CommandMessage] = [:]
        var commandIDs: [CANID: String] = [:]
        for (name, properties) in commandProperties {
            guard let message = profile.database.message(named: name) else { continue }
            let e2e = profile.e2e[name]
            var inputs: [String: SignalInput] = [:]
            for signal in message.signals {
                if signal.name == e2e?.crcSignal || signal.name == e2e?.counterSignal {
                    inputs[signal.name] = message.codec.input(forRaw: 0, signal: signal.name)
                } else if let raw = idleRaw[name]?[signal.name] {
                    inputs[signal.name] = message.codec.input(forRaw: raw, signal: signal.name)
                } else {
                    // A signal no binding uses: its "NoRequest" choice, its start value, or 0.
                    let raw = signal.choiceValue(named: "NoRequest") ?? signal.initialRawValue?.integralValue ?? 0
                    inputs[signal.name] = message.codec.input(forRaw: raw, signal: signal.name)
                }
            }
            commands[name] = CommandMessage(message: message, properties: properties, idleInputs: inputs, idleRaw: idleRaw[name] ?? [:])
            commandIDs[message.canID] = name
        }
        var status: [String: StatusMessage] = [:]
        var statusIDs: [CANID: String] = [:]
        for (name, properties) in statusProperties {
            guard let message = profile.database.message(named: name) else { continue }
            status[name] = StatusMessage(
                message: message, properties: properties,
                cycleTime: message.cycleTime.map { Duration.milliseconds($0) })
            statusIDs[message.canID] = name
        }
        self.commands = commands
        self.statusMessages = status
        self.commandIDs = commandIDs
        self.statusIDs = statusIDs
        self.acknowledgementID = profile.acknowledgement.flatMap { profile.database.message(named: $0.message)?.canID }
    }

    // MARK: - Values <-> signals

    /// The band a frequency is in, from `state` (the same frame's values or the known state).
    private func band(in state: VehicleState) -> RadioBand? {
        guard case let .enumeration(name)? = state[.radioBand], let type = RadioType(rawValue: name) else { return nil }
        return profile.radio?.band(type)
    }

    /// The signal input that carries `value` for `key`. `context` supplies what the
    /// mapping depends on: the radio band of a frequency whose signal has its own unit.
    func input(for value: PropertyValue, key: PropertyKey, context: VehicleState = VehicleState()) -> SignalInput? {
        let binding = profile.bindings[key]
        let values = binding?.values ?? [:]
        if key == .radioFrequency, let binding, binding.signalUnit != nil, let number = value.doubleValue, let band = band(in: context) {
            return .float(binding.signalValue(frequency: number, band: band))
        }
        switch value {
        case let .bool(flag):
            if let choice = values[flag ? "true" : "false"] { return .choice(choice) }
            return .integer(flag ? 1 : 0)
        case let .enumeration(name):
            return values[name].map { .choice($0) }
        case let .integer(number):
            return .integer(Int128(number))
        case let .number(number):
            return .float(number)
        }
    }

    /// The property value a decoded signal value stands for; nil for values that are
    /// no state (a "NoRequest" / "Invalid" choice, an unmapped choice).
    func propertyValue(_ value: SignalValue, key: PropertyKey, context: VehicleState = VehicleState()) -> PropertyValue? {
        guard let kind = key.kind else { return nil }
        if key == .radioFrequency, let binding = profile.bindings[key], binding.signalUnit != nil {
            if case .choice = value { return nil }
            guard let band = band(in: context) else { return nil }
            return .number(binding.frequency(signalValue: value.doubleValue, band: band))
        }
        let values = profile.bindings[key]?.values ?? [:]
        switch kind {
        case .bool:
            if case let .choice(name, _) = value {
                if values["true"] == name { return .bool(true) }
                if values["false"] == name { return .bool(false) }
                return nil
            }
            return .bool(value.doubleValue != 0)
        case .enumeration:
            guard case let .choice(name, _) = value else { return nil }
            return values.first { $0.value == name }.map { .enumeration($0.key) }
        case .integer:
            if case .choice = value { return nil }
            return .integer(Int(value.doubleValue.rounded()))
        case .number:
            if case .choice = value { return nil }
            return .number(value.doubleValue)
        }
    }

    /// What the status signal of `key` will report once the vehicle holds `value`:
    /// the value as the signal's scaling quantizes it (21.3 °C in 0.5 steps reads 21.5).
    public func reportedValue(_ value: PropertyValue, for key: PropertyKey, context: VehicleState = VehicleState()) -> PropertyValue? {
        guard let binding = profile.bindings[key], let input = input(for: value, key: key, context: context),
              let message = profile.database.message(named: binding.status.message),
              let carried = message.codec.roundTrip(input, signal: binding.status.signal)
        else { return nil }
        return propertyValue(carried, key: key, context: context)
    }

    // MARK: - Head unit side

    /// One command frame per command message involved, each carrying the targets it
    /// binds and "no request" everywhere else, E2E-protected with the next alive counter.
    /// `context` is the vehicle's current state (for a frequency without a band in `targets`).
    public func commandFrames(for targets: [PropertyKey: PropertyValue], context: VehicleState = VehicleState(), counters: inout [String: UInt8]) throws(VehicleFramesError) -> [CANFrame] {
        var byMessage: [String: [String: SignalInput]] = [:]
        var merged = context
        for (key, value) in targets { merged[key] = value }
        for (key, value) in targets {
            guard let binding = profile.bindings[key], let command = binding.command else { throw .notCommandable(key) }
            guard let input = input(for: value, key: key, context: merged) else { throw .unmappedValue(key, value) }
            byMessage[command.message, default: [:]][command.signal] = input
        }
        var frames: [CANFrame] = []
        for name in byMessage.keys.sorted() {
            guard let command = commands[name] else { throw .unknownMessage(name) }
            var values = command.idleInputs
            for (signal, input) in byMessage[name]! { values[signal] = input }
            frames.append(try frame(for: command.message, values: values, counters: &counters))
        }
        return frames
    }

    /// Reads a frame the vehicle sent: status values, an acknowledgement, or why it
    /// is not trusted.
    /// `context` is the last known state (for a frequency whose band is in another frame).
    public func decodeFromVehicle(_ frame: CANFrame, context: VehicleState = VehicleState(), checkers: inout [String: E2EChecker]) -> VehicleFrameContent {
        if frame.id == acknowledgementID, let ack = profile.acknowledgement, let message = profile.database.message(named: ack.message) {
            if let failure = check(frame, message: message, checkers: &checkers) { return failure }
            guard let decoded = try? message.codec.decode(frame.data) else { return .undecodable(message.name) }
            var id: UInt32?
            var counter: UInt8?
            var result: String?
            for (name, value) in decoded {
                if name == ack.commandIDSignal { id = UInt32(exactly: value.doubleValue) }
                if name == ack.counterSignal { counter = UInt8(exactly: value.doubleValue) }
                if name == ack.resultSignal { result = value.description }
            }
            guard let id, let counter, let result else { return .undecodable(message.name) }
            return .acknowledgement(Acknowledgement(commandFrameID: id, counter: counter, result: result, accepted: result == ack.acceptedChoice))
        }
        guard let name = statusIDs[frame.id], let status = statusMessages[name] else { return .unrelated }
        if let failure = check(frame, message: status.message, checkers: &checkers) { return failure }
        guard let decoded = try? status.message.codec.decode(frame.data) else { return .undecodable(name) }
        return .status(message: name, values: propertyValues(decoded, signals: status.properties, context: context).values)
    }

    /// Decoded signals to property values; a frequency is read in the band of the same
    /// frame, else of `context`.
    private func propertyValues(_ decoded: [(name: String, value: SignalValue)], signals: [PropertyKey: String], context: VehicleState) -> (values: [PropertyKey: PropertyValue], unreadable: [PropertyKey]) {
        let bySignal = Dictionary(signals.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var values: [PropertyKey: PropertyValue] = [:]
        var unreadable: [PropertyKey] = []
        var deferred: [(PropertyKey, SignalValue)] = []
        for (signal, value) in decoded {
            guard let key = bySignal[signal] else { continue }
            if key == .radioFrequency { deferred.append((key, value)); continue }
            if let property = propertyValue(value, key: key) { values[key] = property } else { unreadable.append(key) }
        }
        var merged = context
        for (key, value) in values { merged[key] = value }
        for (key, value) in deferred {
            if let property = propertyValue(value, key: key, context: merged) { values[key] = property } else { unreadable.append(key) }
        }
        return (values, unreadable.sorted())
    }

    // MARK: - Vehicle side

    /// Reads a frame the head unit sent: the properties it asks to change (signals at
    /// their "no request" value are left out).
    /// `context` is the vehicle's state (for a frequency whose band the command does not change).
    public func decodeFromHeadUnit(_ frame: CANFrame, context: VehicleState = VehicleState(), checkers: inout [String: E2EChecker]) -> HeadUnitFrameContent {
        guard let name = commandIDs[frame.id], let command = commands[name] else { return .unrelated }
        if let failure = check(frame, message: command.message, checkers: &checkers) {
            if case let .e2eError(message, status) = failure { return .e2eError(message: message, status: status) }
            return .undecodable(name)
        }
        let decoded: [(name: String, value: SignalValue)]
        do { decoded = try command.message.codec.decode(frame.data, choices: true) } catch { return .undecodable(name) }
        // Signals at their "no request" raw value ask for nothing. A choice carries its raw
        // value; only an idle value without a choice needs the raw decode.
        var raw: [String: Int128]?
        let requested = decoded.filter { signal, value in
            guard let idle = command.idleRaw[signal] else { return true }
            if case let .choice(_, rawValue) = value { return rawValue != idle }
            if raw == nil {
                raw = [:]
                for (name, plain) in (try? command.message.codec.decode(frame.data, choices: false)) ?? [] {
                    if case let .integer(number) = plain { raw?[name] = number }
                }
            }
            return raw?[signal] != idle
        }
        let (changes, unreadable) = propertyValues(requested, signals: command.properties, context: context)
        let counter = profile.e2e[name].map { $0.protection.counter(in: frame.data) }
        return .command(HeadUnitCommand(message: name, id: frame.id, counter: counter, changes: changes, unreadable: unreadable))
    }

    /// The status frame `name` reporting `state` (properties the state lacks are sent
    /// as the signal's "no request"/invalid value, or 0).
    public func statusFrame(_ name: String, state: VehicleState, counters: inout [String: UInt8]) throws(VehicleFramesError) -> CANFrame {
        guard let status = statusMessages[name] else { throw .unknownMessage(name) }
        var values: [String: SignalInput] = [:]
        for signal in status.message.signals {
            let raw = signal.choiceValue(named: "NoRequest") ?? signal.choiceValue(named: "Invalid") ?? signal.initialRawValue?.integralValue ?? 0
            values[signal.name] = status.message.codec.input(forRaw: raw, signal: signal.name)
        }
        for (key, signal) in status.properties {
            if let value = state[key], let input = input(for: value, key: key, context: state) { values[signal] = input }
        }
        return try frame(for: status.message, values: values, counters: &counters)
    }

    /// The acknowledgement of a command frame, or nil when the profile has none.
    public func acknowledgementFrame(for command: HeadUnitCommand, result: String, counters: inout [String: UInt8]) throws(VehicleFramesError) -> CANFrame? {
        guard let ack = profile.acknowledgement, let message = profile.database.message(named: ack.message) else { return nil }
        var values: [String: SignalInput] = [:]
        for signal in message.signals { values[signal.name] = message.codec.input(forRaw: 0, signal: signal.name) }
        values[ack.commandIDSignal] = .integer(Int128(command.id.rawValue))
        values[ack.counterSignal] = .integer(Int128(command.counter ?? 0))
        values[ack.resultSignal] = .choice(result)
        return try frame(for: message, values: values, counters: &counters)
    }

    // MARK: - Shared

    /// Encodes, pads CAN FD payloads to a valid length, and applies E2E protection.
    private func frame(for message: DBCMessage, values: [String: SignalInput], counters: inout [String: UInt8]) throws(VehicleFramesError) -> CANFrame {
        var payload: [UInt8]
        do { payload = try message.codec.encode(values) } catch { throw .encoding(message.name, error) }
        if let e2e = profile.e2e[message.name] {
            let counter = counters[message.name] ?? 0
            do { try e2e.protection.protect(&payload, counter: counter) } catch { throw .protection(message.name, error.description) }
            counters[message.name] = E2EProtection.nextCounter(after: counter)
        }
        do {
            if message.isFD {
                let length = CANFrame.fdLength(atLeast: payload.count) ?? 64
                payload += [UInt8](repeating: 0, count: length - payload.count)
                return try CANFrame(id: message.canID, data: payload, kind: .fd(bitRateSwitch: true, errorStateIndicator: false))
            }
            return try CANFrame(id: message.canID, data: payload)
        } catch {
            throw .protection(message.name, error.description)
        }
    }

    /// The E2E verdict for a received frame of `message`; nil when it is trusted.
    private func check(_ frame: CANFrame, message: DBCMessage, checkers: inout [String: E2EChecker]) -> VehicleFrameContent? {
        guard let e2e = profile.e2e[message.name] else { return nil }
        var checker = checkers[message.name] ?? E2EChecker(protection: e2e.protection)
        let status = checker.check(Array(frame.data.prefix(message.length)))
        checkers[message.name] = checker
        if case .ok = status { return nil }
        return .e2eError(message: message.name, status: status)
    }
}

/// What a frame from the vehicle says.
public enum VehicleFrameContent: Sendable, Hashable {
    /// Reported values of a status message.
    case status(message: String, values: [PropertyKey: PropertyValue])
    case acknowledgement(Acknowledgement)
    /// Not trusted: wrong CRC, repeated or skipped alive counter.
    case e2eError(message: String, status: E2EStatus)
    case undecodable(String)
    /// Not a frame of this profile's vehicle.
    case unrelated
}

public struct Acknowledgement: Sendable, Hashable {
    public var commandFrameID: UInt32
    public var counter: UInt8
    /// The DBC choice name of the result.
    public var result: String
    public var accepted: Bool
}

/// A command the vehicle received.
public struct HeadUnitCommand: Sendable, Hashable {
    public var message: String
    public var id: CANID
    public var counter: UInt8?
    /// The properties the frame asks to change.
    public var changes: [PropertyKey: PropertyValue]
    /// Properties whose signal carried a value that maps to no state (an unmapped choice).
    public var unreadable: [PropertyKey]
}

/// What a frame from the head unit says.
public enum HeadUnitFrameContent: Sendable, Hashable {
    case command(HeadUnitCommand)
    case e2eError(message: String, status: E2EStatus)
    case undecodable(String)
    case unrelated
}

public enum VehicleFramesError: Error, Sendable, CustomStringConvertible {
    case notCommandable(PropertyKey)
    case unmappedValue(PropertyKey, PropertyValue)
    case unknownMessage(String)
    case encoding(String, DBCEncodeError)
    case protection(String, String)

    public var description: String {
        switch self {
        case let .notCommandable(key): "\(key) has no command signal in this vehicle"
        case let .unmappedValue(key, value): "\(key) = \(value) has no DBC value in this vehicle"
        case let .unknownMessage(name): "no message \(name)"
        case let .encoding(name, error): "cannot encode \(name): \(error)"
        case let .protection(name, reason): "cannot build frame \(name): \(reason)"
        }
    }
}
