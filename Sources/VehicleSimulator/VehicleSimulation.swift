import CANKit
import VehicleKit

/// Tunables of the simulated vehicle's behaviour.
public struct SimulationDynamics: Sendable, Hashable {
    /// How fast the cabin temperature approaches the zones' mean target while the
    /// climate system is on, °C per second.
    public var cabinTemperatureRate: Double
    /// How fast the battery charges while `power.charging`, percent per minute.
    public var chargeRatePerMinute: Double
    /// The drivetrain model's values for what the profile's `power` section does not
    /// say: the charging power of a connector without `maximumPowerKW`, battery size and
    /// consumption, fuel tank and consumption.
    public var chargingPowerKW = 11.0
    public var batteryCapacityKWh = 60.0
    public var consumptionKWhPer100Km = 18.0
    public var fuelTankLiters = 50.0
    public var fuelConsumptionLitersPer100Km = 7.0
    /// How long `signal.audible` / `signal.visible` stay true after a command.
    public var signalDuration: Duration
    /// The largest alive-counter step accepted on command messages (1: every counter
    /// must follow the previous one; a jump is an E2E error, and the checker resynchronises).
    /// Read once, by `VehicleSimulation.init`.
    public var commandMaxDeltaCounter: UInt8

    public init(
        cabinTemperatureRate: Double = 0.5, chargeRatePerMinute: Double = 1.0, signalDuration: Duration = .seconds(2), commandMaxDeltaCounter: UInt8 = 1
    ) {
        self.cabinTemperatureRate = cabinTemperatureRate
        self.chargeRatePerMinute = chargeRatePerMinute
        self.signalDuration = signalDuration
        self.commandMaxDeltaCounter = commandMaxDeltaCounter
    }

    public static let standard = SimulationDynamics()
}

/// The simulated vehicle's logic: command frames in, state, status and
/// acknowledgement frames out, with simple dynamics and scriptable faults.
///
/// A pure value: no I/O, no clock. Time is passed in as the `Duration` since the
/// simulation started and must not go backwards (an earlier time counts as the latest
/// seen). Whoever drives it (`SimulatedVehicleNode`, a test) calls `receive` for each
/// frame from the bus, `tick` whenever `nextDeadline` has come, and sends what they return.
public struct VehicleSimulation: Sendable {
    public let profile: VehicleProfile
    public let frames: VehicleFrames
    public var dynamics: SimulationDynamics

    /// What the vehicle currently is (set here and by the drivetrain model, +Drivetrain).
    public internal(set) var state: VehicleState
    /// Plugged in or driving: set from outside (`setDriveState`), never by a command.
    public internal(set) var drive = DriveState.parked
    /// The faults in force (count-limited rules count down and disappear).
    public private(set) var faults: FaultPlan
    public private(set) var statistics = SimulationStatistics()
    /// What the vehicle applied, rejected, ignored: at least the newest `logLimit`
    /// entries (at most a quarter more; `drainLog()` hands out the newest `logLimit`).
    /// `drainLog()` hands them out and clears the list.
    public private(set) var log: [SimulationLogEntry] = []
    /// 0 keeps no log at all (and builds no entry texts).
    public var logLimit = 1000
    /// Keep the command messages applied (for `drainApplied`): a scenario reacts to them.
    public var tracksApplied = false
    private var applied: [String] = []

    private var commandCheckers: [String: FrameChecker] = [:]
    /// The previous raw value of each request signal, per command message: a press is
    /// the change to the request value, not the request held.
    private var commandLatches: [String: [Int128]] = [:]
    private var statusCounters: [String: UInt8] = [:]
    /// The alive counter of the last frame sent, per message.
    private var lastCounters: [String: UInt8] = [:]
    /// When each cyclic status message is due next.
    private var nextCyclic: [String: Duration] = [:]
    /// Event-only status messages not sent yet (they go out at the first tick).
    private var initialPending: Set<String> = []
    private var pending: [PendingCommand] = []
    private var pendingSequence = 0
    /// When each momentary signal goes back to false.
    private var signalOff: [PropertyKey: Duration] = [:]
    private var lastPhysics: Duration = .zero
    private var latest: Duration = .zero
    /// Status messages reporting each property.
    private let statusByKey: [PropertyKey: [String]]
    /// Whether the cabin temperature / a power property is reported by an event-only
    /// status message (which needs physics ticks of its own): fixed by the profile, asked
    /// on every frame.
    private let cabinReportedByEvent: Bool
    private let powerReportedByEvent: Bool

