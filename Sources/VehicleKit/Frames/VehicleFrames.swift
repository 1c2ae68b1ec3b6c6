import CANKit

/// Maps vehicle state onto a profile's frames and back, for both ends of the bus:
/// the head unit (commands out, status in) and the vehicle (commands in, status out).
/// Pure: alive counters and E2E checkers are the caller's state, passed `inout`.
///
/// Everything a frame needs from the profile is resolved once, in `init` (`FramePlan`):
/// messages and signals by index, each property's kind and value mappings, the "no
/// request" inputs already scaled. Per frame, the only strings hashed are the property
/// keys and the caller's counter / checker entries.
public struct VehicleFrames: Sendable {
    public let profile: VehicleProfile

    /// A message that carries command signals.
    struct CommandMessage: Sendable {
        var message: DBCMessage
        /// Property -> command signal, for the properties this message sets.
        var properties: [PropertyKey: String]
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
    let plan: FramePlan

    public init(profile: VehicleProfile) {
        self.profile = profile
        var commandProperties: [String: [PropertyKey: String]] = [:]
        var statusProperties: [String: [PropertyKey: String]] = [:]
        for (key, binding) in profile.bindings {
            if let command = binding.command {
                commandProperties[command.message, default: [:]][key] = command.signal
            }
            statusProperties[binding.status.message, default: [:]][key] = binding.status.signal
        }
        var commands: [String: CommandMessage] = [:]
        for (name, properties) in commandProperties {
            guard let message = profile.database.message(named: name) else { continue }
            commands[name] = CommandMessage(message: message, properties: properties)
        }
        var status: [String: StatusMessage] = [:]
        for (name, properties) in statusProperties {
            guard let message = profile.database.message(named: name) else { continue }
            status[name] = StatusMessage(
                message: message, properties: properties,
                cycleTime: message.cycleTime.map { Duration.milliseconds($0) })
        }
        self.commands = commands
        self.statusMessages = status
        self.plan = FramePlan(profile: profile, commands: commands, statusMessages: status)
    }

    // MARK: - Values <-> signals

    /// The band a frequency is in, from the band property's value (of the same frame or
    /// the known state).
    private func band(_ value: PropertyValue?) -> RadioBand? {
        guard case let .enumeration(name)? = value, let type = RadioType(rawValue: name) else { return nil }
        return profile.radio?.band(type)
    }

    /// The signal input that carries `value` for `key`. `band` supplies what the
    /// mapping depends on: the radio band of a frequency whose signal has its own unit
    /// (read only for such a frequency).
    private func input(for value: PropertyValue, key: FramePlan.Key, band bandValue: @autoclosure () -> PropertyValue?) -> SignalInput? {
        if key.unitFrequency, let number = value.doubleValue, let band = band(bandValue()) {
            return .float(key.binding.signalValue(frequency: number, band: band))
        }
        switch value {
        case let .bool(flag):
            if let choice = flag ? key.trueChoice : key.falseChoice { return .choice(choice) }
            return .integer(flag ? 1 : 0)
        case let .enumeration(name):
            return key.binding.values[name].map { .choice($0) }
        case let .integer(number):
            return .integer(Int128(number))
        case let .number(number):
            return .float(number)
        }
    }

