import CANKit

/// What `VehicleFrames` resolves from the profile once: the messages it builds and
/// reads with their signals by index, and each bound property's mappings and command.
/// Immutable, shared by every copy of the `VehicleFrames`.
final class FramePlan: Sendable {
    /// A request value on some signals (a momentary request, a toggle's or a step's press).
    struct Request: Sendable {
        let signals: [Int]
        let raw: Int128
        let input: SignalInput
    }

    /// How the head unit commands a property, resolved.
    enum CommandKind: Sendable {
        case setpoint(signals: [Int], idle: Int128?, values: ValueCodec)
        /// Property value -> its request.
        case momentary([PropertyValue: Request])
        case toggle(Request)
        case step(up: Request, down: Request)
    }

    struct Command: Sendable {
        /// The command message's name and its index in `commands` (nil when the DBC lacks it).
        let message: String
        let plan: Int?
        let kind: CommandKind
        let holdFrames: Int
        /// `command.with`: fixed values a frame carrying this command sets beside it.
        let companions: [Request]
    }

    /// A bound property. A class: the frame path passes it around without copying its
    /// strings and tables.
    final class Key: Sendable {
        let key: PropertyKey
        let kind: PropertyKind?
        let binding: PropertyBinding
        /// The status signal's value mapping; nil when the DBC lacks the signal.
        let status: ValueCodec?
        /// `radio.frequency` carried in a unit of its own (`binding.signalUnit`).
        let unitFrequency: Bool
        /// The property the mapping depends on, read with it (the frame's or the known
        /// state's): the radio band of a frequency in a unit of its own, the display unit
        /// of a temperature in it (`"unit": "display"`).
        let dependency: PropertyKey?
        /// Read after the frame's other values (the dependency may be in the same frame).
        let isDeferred: Bool
        /// `key == .radioFrequency`.
        let isRadioFrequency: Bool
        let command: Command?
        /// The status message's codec and the status signal's index, as
        /// `MessageCodec.roundTrip(_:signal:)` finds it; nil when the DBC lacks them.
        let statusCodec: MessageCodec?
        let statusSignal: Int?
        /// A setpoint command's mapping and idle raw value, read per decoded signal (no
        /// copy of `command`'s enum there).
        let setpointValues: ValueCodec?
        let setpointIdle: Int128?

        init(
            key: PropertyKey, kind: PropertyKind?, binding: PropertyBinding, status: ValueCodec?, command: Command?,
            statusCodec: MessageCodec?, statusSignal: Int?
        ) {
            self.key = key
            self.kind = kind
            self.binding = binding
            self.status = status
            self.unitFrequency = key == .radioFrequency && binding.signalUnit != nil
            self.isRadioFrequency = key == .radioFrequency
            var followsDisplay = binding.statusValues.followsDisplayUnit
            if case let .setpoint(setpoint)? = binding.command, setpoint.values.followsDisplayUnit { followsDisplay = true }
            self.dependency = unitFrequency ? .radioBand : followsDisplay ? .temperatureUnit : nil
            self.isDeferred = key == .radioFrequency || followsDisplay
            self.command = command
            self.statusCodec = statusCodec
            self.statusSignal = statusSignal
            if case let .setpoint(_, idle, values)? = command?.kind {
                setpointValues = values
                setpointIdle = idle
            } else {
                setpointValues = nil
                setpointIdle = nil
            }
        }
    }

    /// A status value's validity qualifier (`status.valid`), resolved in its message.
    struct Qualifier: Sendable {
        /// The property (index in `keys`) it qualifies, and the qualifier's signal index.
        let key: Int
        let signal: Int
        let name: String
        /// Raw values that say valid.
        let valid: [Int128]
        let scale: Double
        let offset: Double
        /// What the vehicle sends while it knows the value (the first valid raw value).
        let validInput: SignalInput
    }

    /// One page of a status message: a multiplexer setting that carries a named signal.
    struct Page: Sendable {
        /// The inputs of a frame that reports nothing on this page: the multiplexers'
        /// values, the idle values of the written signals on its path, nothing else.
        let idle: SignalInputs
        /// By signal index: whether the page carries the signal.
        let onPath: [Bool]
    }

    /// What a press on a command signal means to the vehicle.
    enum PressRole: Sendable {
        case set(PropertyValue)
        case toggle
        case up
        case down
    }