    struct PendingCommand: Sendable {
        var due: Duration
        var sequence: Int
        var command: HeadUnitCommand
        var rejection: RejectionReason?
        var wrongValue: [FaultRule]
    }

    public init(profile: VehicleProfile, state: VehicleState? = nil, faults: FaultPlan = .none, dynamics: SimulationDynamics = .standard) {
        self.profile = profile
        self.frames = VehicleFrames(profile: profile)
        self.dynamics = dynamics
        self.state = state ?? Self.defaultState(for: profile)
        self.faults = faults
        for (name, binding) in profile.protection where frames.commandMessages.contains(name) {
            commandCheckers[name] = FrameChecker(protection: binding.protection, maxDeltaCounter: dynamics.commandMaxDeltaCounter)
        }
        var byKey: [PropertyKey: [String]] = [:]
        for (name, status) in frames.statusMessages {
            for key in status.properties.keys { byKey[key, default: []].append(name) }
            if status.cycleTime == nil { initialPending.insert(name) } else { nextCyclic[name] = .zero }
        }
        statusByKey = byKey.mapValues { $0.sorted() }
        let frames = self.frames
        let eventOnly = { (key: PropertyKey) in (byKey[key] ?? []).contains { frames.statusMessages[$0]?.cycleTime == nil } }
        cabinReportedByEvent = eventOnly(.cabinTemperature)
        powerReportedByEvent = byKey.keys.contains { $0.rawValue.hasPrefix("power.") && eventOnly($0) }
    }

    // MARK: - Driving

    /// Handles one frame from the bus; returns the frames to send now (the
    /// acknowledgement, then the status messages whose properties changed, plus
    /// anything a delayed command released).
    public mutating func receive(_ frame: CANFrame, at now: Duration) -> [CANFrame] {
        let now = advanceTime(now)
        var out = releaseDue(at: now)
        switch frames.decodeFromHeadUnit(frame, context: state, checkers: &commandCheckers, latches: &commandLatches) {
        case .unrelated:
            break
        case let .undecodable(name):
            statistics.undecodable += 1
            record(.undecodable, name, nil, "frame \(frame.id) does not decode", at: now)
        case let .e2eError(name, status):
            statistics.untrustedFrames += 1
            record(.e2eError, name, nil, "ignored: \(status)", at: now)
        case let .command(command):
            statistics.commandsReceived += 1
            out += handle(command, at: now)
        }
        return out
    }

    /// The command messages applied since the last call, in order (with `tracksApplied`).
    public mutating func drainApplied() -> [String] {
        defer { applied.removeAll() }
        return applied
    }

    /// Runs everything due by `now`: delayed commands, dynamics, momentary signals
    /// ending, cyclic status messages. Returns the frames to send.
    public mutating func tick(at now: Duration) -> [CANFrame] {
        let now = advanceTime(now)
        var out = releaseDue(at: now)
        var toSend = Set(advancePhysics(to: now))
        for (key, off) in signalOff where off <= now {
            signalOff[key] = nil
            guard state[key] == .bool(true) else { continue }
            state[key] = .bool(false)
            record(.momentaryEnded, statusByKey[key]?.first ?? key.rawValue, nil, "\(key)=false", at: now)
            toSend.formUnion(statusByKey[key] ?? [])
        }
        for name in frames.statusMessages.keys.sorted() {
            var send = toSend.contains(name)
            if let cycle = frames.statusMessages[name]?.cycleTime, let due = nextCyclic[name], due <= now {
                send = true
                var next = due + cycle
                if next <= now { next = now + cycle }
                nextCyclic[name] = next
            }
            if initialPending.remove(name) != nil { send = true }
            if send { out += transmitStatus(name, at: now) }
        }
        return out
    }

    /// When `tick` should run next (it may run earlier or later: it catches up);
    /// nil when nothing is scheduled.
    public var nextDeadline: Duration? {
        var candidates = pending.map(\.due) + Array(signalOff.values) + Array(nextCyclic.values)
        if !initialPending.isEmpty { candidates.append(latest) }
        if physicsNeedsTicks { candidates.append(lastPhysics + .seconds(1)) }
        return candidates.min()
    }

    /// Replaces the fault plan (count-limited rules start afresh).
    public mutating func setFaults(_ plan: FaultPlan) { faults = plan }

