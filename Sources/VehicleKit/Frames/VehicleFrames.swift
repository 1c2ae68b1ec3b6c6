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

    /// A message that reports state.
    public struct StatusMessage: Sendable {
        public var message: DBCMessage
        /// Property -> status signal.
        public var properties: [PropertyKey: String]
        /// The profile's `cycleTimeMs`, else `GenMsgCycleTime`; nil: sent on change only.
        public var cycleTime: Duration?
    }

    public let statusMessages: [String: StatusMessage]
    /// The names of the messages that carry commands.
    public let commandMessages: Set<String>
    let plan: FramePlan

    public init(profile: VehicleProfile) {
        self.profile = profile
        let plan = FramePlan(profile: profile)
        // The public view of the plan's messages (which properties each status message
        // reports, its period): derived from the plan, not gathered a second time.
        var status: [String: StatusMessage] = [:]
        for message in plan.statuses {
            var properties: [PropertyKey: String] = [:]
            for slot in message.slots {
                let key = plan.keys[slot.key]
                properties[key.key] = key.binding.status.signal
            }
            status[message.name] = StatusMessage(message: message.message, properties: properties, cycleTime: profile.cycleTime(of: message.message))
        }
        self.statusMessages = status
        self.commandMessages = Set(plan.commands.map(\.name))
        self.plan = plan
    }

    /// Messages with a declared protection that are neither commands nor the acknowledgement:
    /// still checked when heard (and sent by the simulated vehicle), though no binding reads them.
    static func watchedMessages(_ profile: VehicleProfile, commands: Set<String>) -> [String] {
        profile.protection.keys.filter { !commands.contains($0) && $0 != profile.acknowledgement?.message }.sorted()
    }

    // MARK: - Values <-> signals

    /// The band a frequency is in, from the band property's value (of the same frame or
    /// the known state).
    private func band(_ value: PropertyValue?) -> RadioBand? {
        guard case let .enumeration(name)? = value, let type = RadioType(rawValue: name) else { return nil }
        return profile.radio?.band(type)
    }

    /// The signal input that carries `value` for `key` through `codec` (a setpoint's or
    /// the status signal's mapping). `band` supplies what the mapping depends on: the
    /// radio band of a frequency whose signal has its own unit (read only for such a frequency).
    private func input(for value: PropertyValue, key: FramePlan.Key, codec: ValueCodec?, depending dependency: @autoclosure () -> PropertyValue?)
        -> SignalInput?
    {
        if key.unitFrequency, let number = value.doubleValue, let band = band(dependency()) {
            return .float(key.binding.signalValue(frequency: number, band: band))
        }
        if let codec, codec.followsDisplayUnit {
            guard let shown = Self.displayUnit(dependency()) else { return nil }
            return codec.input(value, converting: shown)
        }
        return codec?.input(value)
    }

    /// The conversion from the unit the car displays (`extension.temperatureUnit`) to °C:
    /// nil inside for °C; nil when the unit is not known (a value cannot be read or sent).
    private static func displayUnit(_ value: PropertyValue?) -> LinearTransform?? {
        switch value {
        case .enumeration("celsius")?: .some(nil)
        case .enumeration("fahrenheit")?: .some(LinearTransform.converting(from: "fahrenheit"))
        default: nil
        }
    }

    /// The property value a decoded status signal value stands for; nil for values that
    /// are no state. `band`: as for `input(for:key:codec:band:)`.
    private func propertyValue(_ value: SignalValue, key: FramePlan.Key, codec: ValueCodec?, depending dependency: @autoclosure () -> PropertyValue?)
        -> PropertyValue?
    {
        if key.unitFrequency {
            if case .choice = value { return nil }
            guard let band = band(dependency()) else { return nil }
            return .number(key.binding.frequency(signalValue: value.doubleValue, band: band))
        }
        if let codec, codec.followsDisplayUnit {
            guard let shown = Self.displayUnit(dependency()) else { return nil }
            return codec.value(value, converting: shown)
        }
        return codec?.value(value)
    }

    /// What the status signal of `key` will report once the vehicle holds `value`:
    /// the value as the signal's scaling quantizes it (21.3 °C in 0.5 steps reads 21.5).
    /// `targets`, set together with it, go before `context` (no copy of the state made).
    public func reportedValue(
        _ value: PropertyValue, for key: PropertyKey, context: VehicleState = VehicleState(), targets: [PropertyKey: PropertyValue] = [:]
    ) -> PropertyValue? {
        guard let index = plan.keyIndex[key] else { return nil }
        let key = plan.keys[index]
        // The property it depends on (a display unit) as it will be: a target, else the state.
        let dependency = key.dependency.flatMap { targets[$0] ?? context[$0] }
        guard let input = input(for: value, key: key, codec: key.status, depending: dependency),
            let codec = key.statusCodec, let signal = key.statusSignal,
            let carried = codec.roundTrip(input, signalAt: signal)
        else { return nil }
        return propertyValue(carried, key: key, codec: key.status, depending: dependency)
    }

    // MARK: - Head unit side

    /// How `key` is commanded; nil when it is not.
    public func commandKind(of key: PropertyKey) -> PropertyCommand.Kind? {
        plan.keyIndex[key].flatMap { plan.keys[$0].binding.command?.kind }
    }

    /// The step command of `key`, when it is commanded by up/down presses.
    public func stepCommand(of key: PropertyKey) -> StepCommand? {
        guard let index = plan.keyIndex[key], case let .step(command)? = plan.keys[index].binding.command else { return nil }
        return command
    }

    /// The command frames that set `targets` (except stepped properties: `stepFrames`):
    /// per command message involved, the frame carrying the targets it binds, the
    /// "no request" value everywhere else (a setpoint without idle value: the current
    /// value from `context`), protected with the next counter. A frame with a momentary
    /// or toggle request is held for its `holdFrames` and followed by one released frame.
    /// A toggle whose property already shows the target in `context` is not pressed.
    public func commandFrames(for targets: [PropertyKey: PropertyValue], context: VehicleState = VehicleState(), counters: inout [String: UInt8])
        throws(VehicleFramesError) -> [CANFrame]
    {
        // The command messages involved, by plan index, with their inputs so far.
        var byMessage: [Outgoing] = []
        func entry(_ command: FramePlan.Command) throws(VehicleFramesError) -> Int {
            guard let plan = command.plan else { throw .unknownMessage(command.message) }
            if let position = byMessage.firstIndex(where: { $0.plan == plan }) { return position }
            byMessage.append(Outgoing(plan: plan, inputs: self.plan.commands[plan].idle))
            return byMessage.count - 1
        }
        for (key, value) in targets {
            guard let index = plan.keyIndex[key], let command = plan.keys[index].command else { throw .notCommandable(key) }
            let planKey = plan.keys[index]
            switch command.kind {
            case let .setpoint(signals, _, values):
                // The band of the same command, else the current one.
                guard let input = input(for: value, key: planKey, codec: values, depending: planKey.dependency.flatMap { targets[$0] ?? context[$0] }) else {
                    throw .unmappedValue(key, value)
                }
                let position = try entry(command)
                for signal in signals {
                    // One signal for several properties (one set point for two zones):
                    // one value, or the car could not be told both.
                    if let other = byMessage[position].written.first(where: { $0.signal == signal }), byMessage[position].inputs[signal] != input {
                        throw .sharedSignal(key, value, other: other.key)
                    }
                    byMessage[position].inputs[signal] = input
                    byMessage[position].written.append((signal, key))
                }
            case let .momentary(requests):
                guard let request = requests[value] else { throw .unmappedValue(key, value) }
                let position = try entry(command)
                for signal in request.signals { byMessage[position].inputs[signal] = request.input }
                byMessage[position].pressed(request.signals, hold: command.holdFrames)
            case let .toggle(request):
                guard case .bool = value else { throw .unmappedValue(key, value) }
                if let current = context[key], current == value { continue }
                let position = try entry(command)
                for signal in request.signals { byMessage[position].inputs[signal] = request.input }
                byMessage[position].pressed(request.signals, hold: command.holdFrames)
            case .step:
                throw .stepped(key)
            }
            if !command.companions.isEmpty, let position = byMessage.firstIndex(where: { $0.plan == command.plan }) {
                for request in command.companions {
                    for signal in request.signals {
                        byMessage[position].inputs[signal] = request.input
                        byMessage[position].written.append((signal, key))
                    }
                }
            }
        }
        if byMessage.count > 1 { byMessage.sort { plan.commands[$0.plan].name < plan.commands[$1.plan].name } }
        // The state the released frames and carried setpoints show: made only when a
        // message needs it (copying the state costs more than building a frame).
        var after: VehicleState?
        func stateAfter() -> VehicleState {
            if let after { return after }
            var state = context
            for (key, value) in targets { state[key] = value }
            after = state
            return state
        }
        var frames: [CANFrame] = []
        frames.reserveCapacity(byMessage.count)
        for item in byMessage {
            let message = plan.commands[item.plan]
            var inputs = item.inputs
            if !message.carried.isEmpty { carry(message, into: &inputs, state: stateAfter(), except: targets, written: item.written.map(\.signal)) }
            let touched = item.written.map(\.signal) + item.presses
            let held = paged(message, inputs, touching: touched)
            for _ in 0..<item.hold {
                for page in held { frames.append(try frame(for: message, inputs: page, counters: &counters)) }
            }
            if item.pressed {
                for page in paged(message, releasedInputs(message, state: stateAfter()), touching: touched) {
                    frames.append(try frame(for: message, inputs: page, counters: &counters))
                }
            }
        }
        return frames
    }

    /// A command message's frame being built: its inputs so far, the signals a target
    /// writes (with its key: a carried value never replaces one) and the press signals,
    /// and how long a press is held.
    struct Outgoing {
        let plan: Int
        var inputs: SignalInputs
        var hold = 1
        var pressed = false
        var written: [(signal: Int, key: PropertyKey)] = []
        var presses: [Int] = []

        mutating func pressed(_ signals: [Int], hold frames: Int) {
            presses += signals
            hold = max(hold, frames)
            pressed = true
        }
    }

    /// A multiplexed command message goes out once per page that carries a touched
    /// signal, each frame with the page's selector values and its own signals; any other
    /// message as it is.
    private func paged(_ message: FramePlan.Message, _ inputs: SignalInputs, touching touched: [Int]) -> [SignalInputs] {
        guard message.message.isMultiplexed else { return [inputs] }
        let pages = message.pages.filter { page in touched.contains { page.onPath[$0] } }
        return (pages.isEmpty ? Array(message.pages.prefix(1)) : pages).map { page in
            var paged = page.idle
            for index in page.onPath.indices where page.onPath[index] && message.written[index] && !message.message.signals[index].isMultiplexer {
                if let input = inputs[index] { paged[index] = input }
            }
            return paged
        }
    }

    /// One press of a stepped property, up or down: held for its `holdFrames`, then released.
    public func stepFrames(for key: PropertyKey, up: Bool, context: VehicleState = VehicleState(), counters: inout [String: UInt8]) throws(VehicleFramesError)
        -> [CANFrame]
    {
        guard let index = plan.keyIndex[key], let command = plan.keys[index].command else { throw .notCommandable(key) }
        guard case let .step(upRequest, downRequest) = command.kind else { throw .notCommandable(key) }
        guard let position = command.plan else { throw .unknownMessage(command.message) }
        let message = plan.commands[position]
        var inputs = message.idle
        carry(message, into: &inputs, state: context, except: [:])
        let request = up ? upRequest : downRequest
        var touched: [Int] = []
        for press in [request] + command.companions {
            for signal in press.signals { inputs[signal] = press.input }
            touched += press.signals
        }
        var frames: [CANFrame] = []
        let held = paged(message, inputs, touching: touched)
        for _ in 0..<max(1, command.holdFrames) {
            for page in held { frames.append(try frame(for: message, inputs: page, counters: &counters)) }
        }
        for page in paged(message, releasedInputs(message, state: context), touching: touched) {
            frames.append(try frame(for: message, inputs: page, counters: &counters))
        }
        return frames
    }

    /// The frames of command message `name` that request nothing (one per page of a
    /// multiplexed message): what a cyclic command message carries between commands
    /// (setpoints without idle carry `state`).
    public func idleFrames(of name: String, state: VehicleState, counters: inout [String: UInt8]) throws(VehicleFramesError) -> [CANFrame] {
        guard let index = plan.commandByName[name] else { throw .unknownMessage(name) }
        let message = plan.commands[index]
        let inputs = releasedInputs(message, state: state)
        let pages =
            message.message.isMultiplexed
            ? message.pages.map { page in paged(message, inputs, touching: page.onPath.indices.filter { page.onPath[$0] }) }.flatMap { $0 } : [inputs]
        var frames: [CANFrame] = []
        for page in pages { frames.append(try frame(for: message, inputs: page, counters: &counters)) }
        return frames
    }

    /// The inputs of a frame of `message` that requests nothing.
    private func releasedInputs(_ message: FramePlan.Message, state: VehicleState) -> SignalInputs {
        var inputs = message.idle
        carry(message, into: &inputs, state: state, except: [:])
        return inputs
    }

    /// Setpoints without an idle value carry their current value in `state`, except the
    /// targets' own and any signal a target writes (`written`).
    private func carry(
        _ message: FramePlan.Message, into inputs: inout SignalInputs, state: VehicleState, except targets: [PropertyKey: PropertyValue], written: [Int] = []
    ) {
        for (position, signals) in message.carried {
            let key = plan.keys[position]
            guard targets[key.key] == nil, let value = state[key.key],
                let input = input(for: value, key: key, codec: key.setpointValues, depending: key.dependency.flatMap { state[$0] })
            else { continue }
            for signal in signals where !written.contains(signal) { inputs[signal] = input }
        }
    }

    /// Reads a frame the vehicle sent: status values, an acknowledgement, or why it
    /// is not trusted.
    /// `context` is the last known state (for a frequency whose band is in another frame).
    public func decodeFromVehicle(_ frame: CANFrame, context: VehicleState = VehicleState(), checkers: inout [String: FrameChecker]) -> VehicleFrameContent {
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
        guard let read = readStatus(frame, status, context: context) else { return .undecodable(status.name) }
        return .status(message: status.name, values: read.values, unreadable: read.unreadable)
    }

    /// The property values the signals of status message `message` in `frame` carry,
    /// and the properties it reports no value for, with why: a raw value the mapping does
    /// not read, or a qualifier that says the value is not valid (`status.valid`). A
    /// frequency is read in the band of the same frame, else of `context`. Nil when the
    /// frame does not decode.
    private func readStatus(_ frame: CANFrame, _ message: FramePlan.Message, context: VehicleState) -> (
        values: [PropertyKey: PropertyValue], unreadable: [PropertyKey: String]
    )? {
        // (`reserveCapacity` is not specialized: it looks the storage's type up each time.)
        var values = [PropertyKey: PropertyValue](minimumCapacity: message.propertyCount)
        var unreadable: [PropertyKey: String] = [:]
        var deferred: [(FramePlan.Key, SignalValue)] = []
        let shared = !message.sharedKeys.isEmpty
        let qualified = !message.qualified.isEmpty
        var qualifiers: [Int: SignalValue] = [:]
        do {
            try frame.data.withUnsafeBufferPointer { (data) throws(DBCDecodeError) in
                try message.codec.decode(data, choices: true) { index, value in
                    if qualified, message.qualifierSignals[index] { qualifiers[index] = value }
                    let first = message.keyBySignal[index]
                    guard first >= 0 else { return }
                    // The signal's property, then those sharing it (no array, no nested
                    // function: either would allocate per decoded signal).
                    let more = shared ? message.sharedKeys[index] : nil
                    var next = -1
                    repeat {
                        let key = plan.keys[next < 0 ? first : more![next]]
                        next += 1
                        if key.isDeferred { deferred.append((key, value)); continue }
                        if let property = propertyValue(value, key: key, codec: key.status, depending: nil) {
                            values[key.key] = property
                        } else {
                            unreadable[key.key] = "\(message.codec.signalName(at: index)) = \(value) reads as no value"
                        }
                    } while next < (more?.count ?? 0)
                }
            }
        } catch {
            return nil
        }
        for (key, value) in deferred {
            if let property = propertyValue(value, key: key, codec: key.status, depending: key.dependency.flatMap { values[$0] ?? context[$0] }) {
                values[key.key] = property
            } else {
                unreadable[key.key] = "\(key.binding.status.signal) = \(value) reads as no value"
            }
        }
        for qualifier in message.qualified {
            let key = plan.keys[qualifier.key].key
            // Only a value this frame carries (a page of a multiplexed message may not).
            guard values[key] != nil else { continue }
            let value = qualifiers[qualifier.signal]
            if let value, let raw = ValueCodec.raw(of: value, scale: qualifier.scale, offset: qualifier.offset), qualifier.valid.contains(raw) { continue }
            values[key] = nil
            let valid = qualifier.valid.map(String.init).joined(separator: ", ")
            unreadable[key] = "\(qualifier.name) = \(value.map(\.description) ?? "nothing") says the value is not valid (valid: \(valid))"
        }
        return (values, unreadable)
    }

    // MARK: - Vehicle side

    /// Reads a frame the head unit sent: the properties it asks to change. A setpoint at
    /// its idle value asks for nothing (without idle value: one equal to `context` asks
    /// for nothing); a request signal is a press only when it goes to its request value
    /// (`latches` keeps each request signal's previous raw value, per message).
    /// `context` is the vehicle's state (for a frequency whose band the command does not
    /// change, and for toggles and steps).
    public func decodeFromHeadUnit(
        _ frame: CANFrame, context: VehicleState = VehicleState(), checkers: inout [String: FrameChecker], latches: inout [String: [Int128]]
    ) -> HeadUnitFrameContent {
        guard let index = plan.commandByID[frame.id] else { return .unrelated }
        let command = plan.commands[index]
        if let failure = check(frame, message: command, checkers: &checkers) {
            if case let .e2eError(message, status) = failure { return .e2eError(message: message, status: status) }
            return .undecodable(command.name)
        }
        var changes: [PropertyKey: PropertyValue] = [:]
        var unreadable: [PropertyKey] = []
        var steps: [PropertyKey: Int] = [:]
        var toggles: [PropertyKey] = []
        var deferred: [(FramePlan.Key, SignalValue)] = []
        var raws: [Int: Int128] = [:]
        let hasPresses = !command.presses.isEmpty
        let shared = !command.sharedKeys.isEmpty
        let companions = command.companionSignals
        do {
            try frame.data.withUnsafeBufferPointer { (data) throws(DBCDecodeError) in
                try command.codec.decode(data, choices: true) { signal, value in
                    if (hasPresses && command.presses[signal] != nil) || (!companions.isEmpty && companions.contains(signal)) {
                        let field = command.message.signals[signal]
                        raws[signal] = ValueCodec.raw(of: value, scale: field.scale.doubleValue, offset: field.offset.doubleValue)
                    }
                    let first = command.keyBySignal[signal]
                    guard first >= 0 else { return }
                    let more = shared ? command.sharedKeys[signal] : nil
                    var next = -1
                    repeat {
                        let key = plan.keys[next < 0 ? first : more![next]]
                        next += 1
                        guard let values = key.setpointValues else { continue }
                        let idle = key.setpointIdle
                        // Raw against raw: a scaled signal (0.5 °C) idling at raw 0 decodes as 0.0.
                        if let idle, values.raw(of: value) == idle { continue }
                        if key.isDeferred { deferred.append((key, value)); continue }
                        guard let property = propertyValue(value, key: key, codec: values, depending: nil) else { unreadable.append(key.key); continue }
                        if idle == nil, context[key.key] == property { continue }
                        changes[key.key] = property
                    } while next < (more?.count ?? 0)
                }
            }
        } catch {
            return .undecodable(command.name)
        }
        for (key, value) in deferred {
            guard let values = key.setpointValues else { continue }
            if let property = propertyValue(value, key: key, codec: values, depending: key.dependency.flatMap { changes[$0] ?? context[$0] }) {
                if key.setpointIdle == nil, context[key.key] == property { continue }
                changes[key.key] = property
            } else {
                unreadable.append(key.key)
            }
        }
        if hasPresses {
            var previous = latches[command.name] ?? command.latchIdle
            for (slot, signal) in command.latchSignals.enumerated() {
                guard let raw = raws[signal] else { continue }
                defer { previous[slot] = raw }
                guard raw != previous[slot] else { continue }
                for (position, role, pressRaw) in command.presses[signal]! where pressRaw == raw {
                    let key = plan.keys[position].key
                    switch role {
                    case let .set(value): changes[key] = value
                    case .toggle: toggles.append(key)
                    case .up: steps[key, default: 0] += 1
                    case .down: steps[key, default: 0] -= 1
                    }
                }
            }
            latches[command.name] = previous
        }
        if !companions.isEmpty {
            // A receiver takes a request only with its companions set ("with": an "HMI
            // active" bit): without them the frame asks for nothing.
            func accompanied(_ key: PropertyKey) -> Bool {
                guard let index = plan.keyIndex[key], let required = plan.keys[index].command?.companions else { return true }
                return required.allSatisfy { request in request.signals.allSatisfy { raws[$0] == request.raw } }
            }
            changes = changes.filter { accompanied($0.key) }
            steps = steps.filter { accompanied($0.key) }
            toggles = toggles.filter(accompanied)
        }
        if unreadable.count > 1 { unreadable.sort() }
        let counter = command.protection?.counter(in: frame.data)
        return .command(
            HeadUnitCommand(
                message: command.name, id: frame.id, counter: counter, changes: changes, unreadable: unreadable, steps: steps, toggles: toggles.sorted()))
    }

    /// The status frame `name` reporting `state` (properties the state lacks are sent
    /// as the signal's "no request"/invalid value, or 0). A multiplexed message is sent
    /// page by page: `page` (modulo `statusPageCount`) picks one, a page per multiplexer
    /// setting that carries a bound signal.
    public func statusFrame(_ name: String, page: Int = 0, state: VehicleState, counters: inout [String: UInt8]) throws(VehicleFramesError) -> CANFrame {
        guard let index = plan.statusByName[name] else { throw .unknownMessage(name) }
        let status = plan.statuses[index]
        let page = status.pages[page % status.pages.count]
        var inputs = page.idle
        for slot in status.slots {
            let key = plan.keys[slot.key]
            if let value = state[key.key], let input = input(for: value, key: key, codec: key.status, depending: key.dependency.flatMap { state[$0] }) {
                let onlyOtherwise = key.status?.carriesOnlyThroughOtherwise(value) ?? false
                // A status signal that overlaps one written before it is not written (`FrameWrites`).
                for signal in slot.signals where status.written[signal] && page.onPath[signal] {
                    // Fan on read through `otherwise` from the blower level: the level says it.
                    if onlyOtherwise && status.carriesAnother(than: slot.key, signal, in: state, keys: plan.keys) { continue }
                    inputs[signal] = input
                }
            }
        }
        // A qualifier says valid while the vehicle knows the value (idle: invalid).
        for qualifier in status.qualified where status.written[qualifier.signal] && page.onPath[qualifier.signal] {
            if state[plan.keys[qualifier.key].key] != nil { inputs[qualifier.signal] = qualifier.validInput }
        }
        return try frame(for: status, inputs: inputs, counters: &counters)
    }

    /// How many pages status message `name` is sent in (1 unless it is multiplexed).
    public func statusPageCount(_ name: String) -> Int {
        plan.statusByName[name].map { plan.statuses[$0].pages.count } ?? 1
    }

    /// The acknowledgement of a command frame, or nil when the profile has none.
    public func acknowledgementFrame(for command: HeadUnitCommand, result: String, counters: inout [String: UInt8]) throws(VehicleFramesError) -> CANFrame? {
        guard let ack = plan.acknowledgement else { return nil }
        var inputs = ack.message.idle
        // In the order the values were set by name: a signal named twice takes the last.
        let written = ack.message.written
        for signal in ack.commandIDSignals where written[signal] { inputs[signal] = .integer(Int128(command.id.rawValue)) }
        for signal in ack.counterSignals where written[signal] { inputs[signal] = .integer(Int128(command.counter ?? 0)) }
        for signal in ack.resultSignals where written[signal] { inputs[signal] = .choice(result) }
        return try frame(for: ack.message, inputs: inputs, counters: &counters)
    }

    // MARK: - Shared

    /// Encodes, pads CAN FD payloads to a valid length, and applies E2E protection.
    private func frame(for message: FramePlan.Message, inputs: SignalInputs, counters: inout [String: UInt8]) throws(VehicleFramesError) -> CANFrame {
        var payload: [UInt8]
        do { payload = try message.codec.encode(inputs) } catch { throw .encoding(message.name, error) }
        if let protection = message.protection {
            // One hash of the name: the entry is updated in place.
            let entry = counters.index(forKey: message.name)
            let counter = entry.map { counters.values[$0] } ?? 0
            do { try protection.protect(&payload, frameID: message.id.rawValue, counter: counter) } catch { throw .protection(message.name, error.description) }
            if let entry {
                counters.values[entry] = protection.nextCounter(after: counter)
            } else {
                counters[message.name] = protection.nextCounter(after: counter)
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
    private func check(_ frame: CANFrame, message: FramePlan.Message, checkers: inout [String: FrameChecker]) -> VehicleFrameContent? {
        guard let protection = message.protection else { return nil }
        let payload = frame.data.count <= message.length ? frame.data : Array(frame.data.prefix(message.length))
        let status: E2EStatus
        // One hash of the name: the checker is updated in place.
        if let entry = checkers.index(forKey: message.name) {
            status = checkers.values[entry].check(payload, frameID: message.id.rawValue)
        } else {
            var checker = FrameChecker(protection: protection)
            status = checker.check(payload, frameID: message.id.rawValue)
            checkers[message.name] = checker
        }
        if case .ok = status { return nil }
        return .e2eError(message: message.name, status: status)
    }
}

/// What a frame from the vehicle says.
public enum VehicleFrameContent: Sendable, Hashable {
    /// Reported values of a status message, and the properties it carries no value for,
    /// with why (the head unit forgets their old values: never a stale or made-up state).
    case status(message: String, values: [PropertyKey: PropertyValue], unreadable: [PropertyKey: String])
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
    /// Stepped properties pressed: +1 per press up, -1 per press down.
    public var steps: [PropertyKey: Int]
    /// Toggled properties pressed (each flips once).
    public var toggles: [PropertyKey]

    public init(
        message: String, id: CANID, counter: UInt8?, changes: [PropertyKey: PropertyValue], unreadable: [PropertyKey],
        steps: [PropertyKey: Int] = [:], toggles: [PropertyKey] = []
    ) {
        self.message = message
        self.id = id
        self.counter = counter
        self.changes = changes
        self.unreadable = unreadable
        self.steps = steps
        self.toggles = toggles
    }

    /// True when the frame asks for nothing (a released request, an idle frame).
    public var isEmpty: Bool { changes.isEmpty && unreadable.isEmpty && steps.isEmpty && toggles.isEmpty }
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
    /// Stepped properties are commanded press by press (`stepFrames`).
    case stepped(PropertyKey)
    case encoding(String, DBCEncodeError)
    case protection(String, String)
    /// Two targets for one signal with different values (one set point for two zones).
    case sharedSignal(PropertyKey, PropertyValue, other: PropertyKey)

    public var description: String {
        switch self {
        case let .notCommandable(key): "\(key) has no command signal in this vehicle"
        case let .unmappedValue(key, value): "\(key) = \(value) has no DBC value in this vehicle"
        case let .unknownMessage(name): "no message \(name)"
        case let .stepped(key): "\(key) is commanded by up/down steps, one press at a time"
        case let .encoding(name, error): "cannot encode \(name): \(error)"
        case let .protection(name, reason): "cannot build frame \(name): \(reason)"
        case let .sharedSignal(key, value, other):
            "\(key) = \(value) and \(other) share one signal in this vehicle and cannot be set to different values"
        }
    }
}