    /// The property value a decoded signal value stands for; nil for values that are
    /// no state (a "NoRequest" / "Invalid" choice, an unmapped choice). `band`: as for
    /// `input(for:key:band:)`.
    private func propertyValue(_ value: SignalValue, key: FramePlan.Key, band bandValue: @autoclosure () -> PropertyValue?) -> PropertyValue? {
        guard let kind = key.kind else { return nil }
        if key.unitFrequency {
            if case .choice = value { return nil }
            guard let band = band(bandValue()) else { return nil }
            return .number(key.binding.frequency(signalValue: value.doubleValue, band: band))
        }
        switch kind {
        case .bool:
            if case let .choice(name, _) = value {
                if key.trueChoice == name { return .bool(true) }
                if key.falseChoice == name { return .bool(false) }
                return nil
            }
            return .bool(value.doubleValue != 0)
        case .enumeration:
            guard case let .choice(name, _) = value else { return nil }
            return key.caseByChoice[name].map { .enumeration($0) }
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
        guard let index = plan.keyIndex[key] else { return nil }
        let key = plan.keys[index]
        guard let input = input(for: value, key: key, band: context[.radioBand]),
              let codec = key.statusCodec, let signal = key.statusSignal,
              let carried = codec.roundTrip(input, signalAt: signal)
        else { return nil }
        return propertyValue(carried, key: key, band: context[.radioBand])
    }

    // MARK: - Head unit side

    /// One command frame per command message involved, each carrying the targets it
    /// binds and "no request" everywhere else, E2E-protected with the next alive counter.
    /// `context` is the vehicle's current state (for a frequency without a band in `targets`).
    public func commandFrames(for targets: [PropertyKey: PropertyValue], context: VehicleState = VehicleState(), counters: inout [String: UInt8]) throws(VehicleFramesError) -> [CANFrame] {
        // The command messages involved, by name, with their inputs so far (nil: the
        // profile's DBC lacks the message, an error once every target is mapped).
        var byMessage: [(name: String, inputs: SignalInputs?)] = []
        for (key, value) in targets {
            guard let index = plan.keyIndex[key], let command = plan.keys[index].command else { throw .notCommandable(key) }
            // The band of the same command, else the current one.
            guard let input = input(for: value, key: plan.keys[index], band: targets[.radioBand] ?? context[.radioBand]) else {
                throw .unmappedValue(key, value)
            }
            var position = byMessage.firstIndex { $0.name == command.message }
            if position == nil {
                byMessage.append((command.message, command.plan.map { plan.commands[$0].idle }))
                position = byMessage.count - 1
            }
            for signal in command.signals { byMessage[position!].inputs?[signal] = input }
        }
        if byMessage.count > 1 { byMessage.sort { $0.name < $1.name } }
        var frames: [CANFrame] = []
        frames.reserveCapacity(byMessage.count)
        for (name, inputs) in byMessage {
            guard let inputs, let message = plan.commandByName[name].map({ plan.commands[$0] }) else { throw .unknownMessage(name) }
            frames.append(try frame(for: message, inputs: inputs, counters: &counters))
        }
        return frames
    }

    /// Reads a frame the vehicle sent: status values, an acknowledgement, or why it
    /// is not trusted.
    /// `context` is the last known state (for a frequency whose band is in another frame).
    public func decodeFromVehicle(_ frame: CANFrame, context: VehicleState = VehicleState(), checkers: inout [String: E2EChecker]) -> VehicleFrameContent {
        if let ack = plan.acknowledgement, frame.id == ack.id {
            let message = ack.message
            if let failure = check(frame, message: message, checkers: &checkers) { return failure }
            var id: UInt32?
            var counter: UInt8?
            var result: String?
            do {
                try frame.data.withUnsafeBufferPointer { (data) throws(DBCDecodeError) in
                    try message.codec.decode(data, choices: true) { index, value in
                        let role = ack.roles[index]
                        if role & FramePlan.Acknowledgement.commandID != 0 { id = UInt32(exactly: value.doubleValue) }
                        if role & FramePlan.Acknowledgement.counter != 0 { counter = UInt8(exactly: value.doubleValue) }
                        if role & FramePlan.Acknowledgement.result != 0 { result = value.description }
                    }
                }
            } catch {
                return .undecodable(message.name)
            }
            guard let id, let counter, let result else { return .undecodable(message.name) }
            return .acknowledgement(Acknowledgement(commandFrameID: id, counter: counter, result: result, accepted: result == ack.binding.acceptedChoice))
        }
        guard let index = plan.statusByID[frame.id] else { return .unrelated }
        let status = plan.statuses[index]
        if let failure = check(frame, message: status, checkers: &checkers) { return failure }
        guard let read = read(frame, status, context: context) else { return .undecodable(status.name) }
        return .status(message: status.name, values: read.values)
    }

    /// The property values the signals of `message` in `frame` carry (those `keep`
    /// accepts), and the properties whose signal carries no state value. A frequency is
    /// read in the band of the same frame, else of `context`. Nil when the frame does not
    /// decode.
    private func read(
        _ frame: CANFrame, _ message: FramePlan.Message, context: VehicleState,
        keep: (FramePlan.Key, SignalValue) -> Bool = { _, _ in true }
    ) -> (values: [PropertyKey: PropertyValue], unreadable: [PropertyKey])? {
        // (`reserveCapacity` is not specialized: it looks the storage's type up each time.)
        var values = [PropertyKey: PropertyValue](minimumCapacity: message.propertyCount)
        var unreadable: [PropertyKey] = []
        var deferred: [(FramePlan.Key, SignalValue)] = []
        do {
            try frame.data.withUnsafeBufferPointer { (data) throws(DBCDecodeError) in
                try message.codec.decode(data, choices: true) { index, value in
                    let position = message.keyBySignal[index]
                    guard position >= 0 else { return }
                    let key = plan.keys[position]
                    guard keep(key, value) else { return }
                    if key.isRadioFrequency { deferred.append((key, value)); return }
                    if let property = propertyValue(value, key: key, band: nil) { values[key.key] = property } else { unreadable.append(key.key) }
                }
            }
        } catch {
            return nil
        }
        for (key, value) in deferred {
            if let property = propertyValue(value, key: key, band: values[.radioBand] ?? context[.radioBand]) {
                values[key.key] = property
            } else {
                unreadable.append(key.key)
            }
        }
        if unreadable.count > 1 { unreadable.sort() }
        return (values, unreadable)
    }

    // MARK: - Vehicle side

    /// Reads a frame the head unit sent: the properties it asks to change (signals at
    /// their "no request" value are left out).
    /// `context` is the vehicle's state (for a frequency whose band the command does not change).
    public func decodeFromHeadUnit(_ frame: CANFrame, context: VehicleState = VehicleState(), checkers: inout [String: E2EChecker]) -> HeadUnitFrameContent {
        guard let index = plan.commandByID[frame.id] else { return .unrelated }
        let command = plan.commands[index]
        if let failure = check(frame, message: command, checkers: &checkers) {
            if case let .e2eError(message, status) = failure { return .e2eError(message: message, status: status) }
            return .undecodable(command.name)
        }
        // Signals at their "no request" raw value ask for nothing. A choice carries its raw
        // value; an integer without a choice is compared as decoded (see `plainIdle`).
        var namedRaw: [String: Int128]?
        let read = read(frame, command, context: context) { key, value in
            guard let idle = key.commandIdleRaw else { return true }
            if case let .choice(_, rawValue) = value { return rawValue != idle }
            if command.plainIdle {
                if case let .integer(number) = value { return number != idle }
                return true
            }
            if namedRaw == nil { namedRaw = plainValues(frame, command) }
            return namedRaw?[key.commandSignalName] != idle
        }
        guard let (changes, unreadable) = read else { return .undecodable(command.name) }
        let counter = command.e2e.map { $0.counter(in: frame.data) }
        return .command(HeadUnitCommand(message: command.name, id: frame.id, counter: counter, changes: changes, unreadable: unreadable))
    }

    /// The integer values of `frame` decoded without choices, by signal name (the last
    /// signal of a name wins): what a signal without a choice for its value reads as.
    private func plainValues(_ frame: CANFrame, _ message: FramePlan.Message) -> [String: Int128] {
        var values: [String: Int128] = [:]
        for (name, plain) in (try? message.codec.decode(frame.data, choices: false)) ?? [] {
            if case let .integer(number) = plain { values[name] = number }
        }
        return values
    }

    /// The status frame `name` reporting `state` (properties the state lacks are sent
    /// as the signal's "no request"/invalid value, or 0).
    public func statusFrame(_ name: String, state: VehicleState, counters: inout [String: UInt8]) throws(VehicleFramesError) -> CANFrame {
        guard let index = plan.statusByName[name] else { throw .unknownMessage(name) }
        let status = plan.statuses[index]
        var inputs = status.idle
        for slot in status.slots {
            let key = plan.keys[slot.key]
            if let value = state[key.key], let input = input(for: value, key: key, band: state[.radioBand]) {
                for signal in slot.signals { inputs[signal] = input }
            }
        }
        return try frame(for: status, inputs: inputs, counters: &counters)
    }

    /// The acknowledgement of a command frame, or nil when the profile has none.
    public func acknowledgementFrame(for command: HeadUnitCommand, result: String, counters: inout [String: UInt8]) throws(VehicleFramesError) -> CANFrame? {
        guard let ack = plan.acknowledgement else { return nil }
        var inputs = ack.message.idle
        // In the order the values were set by name: a signal named twice takes the last.
        for signal in ack.commandIDSignals { inputs[signal] = .integer(Int128(command.id.rawValue)) }
        for signal in ack.counterSignals { inputs[signal] = .integer(Int128(command.counter ?? 0)) }
        for signal in ack.resultSignals { inputs[signal] = .choice(result) }
        return try frame(for: ack.message, inputs: inputs, counters: &counters)
    }

    // MARK: - Shared

    /// Encodes, pads CAN FD payloads to a valid length, and applies E2E protection.
    private func frame(for message: FramePlan.Message, inputs: SignalInputs, counters: inout [String: UInt8]) throws(VehicleFramesError) -> CANFrame {
        var payload: [UInt8]
        do { payload = try message.codec.encode(inputs) } catch { throw .encoding(message.name, error) }
        if let e2e = message.e2e {
            // One hash of the name: the entry is updated in place.
            let entry = counters.index(forKey: message.name)
            let counter = entry.map { counters.values[$0] } ?? 0
            do { try e2e.protect(&payload, counter: counter) } catch { throw .protection(message.name, error.description) }
            if let entry {
                counters.values[entry] = E2EProtection.nextCounter(after: counter)
            } else {
                counters[message.name] = E2EProtection.nextCounter(after: counter)
            }
        }
        do {
            if message.message.isFD {
                let length = CANFrame.fdLength(atLeast: payload.count) ?? 64
                payload += [UInt8](repeating: 0, count: length - payload.count)
                return try CANFrame(id: message.id, data: payload, kind: .fd(bitRateSwitch: true, errorStateIndicator: false))
            }
            return try CANFrame(id: message.id, data: payload)
        } catch {
            throw .protection(message.name, error.description)
        }
    }

    /// The E2E verdict for a received frame of `message`; nil when it is trusted.
    private func check(_ frame: CANFrame, message: FramePlan.Message, checkers: inout [String: E2EChecker]) -> VehicleFrameContent? {
        guard let e2e = message.e2e else { return nil }
        let payload = frame.data.count <= message.length ? frame.data : Array(frame.data.prefix(message.length))
        let status: E2EStatus
        // One hash of the name: the checker is updated in place.
        if let entry = checkers.index(forKey: message.name) {
            status = checkers.values[entry].check(payload)
        } else {
            var checker = E2EChecker(protection: e2e)
            status = checker.check(payload)
            checkers[message.name] = checker
        }
        if case .ok = status { return nil }
        return .e2eError(message: message.name, status: status)
    }
}

/// What `VehicleFrames` resolves from the profile once: the messages it builds and
/// reads with their signals by index, and each bound property's mappings. Immutable,
/// shared by every copy of the `VehicleFrames`.
final class FramePlan: Sendable {
    /// A bound property. A class: the frame path passes it around without copying its
    /// strings and tables.
    final class Key: Sendable {
        let key: PropertyKey
        let kind: PropertyKind?
        let binding: PropertyBinding
        /// The DBC choices of true and false (`binding.values["true"]`, `["false"]`).
        let trueChoice: String?
        let falseChoice: String?
        /// DBC choice -> SiriKit case: of the cases mapped to one choice, the first in
        /// `binding.values`' order.
        let caseByChoice: [String: String]
        /// `radio.frequency` carried in a unit of its own (`binding.signalUnit`).
        let unitFrequency: Bool
        /// The command: its message's name, its index in `commands` (nil when the DBC
        /// lacks the message), the indices of the signals of that name.
        let command: (message: String, plan: Int?, signals: [Int])?
        /// The name of the command signal ("" for none).
        let commandSignalName: String
        /// The command signal's "no request" raw value (`PropertyBinding.idleRawValue` of
        /// the bindings on that signal).
        let commandIdleRaw: Int128?
        /// `key == .radioFrequency`.
        let isRadioFrequency: Bool
        /// The status message's codec and the status signal's index, as
        /// `MessageCodec.roundTrip(_:signal:)` finds it; nil when the DBC lacks them.
        let statusCodec: MessageCodec?
        let statusSignal: Int?