    /// Hands out the log entries and clears the log.
    public mutating func drainLog() -> [SimulationLogEntry] {
        defer { log.removeAll() }
        return Array(log.suffix(logLimit))
    }

    /// Sets values from outside the command path (plugging in the charger, a scenario
    /// script), without limits checks; returns the status frames of the messages whose
    /// properties changed.
    public mutating func override(_ values: [PropertyKey: PropertyValue], at now: Duration) -> [CANFrame] {
        let now = advanceTime(now)
        let before = state
        for (key, value) in values { state[key] = value }
        return transmitChanges(state.changes(from: before), at: now)
    }

    // MARK: - Commands

    private mutating func handle(_ command: HeadUnitCommand, at now: Duration) -> [CANFrame] {
        // The keys only matter to fault rules.
        let keys = faults.rules.isEmpty ? [] : Array(command.changes.keys) + command.unreadable + Array(command.steps.keys) + command.toggles
        let matched = takeFaults(at: now, message: command.message, keys: keys) { $0.isCommandFault }
        if let drop = matched.first(where: { $0.kind == .drop }) {
            statistics.commandsDropped += 1
            record(.dropped, command.message, command.counter, "\(Self.describe(command)) (fault \(drop))", at: now)
            return []
        }
        var rejection: RejectionReason?
        for rule in matched {
            if case let .reject(result) = rule.kind { rejection = .injected(result) }
        }
        let wrong = matched.filter { $0.kind == .wrongValue }
        let delay = matched.compactMap { rule -> Duration? in
            if case let .delay(delay) = rule.kind { return delay }
            return nil
        }.max()
        if let delay, delay > .zero {
            statistics.commandsDelayed += 1
            pending.append(PendingCommand(due: now + delay, sequence: pendingSequence, command: command, rejection: rejection, wrongValue: wrong))
            pendingSequence += 1
            record(.delayed, command.message, command.counter, "\(Self.describe(command)) held for \(FaultRule.milliseconds(delay)) ms", at: now)
            return []
        }
        return process(command, rejection: rejection, wrongValue: wrong, at: now)
    }

    private mutating func releaseDue(at now: Duration) -> [CANFrame] {
        var out: [CANFrame] = []
        while let index = pending.indices.filter({ pending[$0].due <= now }).min(by: {
            (pending[$0].due, pending[$0].sequence) < (pending[$1].due, pending[$1].sequence)
        }) {
            let item = pending.remove(at: index)
            out += process(item.command, rejection: item.rejection, wrongValue: item.wrongValue, at: now)
        }
        return out
    }

    /// Validates and applies one command frame (all or nothing), acknowledges it and
    /// reports the changes.
    private mutating func process(_ command: HeadUnitCommand, rejection forced: RejectionReason?, wrongValue: [FaultRule], at now: Duration) -> [CANFrame] {
        let command = applyingPresses(command)
        var targets: [PropertyKey: PropertyValue] = [:]
        var refusal: (reason: RejectionReason, detail: String)?
        if let forced {
            refusal = (forced, "\(Self.describe(command)) (fault reject)")
        } else {
            switch validate(command) {
            case let .success(valid): targets = valid
            case let .failure(violation): refusal = (violation.reason, violation.detail)
            }
        }
        if let refusal {
            statistics.commandsRejected += 1
            let choice = resultChoice(for: refusal.reason)
            record(.rejected, command.message, command.counter, "\(choice ?? "no rejection choice, no acknowledgement"): \(refusal.detail)", at: now)
            guard let choice, let ack = transmitAcknowledgement(command, result: choice, at: now) else { return [] }
            return [ack]
        }

        // Faults: apply a different value than commanded.
        var wronged = false
        for key in wrongValue.isEmpty ? [] : targets.keys.sorted()
        where wrongValue.contains(where: { rule in rule.property.map { key.rawValue.hasPrefix($0) } ?? true }) {
            let commanded = targets[key]!
            let applied = wrongTuning(for: key, commanded, band: command.changes[.radioBand]) ?? self.wrongValue(for: key, commanded)
            guard applied != commanded else { continue }
            targets[key] = applied
            wronged = true
            statistics.wrongValuesApplied += 1
            record(.wrongValue, command.message, command.counter, "\(key) commanded \(commanded), applied \(applied)", at: now)
        }
        // A wrong band must not keep the tuning commanded for the right one (AM with an
        // FM frequency is a state no status frame can express): drop a tuning that is
        // not valid in the band applied, so `retune` picks one that is.
        if wronged, case let .enumeration(name)? = targets[.radioBand], let band = RadioType(rawValue: name).flatMap({ profile.radio?.band($0) }) {
            for key in [PropertyKey.radioFrequency, .radioChannel] {
                if let tuning = targets[key]?.doubleValue, key != (band.tunesByChannel ? .radioChannel : .radioFrequency) || !band.range.contains(tuning) {
                    targets[key] = nil
                }
            }
        }

        // Only the targets and a retuned frequency/channel can change: their values
        // before, to compare with (not a copy of the whole state).
        var candidates = Array(targets.keys)
        for key in [PropertyKey.radioFrequency, .radioChannel] where targets[key] == nil { candidates.append(key) }
        let before = candidates.map { state[$0] }
        for (key, value) in targets { state[key] = value }
        retune(after: targets)
        for key in Self.signalKeys {
            guard let value = targets[key] else { continue }
            signalOff[key] = value == .bool(true) ? now + dynamics.signalDuration : nil
        }
        statistics.commandsApplied += 1
        if tracksApplied { applied.append(command.message) }
        record(.applied, command.message, command.counter, targets.isEmpty ? "no change requested" : Self.describe(targets), at: now)

        var out: [CANFrame] = []
        if let accepted = profile.acknowledgement?.acceptedChoice, let ack = transmitAcknowledgement(command, result: accepted, at: now) {
            out.append(ack)
        }
        // The status of every commanded property goes out, changed or not (and of a
        // frequency the band change retuned): a command that sets the value the car
        // already has is confirmed at once, not only by the next cyclic frame (or, with
        // event-only status, never).
        var reported = Array(targets.keys)
        for (key, old) in zip(candidates, before) where targets[key] == nil && state[key] != old { reported.append(key) }
        if reported.count > 1 { reported.sort() }
        out += transmitChanges(reported, at: now)
        return out
    }