    /// A message built or read, with what each of its frames needs (a class, as `Key`).
    final class Message: Sendable {
        let message: DBCMessage
        let name: String
        let id: CANID
        let length: Int
        let codec: MessageCodec
        let protection: FrameProtection?
        /// The inputs of a frame that requests (reports) nothing: protection signals 0,
        /// then per signal its setpoint idle, the profile's default, its "NoRequest"
        /// (status: or "Invalid") choice, its start value, or 0. Only the signals the frame
        /// writes (`written`).
        let idle: SignalInputs
        /// By signal index: whether the frame writes the signal (`FrameWrites`): of two
        /// overlapping signals at most one is.
        let written: [Bool]
        /// By signal index: the property (index in `keys`) it carries, -1 for none
        /// (command messages: setpoint properties only).
        let keyBySignal: [Int]
        /// Signals that carry more than one property (zones sharing one setpoint, fan on
        /// and fan level in one blower signal): the others, by signal index.
        let sharedKeys: [Int: [Int]]
        /// How many signals carry a property.
        let propertyCount: Int
        /// Status messages: each property (index in `keys`) and the signals carrying it;
        /// properties read through `otherwise` come last, so that their explicit values
        /// (fan off = blower 0) win over the level they share a signal with.
        let slots: [(key: Int, signals: [Int])]
        /// Command messages: by signal index, the presses it can carry.
        let presses: [Int: [(key: Int, role: PressRole, raw: Int128)]]
        /// Command messages: the signals whose previous raw value a receiver keeps to tell
        /// a press from a held request, in a fixed order (`latches` index).
        let latchSignals: [Int]
        /// Command messages: the signals some command sets beside its request (`with`);
        /// the vehicle reads them to tell whether a request counts.
        let companionSignals: Set<Int>
        /// The idle raw value of each of `latchSignals`: what they held before any frame.
        let latchIdle: [Int128]
        /// Command messages: setpoints without an idle value: a frame carries the
        /// property's current value when it does not change it.
        let carried: [(key: Int, signals: [Int])]
        /// Status messages: the properties trusted only while a qualifier says so, and by
        /// signal index whether it qualifies one (empty when none does).
        let qualified: [Qualifier]
        let qualifierSignals: [Bool]
        /// The pages of a multiplexed message (one without multiplexers): status messages
        /// are sent in turn, page by page; a command goes out on the pages its signals are on.
        let pages: [Page]

        init(
            message: DBCMessage, name: String, protection: FrameProtection?, idle: SignalInputs, written: [Bool], keyBySignal: [Int], sharedKeys: [Int: [Int]],
            slots: [(key: Int, signals: [Int])], presses: [Int: [(key: Int, role: PressRole, raw: Int128)]] = [:],
            carried: [(key: Int, signals: [Int])] = [], idleRaws: [Int: Int128] = [:], qualified: [Qualifier] = [], pages: [Page]? = nil,
            companionSignals: Set<Int> = []
        ) {
            self.companionSignals = companionSignals
            self.message = message
            self.name = name
            self.id = message.canID
            self.length = message.length
            self.codec = message.codec
            self.protection = protection
            self.idle = idle
            self.written = written
            self.keyBySignal = keyBySignal
            self.sharedKeys = sharedKeys
            self.propertyCount = keyBySignal.filter { $0 >= 0 }.count
            self.slots = slots
            self.presses = presses
            self.latchSignals = presses.keys.sorted()
            self.latchIdle = latchSignals.map { idleRaws[$0] ?? 0 }
            self.carried = carried
            self.qualified = qualified
            var qualifierSignals = qualified.isEmpty ? [] : [Bool](repeating: false, count: message.signals.count)
            for qualifier in qualified { qualifierSignals[qualifier.signal] = true }
            self.qualifierSignals = qualifierSignals
            self.pages = pages ?? [Page(idle: idle, onPath: [Bool](repeating: true, count: message.signals.count))]
        }