        init(
            key: PropertyKey, kind: PropertyKind?, binding: PropertyBinding, trueChoice: String?, falseChoice: String?,
            caseByChoice: [String: String], unitFrequency: Bool, command: (message: String, plan: Int?, signals: [Int])?,
            commandSignalName: String, commandIdleRaw: Int128?, statusCodec: MessageCodec?, statusSignal: Int?
        ) {
            self.key = key
            self.kind = kind
            self.binding = binding
            self.trueChoice = trueChoice
            self.falseChoice = falseChoice
            self.caseByChoice = caseByChoice
            self.unitFrequency = unitFrequency
            self.command = command
            self.commandSignalName = commandSignalName
            self.commandIdleRaw = commandIdleRaw
            self.isRadioFrequency = key == .radioFrequency
            self.statusCodec = statusCodec
            self.statusSignal = statusSignal
        }
    }

    /// A message built or read, with what each of its frames needs (a class, as `Key`).
    final class Message: Sendable {
        let message: DBCMessage
        let name: String
        let id: CANID
        let length: Int
        let codec: MessageCodec
        let e2e: E2EProtection?
        /// The inputs of a frame that requests (reports) nothing: E2E signals 0, then per
        /// signal its binding's idle value, its "NoRequest" (status: or "Invalid")
        /// choice, its start value, or 0.
        let idle: SignalInputs
        /// By signal index: the property (index in `keys`) it carries, -1 for none.
        let keyBySignal: [Int]
        /// How many signals carry a property.
        let propertyCount: Int
        /// True when a signal's decoded integer is the value its idle raw is compared
        /// with: no multiplexer, no two signals of one name.
        let plainIdle: Bool
        /// Status messages: each property (index in `keys`) and the signals carrying it,
        /// in the order of `StatusMessage.properties`.
        let slots: [(key: Int, signals: [Int])]