    /// The keys of the momentary signals, `PropertyKey.signal(_:)` of every `CarSignal`.
    private static let signalKeys = CarSignal.allCases.map { PropertyKey.signal($0) }

    /// A wrong frequency or channel one step off within the band the same command asks
    /// for (`wrongValue(for:)` steps within the band the car is on); nil otherwise.
    private func wrongTuning(for key: PropertyKey, _ value: PropertyValue, band: PropertyValue?) -> PropertyValue? {
        guard key == .radioFrequency || key == .radioChannel, case let .enumeration(name)? = band,
            let band = RadioType(rawValue: name).flatMap({ profile.radio?.band($0) }),
            band.tunesByChannel == (key == .radioChannel), let number = value.doubleValue, band.range.contains(number)
        else { return nil }
        let range = band.range
        let next = range.contains(number + range.step) ? range.snap(number + range.step) : range.snap(number - range.step)
        guard range.contains(next), next != number else { return nil }
        return key == .radioChannel ? .integer(Int(next.rounded())) : .number(next)
    }

    /// After a band change without a frequency / channel: keep the tuning if it is
    /// valid in the new band, otherwise tune to the band's first preset or its minimum.
    private mutating func retune(after targets: [PropertyKey: PropertyValue]) {
        guard case let .enumeration(name)? = targets[.radioBand], let type = RadioType(rawValue: name),
            let band = profile.radio?.band(type)
        else { return }
        let key: PropertyKey = band.tunesByChannel ? .radioChannel : .radioFrequency
        guard targets[key] == nil, state[key] != nil else { return }
        if let current = state[key]?.doubleValue, band.range.contains(current) { return }
        state[key] = Self.defaultTuning(for: band, radio: profile.radio!)
    }

    /// The result choice of the acknowledgement for a rejection: the first of
    /// `reason.candidateChoices` the DBC has, else a choice starting with "Rejected",
    /// else any choice other than the accepted one and "NoRequest"; nil when the result
    /// signal has no such choice (the rejection then goes unacknowledged).
    public func resultChoice(for reason: RejectionReason) -> String? {
        guard let ack = profile.acknowledgement,
            let signal = profile.database.message(named: ack.message)?.signal(named: ack.resultSignal)
        else { return nil }
        let names = signal.choices.map(\.name)
        if let name = reason.candidateChoices.first(where: names.contains) { return name }
        if let name = names.first(where: { $0.lowercased().hasPrefix("reject") }) { return name }
        return names.first { $0 != ack.acceptedChoice && $0 != "NoRequest" }
    }