        /// Whether status signal `signal` also carries a property other than `key` that
        /// `state` knows (a blower level beside the fan switch).
        func carriesAnother(than key: Int, _ signal: Int, in state: VehicleState, keys: [Key]) -> Bool {
            let carried = [keyBySignal[signal]] + (sharedKeys[signal] ?? [])
            return carried.contains { $0 >= 0 && $0 != key && state[keys[$0].key] != nil }
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

    init(profile: VehicleProfile) {
        let database = profile.database
        // Properties first (messages refer to them by index), in a fixed order.
        let keyOrder = profile.bindings.keys.sorted()
        var keyIndex: [PropertyKey: Int] = [:]
        for (index, key) in keyOrder.enumerated() { keyIndex[key] = index }

        func indices(of name: String, in message: DBCMessage) -> [Int] {
            message.signals.indices.filter { message.signals[$0].name == name }
        }

        // Status messages: properties by status signal.
        var statusProperties: [String: [(key: PropertyKey, signal: String)]] = [:]
        var commandNames = Set<String>()
        for key in keyOrder {
            let binding = profile.bindings[key]!
            statusProperties[binding.status.message, default: []].append((key, binding.status.signal))
            if let command = binding.command { commandNames.insert(command.message) }
        }
        for name in VehicleFrames.watchedMessages(profile, commands: commandNames) where statusProperties[name] == nil { statusProperties[name] = [] }

        var statusPlans: [Message] = []
        var statusByID: [CANID: Int] = [:]
        var statusByName: [String: Int] = [:]
        for name in statusProperties.keys.sorted() {
            guard let message = database.message(named: name) else { continue }
            let named = profile.vehicleSignalsNamed(in: name)
            let written = FrameWrites.resolve(named, in: message).written
            var idle = SignalInputs(codec: message.codec)
            for (index, signal) in message.signals.enumerated() where written[index] {
                let raw = signal.choiceValue(named: "NoRequest") ?? signal.choiceValue(named: "Invalid") ?? signal.initialRawValue?.integralValue ?? 0
                idle[index] = message.codec.input(forRaw: Self.withinRange(raw, signal), signalAt: index)
            }
            var keyBySignal = [Int](repeating: -1, count: message.signals.count)
            var shared: [Int: [Int]] = [:]
            var slots: [(key: Int, signals: [Int])] = []
            var derived: [(key: Int, signals: [Int])] = []
            var qualified: [Qualifier] = []
            for (key, signalName) in statusProperties[name]! {
                let position = keyIndex[key]!
                let signals = indices(of: signalName, in: message)
                // (`first`: the loader resolved every valid value; a hand-made profile may not have.)
                if let validity = profile.bindings[key]!.validity, let index = message.codec.index(ofSignal: validity.signal.signal),
                    case let signal = message.signals[index], case let valid = validity.valid.compactMap({ ValueCodec.raw($0, signal: signal) }),
                    let first = valid.first
                {
                    qualified.append(
                        Qualifier(
                            key: position, signal: index, name: signal.name, valid: valid, scale: signal.scale.doubleValue,
                            offset: signal.offset.doubleValue, validInput: message.codec.input(forRaw: first, signalAt: index)))
                    // Until the vehicle knows the value, its qualifier says invalid.
                    if written[index], let invalid = Self.invalidRaw(signal, valid: valid) {
                        idle[index] = message.codec.input(forRaw: invalid, signalAt: index)
                    }
                }
                if profile.bindings[key]!.statusValues.otherwise != nil { derived.append((position, signals)) } else { slots.append((position, signals)) }
                for index in signals {
                    if keyBySignal[index] < 0 { keyBySignal[index] = position } else { shared[index, default: []].append(position) }
                }
            }
            statusByID[message.canID] = statusPlans.count
            statusByName[name] = statusPlans.count
            statusPlans.append(
                Message(
                    message: message, name: name, protection: profile.protection[name]?.protection, idle: idle, written: written,
                    keyBySignal: keyBySignal, sharedKeys: shared, slots: slots + derived, qualified: qualified,
                    pages: Self.pages(of: message, named: named, written: written, idle: idle)))
        }

        // Keys (their commands refer to command plans by index, so these are numbered first).
        let commandOrder = commandNames.sorted().filter { database.message(named: $0) != nil }
        var commandByName: [String: Int] = [:]
        for (index, name) in commandOrder.enumerated() { commandByName[name] = index }

        var keys: [Key] = []
        for key in keyOrder {
            let binding = profile.bindings[key]!
            let kind = key.kind
            let statusMessage = database.message(named: binding.status.message)
            let statusSignal = statusMessage?.signal(named: binding.status.signal)
            let status = zip2(kind, statusSignal).map {
                ValueCodec(kind: $0, mapping: binding.statusValues, signal: $1, codec: statusMessage!.codec, range: key.fixedRange)
            }
            var command: Command?
            if let reference = binding.command, let message = database.message(named: reference.message), let kind {
                func request(_ request: SignalRequest) -> Request? {
                    guard let signal = message.signal(named: request.signal.signal), let raw = ValueCodec.raw(request.value, signal: signal),
                        let input = message.codec.input(forRaw: raw, signal: signal.name)
                    else { return nil }
                    return Request(signals: indices(of: signal.name, in: message), raw: raw, input: input)
                }
                let resolved: CommandKind?
                switch reference {
                case let .setpoint(setpoint):
                    resolved = message.signal(named: setpoint.signal.signal).map { signal in
                        .setpoint(
                            signals: setpoint.signals.flatMap { indices(of: $0, in: message) }, idle: setpoint.idle,
                            values: ValueCodec(kind: kind, mapping: setpoint.values, signal: signal, codec: message.codec))
                    }
                case let .momentary(momentary):
                    var requests: [PropertyValue: Request] = [:]
                    for (text, entry) in momentary.requests {
                        if let value = ValueCodec.value(text, kind: kind), let resolved = request(entry) { requests[value] = resolved }
                    }
                    resolved = .momentary(requests)
                case let .toggle(toggle):
                    resolved = request(toggle.press).map { .toggle($0) }
                case let .step(step):
                    resolved = zip2(request(step.up), request(step.down)).map { .step(up: $0, down: $1) }
                }
                command = resolved.map {
                    Command(
                        message: reference.message, plan: commandByName[reference.message], kind: $0, holdFrames: reference.holdFrames,
                        companions: binding.companions.compactMap(request))
                }
            }
            keys.append(
                Key(
                    key: key, kind: kind, binding: binding, status: status, command: command,
                    statusCodec: statusMessage?.codec, statusSignal: statusMessage?.codec.index(ofSignal: binding.status.signal)))
        }

        // Command messages.
        var commandPlans: [Message] = []
        var commandByID: [CANID: Int] = [:]
        for name in commandOrder {
            let message = database.message(named: name)!
            let protection = profile.protection[name]
            // The loader refused command signals that collide: every named one is written.
            let written = FrameWrites.resolve(profile.commandSignalsNamed(in: name), in: message).written
            var idle = SignalInputs(codec: message.codec)
            var idleRaws: [Int: Int128] = [:]
            for (index, signal) in message.signals.enumerated() where written[index] {
                let raw = protection?.isProtectionSignal(signal.name) == true ? 0 : Self.withinRange(profile.defaultRaw(of: signal, in: name), signal)
                idle[index] = message.codec.input(forRaw: raw, signalAt: index)
                idleRaws[index] = raw
            }
            var keyBySignal = [Int](repeating: -1, count: message.signals.count)
            var shared: [Int: [Int]] = [:]
            var presses: [Int: [(key: Int, role: PressRole, raw: Int128)]] = [:]
            var carried: [(key: Int, signals: [Int])] = []
            for (position, key) in keys.enumerated() {
                guard let command = key.command, command.message == name else { continue }
                func press(_ request: Request, _ role: PressRole) {
                    for index in request.signals { presses[index, default: []].append((position, role, request.raw)) }
                }
                switch command.kind {
                case let .setpoint(signals, idleRaw, _):
                    for index in signals {
                        if let idleRaw { idle[index] = message.codec.input(forRaw: idleRaw, signalAt: index) }
                        if keyBySignal[index] < 0 { keyBySignal[index] = position } else { shared[index, default: []].append(position) }
                    }
                    if idleRaw == nil { carried.append((position, signals)) }
                case let .momentary(requests):
                    for value in requests.keys.sorted(by: { $0.description < $1.description }) { press(requests[value]!, .set(value)) }
                case let .toggle(request): press(request, .toggle)
                case let .step(up, down):
                    press(up, .up)
                    press(down, .down)
                }
            }
            commandByID[message.canID] = commandPlans.count
            commandPlans.append(
                Message(
                    message: message, name: name, protection: protection?.protection, idle: idle, written: written, keyBySignal: keyBySignal,
                    sharedKeys: shared,
                    slots: [], presses: presses, carried: carried, idleRaws: idleRaws,
                    pages: Self.pages(of: message, named: profile.commandSignalsNamed(in: name), written: written, idle: idle),
                    companionSignals: Set(keys.filter { $0.command?.message == name }.flatMap { $0.command!.companions.flatMap(\.signals) })))
        }

        var acknowledgement: Acknowledgement?
        if let binding = profile.acknowledgement, let message = database.message(named: binding.message) {
            let written = FrameWrites.resolve(profile.vehicleSignalsNamed(in: binding.message), in: message).written
            var idle = SignalInputs(codec: message.codec)
            for index in message.signals.indices where written[index] { idle[index] = message.codec.input(forRaw: 0, signalAt: index) }
            let plan = Message(
                message: message, name: binding.message, protection: profile.protection[binding.message]?.protection, idle: idle, written: written,
                keyBySignal: [Int](repeating: -1, count: message.signals.count), sharedKeys: [:], slots: [])
            var roles = [UInt8](repeating: 0, count: message.signals.count)
            // Reading takes every copy of a signal; the frame writes the ones it can.
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

extension FramePlan {
    /// `raw`, or the raw value of the signal's DBC minimum when `raw`'s physical value
    /// lies outside the DBC range (real DBCs: a °F display offset by 56 with range
    /// 58...90 cannot be sent as raw 0, and the encoder checks ranges as cantools does).
    static func withinRange(_ raw: Int128, _ signal: DBCSignal) -> Int128 {
        guard signal.choiceName(for: raw) == nil, let low = signal.minimum?.doubleValue, let high = signal.maximum?.doubleValue, low <= high else { return raw }
        let scale = signal.scale.doubleValue
        let offset = signal.offset.doubleValue
        let physical = Double(raw) * scale + offset
        guard physical < low - 1e-9 || physical > high + 1e-9, scale != 0 else { return raw }
        let candidate = ((low - offset) / scale).rounded(scale > 0 ? .up : .down)
        guard candidate.isFinite, abs(candidate) < 1e30 else { return raw }
        return Int128(candidate)
    }
}

extension FramePlan {
    /// The pages of a message: one per multiplexer setting that a named signal
    /// needs (its multiplexer's first value, and up the chain for nested ones; the
    /// multiplexers it does not need take their lowest branch), in the order they are
    /// named; nil (one page) for a message without multiplexers.
    static func pages(of message: DBCMessage, named: [NamedSignal], written: [Bool], idle: SignalInputs) -> [Page]? {
        guard message.isMultiplexed else { return nil }
        let codec = message.codec
        var settings: [[Int: Int]] = []
        for name in named {
            guard let index = codec.index(ofSignal: name.signal) else { continue }
            var setting: [Int: Int] = [:]
            var signal = message.signals[index]
            while let multiplexer = signal.multiplexerSignal, let id = signal.multiplexerIDs?.first, let selector = codec.index(ofSignal: multiplexer),
                setting[selector] == nil
            {
                setting[selector] = id
                signal = message.signals[selector]
            }
            settings.append(setting)
        }
        // A signal on every page needs none of its own: only settings that select a page;
        // when no named signal selects one, the first page (lowest branches).
        settings.removeAll { $0.isEmpty }
        if settings.isEmpty { settings = [[:]] }
        var chosen: [[Int: Int]] = []
        let pages = settings.compactMap { setting -> Page? in
            // Settings completed alike (the multiplexers they leave out) are one page.
            guard let path = codec.path(selecting: setting), !chosen.contains(path.values) else { return nil }
            chosen.append(path.values)
            var inputs = SignalInputs(codec: codec)
            var onPath = [Bool](repeating: false, count: written.count)
            for index in path.signals {
                onPath[index] = true
                if written[index] { inputs[index] = idle[index] }
            }
            for (selector, id) in path.values { inputs[selector] = codec.input(forRaw: Int128(id), signalAt: selector) }
            return Page(idle: inputs, onPath: onPath)
        }
        return pages.isEmpty ? nil : pages
    }

    /// The first raw value (0, 1, ...) that fits the signal and is not valid: what a
    /// qualifier says while the value is unknown; nil when every raw value is valid.
    static func invalidRaw(_ signal: DBCSignal, valid: [Int128]) -> Int128? {
        let largest: Int128 = signal.isSigned ? (Int128(1) << Int128(signal.length - 1)) - 1 : (Int128(1) << Int128(signal.length)) - 1
        return (0...Int128(valid.count)).first { $0 <= largest && !valid.contains($0) }
    }
}

private func zip2<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