        init(
            message: DBCMessage, name: String, e2e: E2EProtection?, idle: SignalInputs, keyBySignal: [Int],
            plainIdle: Bool, slots: [(key: Int, signals: [Int])]
        ) {
            self.message = message
            self.name = name
            self.id = message.canID
            self.length = message.length
            self.codec = message.codec
            self.e2e = e2e
            self.idle = idle
            self.keyBySignal = keyBySignal
            self.propertyCount = keyBySignal.filter { $0 >= 0 }.count
            self.plainIdle = plainIdle
            self.slots = slots
        }
    }

    /// The acknowledgement message and the signals it answers with.
    final class Acknowledgement: Sendable {
        static let commandID: UInt8 = 1
        static let counter: UInt8 = 2
        static let result: UInt8 = 4

        let binding: AcknowledgementBinding
        let message: Message
        let id: CANID
        /// By signal index: which of the three values it carries (bits above).
        let roles: [UInt8]
        let commandIDSignals: [Int]
        let counterSignals: [Int]
        let resultSignals: [Int]

        init(binding: AcknowledgementBinding, message: Message, roles: [UInt8], commandIDSignals: [Int], counterSignals: [Int], resultSignals: [Int]) {
            self.binding = binding
            self.message = message
            self.id = message.id
            self.roles = roles
            self.commandIDSignals = commandIDSignals
            self.counterSignals = counterSignals
            self.resultSignals = resultSignals
        }
    }