    // MARK: - Transmitting

    mutating func transmitChanges(_ keys: [PropertyKey], at now: Duration) -> [CANFrame] {
        // One key (the common case): its messages, already sorted and distinct.
        let names = keys.count == 1 ? statusByKey[keys[0]] ?? [] : Set(keys.flatMap { statusByKey[$0] ?? [] }).sorted()
        return names.flatMap { transmitStatus($0, at: now) }
    }

    /// The frames of status message `name`: one, or every page of a multiplexed message
    /// back to back, so the state it reports is whole each time.
    private mutating func transmitStatus(_ name: String, at now: Duration) -> [CANFrame] {
        // The keys only matter to fault rules.
        let keys = faults.rules.isEmpty ? [] : frames.statusMessages[name].map { Array($0.properties.keys) } ?? []
        let snapshot = state
        var sent: [CANFrame] = []
        for page in 0..<frames.statusPageCount(name) {
            let frame = transmit(name, keys: keys, explicitOnly: false, at: now) { frames, counters throws(VehicleFramesError) in
                try frames.statusFrame(name, page: page, state: snapshot, counters: &counters)
            }
            if let frame { sent.append(frame) }
        }
        return sent
    }

    private mutating func transmitAcknowledgement(_ command: HeadUnitCommand, result: String, at now: Duration) -> CANFrame? {
        guard let name = profile.acknowledgement?.message else { return nil }
        return transmit(name, keys: [], explicitOnly: true, at: now) { frames, counters throws(VehicleFramesError) in
            try frames.acknowledgementFrame(for: command, result: result, counters: &counters)
        }
    }

    /// Builds one frame and applies the transmit faults. `explicitOnly`: only rules
    /// naming this message corrupt it (acknowledgements); silence always applies.
    private mutating func transmit(
        _ name: String, keys: [PropertyKey], explicitOnly: Bool, at now: Duration,
        build: (VehicleFrames, inout [String: UInt8]) throws(VehicleFramesError) -> CANFrame?
    ) -> CANFrame? {
        let silenced = takeFaults(at: now, message: name, keys: keys) { $0 == .silence || $0 == .busOff }
        if !silenced.isEmpty {
            statistics.framesSuppressed += 1
            return nil
        }
        let protection = profile.protection[name]?.protection
        var corrupted = false
        if protection != nil, !faults.rules.isEmpty, let previous = lastCounters[name],
            !takeFaults(at: now, message: name, keys: keys, explicitOnly: explicitOnly, where: { $0 == .repeatCounter }).isEmpty
        {
            statusCounters[name] = previous
            corrupted = true
        }
        let counter = statusCounters[name] ?? 0
        var frame: CANFrame?
        do {
            frame = try build(frames, &statusCounters)
        } catch {
            record(.faultInjected, name, nil, "cannot build frame: \(error)", at: now)
            return nil
        }
        guard var frame else { return nil }
        if protection != nil { lastCounters[name] = counter }
        if let checksum = protection?.checksum, checksum.bytes.upperBound < frame.data.count,
            !takeFaults(at: now, message: name, keys: keys, explicitOnly: explicitOnly, where: { $0 == .badCRC }).isEmpty
        {
            // Every bit of the checksum inverted, the rest of the frame as it was.
            let mask: UInt64 = checksum.length >= 64 ? .max : (1 << UInt64(checksum.length)) - 1
            checksum.write(checksum.read(frame.data) ^ mask, into: &frame.data)
            corrupted = true
        }
        if corrupted { statistics.framesCorrupted += 1 }
        statistics.framesSent += 1
        return frame
    }

    // MARK: - Faults

    /// The active rules of the kinds `kind` accepts whose scope covers the event; each
    /// one's count goes down by one, and used-up rules are removed.
    private mutating func takeFaults(
        at now: Duration, message: String, keys: [PropertyKey], explicitOnly: Bool = false,
        where kind: (FaultRule.Kind) -> Bool
    ) -> [FaultRule] {
        var matched: [FaultRule] = []
        var index = 0
        while index < faults.rules.count {
            var rule = faults.rules[index]
            if kind(rule.kind), rule.isActive(at: now), rule.matches(message: message, keys: keys),
                !explicitOnly || rule.message == message
            {
                matched.append(rule)
                if let count = rule.count {
                    rule.count = count - 1
                    if count - 1 <= 0 {
                        faults.rules.remove(at: index)
                        continue
                    }
                    faults.rules[index] = rule
                }
            }
            index += 1
        }
        return matched
    }

    // MARK: - Dynamics

    private var climateIsOn: Bool {
        if let on = state[.climateControl] { return on == .bool(true) }
        if let fan = state[.fan] { return fan == .bool(true) }
        return true
    }

    /// The mean of the zones' target temperatures the state holds.
    private var meanTarget: Double? {
        let targets = (profile.climate?.zones ?? []).compactMap { state[.temperature(zone: $0.id)]?.doubleValue }
        guard !targets.isEmpty else { return nil }
        return targets.reduce(0, +) / Double(targets.count)
    }

    private var cabinIsMoving: Bool {
        guard climateIsOn, let cabin = state[.cabinTemperature]?.doubleValue, let target = meanTarget else { return false }
        return abs(cabin - target) > 1e-9
    }

    /// Charging without a connector plugged in (a `power.charging` override): the
    /// fixed `chargeRatePerMinute`. Plugged in, the drivetrain model charges.
    private var isChargingUnplugged: Bool {
        drive.connector == nil && state[.charging] == .bool(true) && (state[.chargePercent]?.doubleValue ?? 100) < 100
    }

    /// Dynamics changes reach cyclic messages by themselves; event-only messages need
    /// ticks of their own.
    private var physicsNeedsTicks: Bool {
        (cabinReportedByEvent && cabinIsMoving) || (powerReportedByEvent && (isChargingUnplugged || drivetrainIsMoving))
    }

    /// Moves cabin temperature, charge and range on to `now`; returns the event-only
    /// status messages whose reported values changed.
    mutating func advancePhysics(to now: Duration) -> [String] {
        let elapsed = FaultRule.milliseconds(now - lastPhysics) / 1000
        lastPhysics = now
        guard elapsed > 0 else { return [] }
        let before = state
        if cabinIsMoving, let cabin = state[.cabinTemperature]?.doubleValue, let target = meanTarget {
            let step = dynamics.cabinTemperatureRate * elapsed
            let next = abs(target - cabin) <= step ? target : cabin + (target > cabin ? step : -step)
            state[.cabinTemperature] = .number(next)
        }
        advanceDrivetrain(seconds: elapsed)
        if isChargingUnplugged, let charge = state[.chargePercent]?.doubleValue {
            let next = min(100, charge + dynamics.chargeRatePerMinute * elapsed / 60)
            state[.chargePercent] = .number(next)
            if state[.minutesToFull] != nil {
                let minutes = dynamics.chargeRatePerMinute > 0 ? Int(((100 - next) / dynamics.chargeRatePerMinute).rounded(.up)) : 0
                state[.minutesToFull] = .integer(minutes)
            }
            if next >= 100 { state[.charging] = .bool(false) }
        }
        var names: Set<String> = []
        for key in state.changes(from: before) {
            guard let new = state[key], let old = before[key],
                frames.reportedValue(new, for: key) != frames.reportedValue(old, for: key)
            else { continue }
            for name in statusByKey[key] ?? [] where frames.statusMessages[name]?.cycleTime == nil { names.insert(name) }
        }
        return Array(names)
    }

    // MARK: - Bookkeeping

    mutating func advanceTime(_ now: Duration) -> Duration {
        if now > latest { latest = now }
        return latest
    }

    private mutating func record(_ kind: SimulationLogEntry.Kind, _ message: String, _ counter: UInt8?, _ detail: @autoclosure () -> String, at now: Duration) {
        // carplayd's embedded vehicle keeps no log (nobody drains it): no text built per command.
        guard logLimit > 0 else { return }
        log.append(SimulationLogEntry(time: now, kind: kind, message: message, counter: counter, detail: detail()))
        // Trimmed in batches of `logLimit / 4`: dropping one entry per command would move
        // the whole list every time.
        if log.count > logLimit + max(1, logLimit / 4) { log.removeFirst(log.count - logLimit) }
    }

    private static func describe(_ command: HeadUnitCommand) -> String {
        var text = command.changes.isEmpty ? "no change requested" : Self.describe(command.changes)
        if !command.unreadable.isEmpty { text += "; unreadable: " + command.unreadable.map(\.rawValue).joined(separator: ", ") }
        return text
    }

    static func describe(_ values: [PropertyKey: PropertyValue]) -> String {
        values.keys.sorted().map { "\($0)=\(values[$0]!)" }.joined(separator: ", ")
    }
}