    let keys: [Key]
    let keyIndex: [PropertyKey: Int]
    let commands: [Message]
    let commandByID: [CANID: Int]
    let commandByName: [String: Int]
    let statuses: [Message]
    let statusByID: [CANID: Int]
    let statusByName: [String: Int]
    let acknowledgement: Acknowledgement?

    init(profile: VehicleProfile, commands: [String: VehicleFrames.CommandMessage], statusMessages: [String: VehicleFrames.StatusMessage]) {
        // Properties first (messages refer to them by index), in a fixed order.
        let keyOrder = profile.bindings.keys.sorted()
        var keyIndex: [PropertyKey: Int] = [:]
        for (index, key) in keyOrder.enumerated() { keyIndex[key] = index }

        func indices(of name: String, in message: DBCMessage) -> [Int] {
            message.signals.indices.filter { message.signals[$0].name == name }
        }
        func build(_ name: String, _ message: DBCMessage, properties: [PropertyKey: String], idleInputs: [String: SignalInput]) -> Message {
            var idle = SignalInputs(codec: message.codec)
            for (index, signal) in message.signals.enumerated() { idle[index] = idleInputs[signal.name] }
            var keyBySignal = [Int](repeating: -1, count: message.signals.count)
            var slots: [(key: Int, signals: [Int])] = []
            // Several properties on one signal: the first in `properties`' order reads it.
            var taken = Set<String>()
            for (key, signal) in properties {
                guard let keyPosition = keyIndex[key] else { continue }
                let signals = indices(of: signal, in: message)
                slots.append((keyPosition, signals))
                if taken.insert(signal).inserted { for index in signals { keyBySignal[index] = keyPosition } }
            }
            let uniqueNames = Set(message.signals.map(\.name)).count == message.signals.count
            return Message(
                message: message, name: name, e2e: profile.e2e[name]?.protection, idle: idle, keyBySignal: keyBySignal,
                plainIdle: uniqueNames && !message.isMultiplexed, slots: slots)
        }

        var idleRaw: [String: [String: Int128]] = [:]
        for binding in profile.bindings.values {
            if let command = binding.command, let idle = binding.idleRawValue { idleRaw[command.message, default: [:]][command.signal] = idle }
        }
        var commandPlans: [Message] = []
        var commandByID: [CANID: Int] = [:]
        var commandByName: [String: Int] = [:]
        for name in commands.keys.sorted() {
            let command = commands[name]!
            let message = command.message
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
            commandByID[message.canID] = commandPlans.count
            commandByName[name] = commandPlans.count
            commandPlans.append(build(name, message, properties: command.properties, idleInputs: inputs))
        }
        var statusPlans: [Message] = []
        var statusByID: [CANID: Int] = [:]
        var statusByName: [String: Int] = [:]
        for name in statusMessages.keys.sorted() {
            let status = statusMessages[name]!
            let message = status.message
            var inputs: [String: SignalInput] = [:]
            for signal in message.signals {
                let raw = signal.choiceValue(named: "NoRequest") ?? signal.choiceValue(named: "Invalid") ?? signal.initialRawValue?.integralValue ?? 0
                inputs[signal.name] = message.codec.input(forRaw: raw, signal: signal.name)
            }
            statusByID[message.canID] = statusPlans.count
            statusByName[name] = statusPlans.count
            statusPlans.append(build(name, message, properties: status.properties, idleInputs: inputs))
        }

        var keys: [Key] = []
        for key in keyOrder {
            let binding = profile.bindings[key]!
            var caseByChoice: [String: String] = [:]
            for (name, choice) in binding.values where caseByChoice[choice] == nil { caseByChoice[choice] = name }
            let command = binding.command.map { reference in
                let plan = commandByName[reference.message]
                let signals = plan.map { indices(of: reference.signal, in: commandPlans[$0].message) } ?? []
                return (message: reference.message, plan: plan, signals: signals)
            }
            let statusMessage = profile.database.message(named: binding.status.message)
            keys.append(Key(
                key: key, kind: key.kind, binding: binding,
                trueChoice: binding.values["true"], falseChoice: binding.values["false"], caseByChoice: caseByChoice,
                unitFrequency: key == .radioFrequency && binding.signalUnit != nil,
                command: command, commandSignalName: binding.command?.signal ?? "",
                commandIdleRaw: binding.command.flatMap { idleRaw[$0.message]?[$0.signal] },
                statusCodec: statusMessage?.codec, statusSignal: statusMessage?.codec.index(ofSignal: binding.status.signal)))
        }

        var acknowledgement: Acknowledgement?
        if let binding = profile.acknowledgement, let message = profile.database.message(named: binding.message) {
            var inputs: [String: SignalInput] = [:]
            for signal in message.signals { inputs[signal.name] = message.codec.input(forRaw: 0, signal: signal.name) }
            let plan = build(binding.message, message, properties: [:], idleInputs: inputs)
            var roles = [UInt8](repeating: 0, count: message.signals.count)
            let commandIDSignals = indices(of: binding.commandIDSignal, in: message)
            let counterSignals = indices(of: binding.counterSignal, in: message)
            let resultSignals = indices(of: binding.resultSignal, in: message)
            for index in commandIDSignals { roles[index] |= Acknowledgement.commandID }
            for index in counterSignals { roles[index] |= Acknowledgement.counter }
            for index in resultSignals { roles[index] |= Acknowledgement.result }
            acknowledgement = Acknowledgement(
                binding: binding, message: plan, roles: roles,
                commandIDSignals: commandIDSignals, counterSignals: counterSignals, resultSignals: resultSignals)
        }

        self.keys = keys
        self.keyIndex = keyIndex
        self.commands = commandPlans
        self.commandByID = commandByID
        self.commandByName = commandByName
        self.statuses = statusPlans
        self.statusByID = statusByID
        self.statusByName = statusByName
        self.acknowledgement = acknowledgement
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
