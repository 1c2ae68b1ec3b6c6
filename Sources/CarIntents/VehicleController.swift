import CANBus
import CANKit
import CarplayJSON
import VehicleKit

/// Why a command was not confirmed.
public enum CommandFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// No status frame showed the change in time; `reported` is what the vehicle last said.
    case timeout(waited: Duration, reported: [PropertyKey: PropertyValue])
    /// The vehicle acknowledged the command with a rejection (its DBC choice name).
    case rejected(message: String, result: String)
    /// Status frames arrived but were not trusted (wrong CRC, repeated or skipped counter).
    case e2eError(message: String, status: E2EStatus)
    /// The frame could not be sent.
    case bus(CANBusError)
    /// No trusted status frame for several cycle times.
    case vehicleUnreachable
    /// The targets cannot be put into frames (a profile without that binding).
    case unencodable(String)

    /// A short machine-readable reason, used as the response's `reason`.
    public var reason: String {
        switch self {
        case .timeout: "timeout"
        case .rejected: "rejectedByVehicle"
        case .e2eError: "e2eError"
        case .bus: "busError"
        case .vehicleUnreachable: "vehicleUnreachable"
        case .unencodable: "unencodable"
        }
    }

    public var description: String {
        switch self {
        case let .timeout(waited, reported):
            let shown = reported.keys.sorted().map { "\($0) = \(reported[$0]!)" }.joined(separator: ", ")
            return "no confirmation within \(waited)" + (shown.isEmpty ? "" : "; the vehicle reports \(shown)")
        case let .rejected(message, result): return "the vehicle rejected \(message): \(result)"
        case let .e2eError(message, status): return "status frames of \(message) failed the E2E check (\(status))"
        case let .bus(error): return error.description
        case .vehicleUnreachable: return "the vehicle sends no status frames"
        case let .unencodable(reason): return reason
        }
    }
}

/// The outcome of one command: what was confirmed, what failed, and every frame
/// sent and received while it ran (in bus order).
public struct CommandOutcome: Sendable {
    public var targets: [PropertyKey: PropertyValue]
    public var confirmed: [PropertyKey: PropertyValue]
    public var failure: CommandFailure?
    public var frames: [ReceivedFrame]

    public var succeeded: Bool { failure == nil }
}

/// The head unit's side of the bus: keeps the live vehicle state from trusted status
/// frames, sends commands and reports success only when status frames confirm them.
public actor VehicleController {
    public nonisolated let profile: VehicleProfile
    private let frames: VehicleFrames
    private let port: any CANPort
    private let clock = ContinuousClock()

    private var state = VehicleState()
    private var counters: [String: UInt8] = [:]
    private var checkers: [String: E2EChecker] = [:]
    private var lastTrustedStatus: ContinuousClock.Instant?
    /// Status messages received (trusted) at least once.
    private var heardFrom: Set<String> = []
    private var receiveTask: Task<Void, Never>?
    private var e2eErrors = 0

    /// A command waiting for its confirmation.
    private struct Waiter {
        var expected: [PropertyKey: PropertyValue]
        var confirmed: [PropertyKey: PropertyValue] = [:]
        /// Command frames sent for it: (frame ID, alive counter) to match acknowledgements.
        var sent: [(id: UInt32, counter: UInt8?, message: String)] = []
        var statusMessages: Set<String>
        var lastE2EError: (message: String, status: E2EStatus)?
        var frames: [ReceivedFrame] = []
        var continuation: CheckedContinuation<CommandFailure?, Never>?
        /// An outcome that arrived before the continuation was installed (while sending).
        var early: CommandFailure??
        /// Set once the frames are sent: when the command times out, and its timeout.
        var deadline: ContinuousClock.Instant?
        var timeout: Duration = .zero
    }

    /// One sleeping task expires the waiters whose deadline passed (instead of a task
    /// per command): it sleeps until the earliest deadline it knows of.
    private var reaper: Task<Void, Never>?
    private var reaperWakes: ContinuousClock.Instant?
    private var reaperGeneration = 0

    private var waiters: [Int: Waiter] = [:]
    private var nextWaiter = 0
    /// Observers of state changes (Monitor): each gets the changed keys and the frame.
    private var observers: [Int: AsyncStream<StateChange>.Continuation] = [:]

    public init(profile: VehicleProfile, port: any CANPort) {
        self.profile = profile
        self.frames = VehicleFrames(profile: profile)
        self.port = port
    }

    /// Starts reading the bus.
    public func start() {
        guard receiveTask == nil else { return }
        let stream = port.frames
        receiveTask = Task { [weak self] in
            for await received in stream {
                guard let self else { return }
                await self.handle(received)
            }
            await self?.readerEnded()
        }
    }

    private var readerFinished = false
    private func readerEnded() { readerFinished = true }

    /// The CAN reader is running: started and its frame stream has not ended. Answering
    /// at all shows the controller's actor is not wedged (the systemd watchdog asks).
    public var isReading: Bool { receiveTask != nil && !readerFinished }

    public func stop() async {
        reaper?.cancel()
        reaper = nil
        reaperWakes = nil
        receiveTask?.cancel()
        receiveTask = nil
        for (id, waiter) in waiters { waiter.continuation?.resume(returning: .vehicleUnreachable); waiters[id] = nil }
        for (_, observer) in observers { observer.finish() }
        observers.removeAll()
        for (id, waiter) in conditionWaiters {
            conditionWaiters[id] = nil
            waiter.continuation.resume(returning: false)
        }
    }

    public var currentState: VehicleState { state }

    /// The state and whether the vehicle is reachable, read in one hop to the actor.
    public func snapshot() -> (state: VehicleState, reachable: Bool) { (state, isReachable) }

    /// `currentState.jsonValue` serialized (sorted keys): made once per state change,
    /// from per-property fragments that are serialized only when their value changes.
    public func stateJSON() -> [UInt8] {
        if let cached = stateJSONCache { return cached }
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(stateFragments.count * 40 + 2)
        for (index, key) in fragmentOrder.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: stateFragments[key]!)
        }
        bytes.append(UInt8(ascii: "}"))
        stateJSONCache = bytes
        return bytes
    }

    /// The state and `stateJSON()` read together (tests compare them).
    func stateWithJSON() -> (state: VehicleState, json: [UInt8]) { (state, stateJSON()) }

    private var stateJSONCache: [UInt8]?
    /// Per known property its `"key":value` JSON text, and the keys in the UTF-8 order
    /// of their names (the order `JSONValue` writes object keys in).
    private var stateFragments: [PropertyKey: [UInt8]] = [:]
    private var fragmentOrder: [PropertyKey] = []

    /// Re-serializes the fragments of `keys` after their values changed.
    private func stateChanged(_ keys: [PropertyKey]) {
        stateJSONCache = nil
        var added = false
        for key in keys {
            guard let value = state[key] else { continue }
            if stateFragments[key] == nil { added = true }
            var fragment: [UInt8] = []
            JSONValue.string(key.rawValue).write(to: &fragment)
            fragment.append(UInt8(ascii: ":"))
            value.jsonValue.write(to: &fragment, sortedKeys: true)
            stateFragments[key] = fragment
        }
        if added { fragmentOrder = stateFragments.keys.sorted { $0.rawValue.utf8.lexicographicallyPrecedes($1.rawValue.utf8) } }
    }
    public var trustFailures: Int { e2eErrors }
    /// The latest untrusted frame from the vehicle's IDs (for the log): the message and
    /// why (wrong CRC, repeated or skipped alive counter), nil before the first.
    public var lastTrustFailure: String? { lastUntrusted }
    private var lastUntrusted: String?
    /// Commands sent and still waiting for their confirmation (0 when idle: nothing is
    /// left pending after every `apply` returned).
    public var pendingCommands: Int { waiters.count }

    /// True when a trusted status frame arrived within `unreachableAfterCycles` cycle times.
    public var isReachable: Bool {
        guard let last = lastTrustedStatus else { return false }
        return clock.now - last <= reachabilityWindow
    }

    private var reachabilityWindow: Duration {
        let cycles = frames.statusMessages.values.compactMap(\.cycleTime)
        // The fastest cyclic message sets the pace: a live vehicle sends it every cycle.
        let fastest = cycles.min() ?? .milliseconds(100)
        return fastest * max(1, profile.policies.unreachableAfterCycles)
    }

    /// Waits until the vehicle has sent a trusted status frame (up to `timeout`).
    public func waitUntilReachable(timeout: Duration) async -> Bool {
        await wait(for: .reachable, timeout: timeout)
    }

    /// Waits until every status message of the profile has arrived at least once, so
    /// the state is complete (up to `timeout`); returns whether it is.
    public func waitUntilComplete(timeout: Duration) async -> Bool {
        await wait(for: .complete, timeout: timeout)
    }

    /// The state once it holds every key in `keys` (the vehicle reports them within a
    /// cycle time), or nil after `timeout`.
    public func state(knowing keys: [PropertyKey], timeout: Duration) async -> VehicleState? {
        await wait(for: .knowing(keys), timeout: timeout) ? state : nil
    }

    /// What a caller of the waits above waits for; checked after every trusted frame.
    private enum Condition {
        case reachable
        case complete
        case knowing([PropertyKey])
    }

    private var conditionWaiters: [Int: (condition: Condition, continuation: CheckedContinuation<Bool, Never>)] = [:]

    private func holds(_ condition: Condition) -> Bool {
        switch condition {
        case .reachable: isReachable
        case .complete: heardFrom.count >= frames.statusMessages.count
        case let .knowing(keys): keys.allSatisfy { state[$0] != nil }
        }
    }

    private func wait(for condition: Condition, timeout: Duration) async -> Bool {
        if holds(condition) { return true }
        let id = nextWaiter
        nextWaiter += 1
        let timer = Task { [weak self] in
            do { try await Task.sleep(for: timeout) } catch { return }
            await self?.giveUp(id)
        }
        let met = await withCheckedContinuation { conditionWaiters[id] = (condition, $0) }
        timer.cancel()
        return met
    }

    private func giveUp(_ id: Int) {
        conditionWaiters.removeValue(forKey: id)?.continuation.resume(returning: false)
    }

    private func checkConditions() {
        guard !conditionWaiters.isEmpty else { return }
        for (id, waiter) in conditionWaiters where holds(waiter.condition) {
            conditionWaiters[id] = nil
            waiter.continuation.resume(returning: true)
        }
    }

    /// State changes as they happen, with the frame that caused each.
    public func changes() -> AsyncStream<StateChange> {
        let (stream, continuation) = AsyncStream<StateChange>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = nextWaiter
        nextWaiter += 1
        observers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeObserver(id) } }
        return stream
    }

    private func removeObserver(_ id: Int) { observers[id] = nil }

    /// Sends the commands that set `targets` and waits until status frames show every
    /// target (as the status signals quantize it), the vehicle rejects a command, or
    /// `timeout` passes.
    public func apply(_ targets: [PropertyKey: PropertyValue], timeout: Duration) async -> CommandOutcome {
        let first = await applyOnce(targets, timeout: timeout)
        // A vehicle that has never acknowledged us may still hold the alive counters of
        // a previous head unit (this daemon restarted): it drops our first frames as out
        // of sequence and resynchronises. One more try settles it; later timeouts stand.
        if acknowledgements == 0, case .timeout? = first.failure {
            var second = await applyOnce(targets, timeout: timeout)
            second.frames = first.frames + second.frames
            return second
        }
        return first
    }

    /// Acknowledgements received from the vehicle (any command).
    private var acknowledgements = 0

    private func applyOnce(_ targets: [PropertyKey: PropertyValue], timeout: Duration) async -> CommandOutcome {
        guard !targets.isEmpty else { return CommandOutcome(targets: targets, confirmed: [:], failure: nil, frames: []) }
        guard isReachable else {
            return CommandOutcome(targets: targets, confirmed: [:], failure: .vehicleUnreachable, frames: [])
        }
        let commandFrames: [CANFrame]
        do {
            commandFrames = try frames.commandFrames(for: targets, context: state, counters: &counters)
        } catch {
            return CommandOutcome(targets: targets, confirmed: [:], failure: .unencodable(error.description), frames: [])
        }
        var expected: [PropertyKey: PropertyValue] = [:]
        var statusMessages = Set<String>()
        var context = state
        for (key, value) in targets { context[key] = value }
        for (key, value) in targets {
            expected[key] = frames.reportedValue(value, for: key, context: context) ?? value
            if let binding = profile.bindings[key] { statusMessages.insert(binding.status.message) }
        }
        let id = nextWaiter
        nextWaiter += 1
        waiters[id] = Waiter(expected: expected, statusMessages: statusMessages)

        for frame in commandFrames {
            // Recorded before sending: the acknowledgement may arrive while `send` awaits.
            let message = profile.database.message(id: frame.id)?.name ?? ""
            let counter = profile.e2e[message].map { $0.protection.counter(in: frame.data) }
            waiters[id]?.sent.append((frame.id.rawValue, counter, message))
            do {
                let sent: ReceivedFrame
                if let immediate = port.sendImmediately(frame) { sent = try immediate.get() } else { sent = try await port.send(frame) }
                waiters[id]?.frames.append(sent)
            } catch {
                let recorded = waiters.removeValue(forKey: id)
                return CommandOutcome(targets: targets, confirmed: recorded?.confirmed ?? [:], failure: .bus(error), frames: recorded?.frames ?? [])
            }
        }

        let deadline = clock.now + timeout
        waiters[id]?.deadline = deadline
        waiters[id]?.timeout = timeout
        armReaper(for: deadline)
        let failure: CommandFailure? = await withCheckedContinuation { continuation in
            if let early = waiters[id]?.early {
                continuation.resume(returning: early)
                return
            }
            if let waiter = waiters[id], waiter.confirmed.count == waiter.expected.count {
                continuation.resume(returning: nil)
                return
            }
            waiters[id]?.continuation = continuation
        }
        let finished = waiters.removeValue(forKey: id)
        return CommandOutcome(targets: targets, confirmed: finished?.confirmed ?? [:], failure: failure, frames: finished?.frames ?? [])
    }

    /// Makes sure the reaper wakes by `deadline`.
    private func armReaper(for deadline: ContinuousClock.Instant) {
        if reaper != nil, let wakes = reaperWakes, wakes <= deadline { return }
        reaper?.cancel()
        reaperGeneration += 1
        let generation = reaperGeneration
        reaperWakes = deadline
        let clock = clock
        reaper = Task { [weak self] in
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return
            }
            await self?.reap(generation)
        }
    }

    /// Expires the waiters whose deadline passed; re-arms for the next deadline.
    private func reap(_ generation: Int) {
        guard generation == reaperGeneration else { return }
        reaper = nil
        reaperWakes = nil
        let now = clock.now
        var next: ContinuousClock.Instant?
        for (id, waiter) in waiters {
            guard let deadline = waiter.deadline else { continue }
            if deadline <= now {
                expire(id, after: waiter.timeout)
            } else if waiter.continuation != nil || waiter.early == nil {
                next = next.map { min($0, deadline) } ?? deadline
            }
        }
        if let next { armReaper(for: next) }
    }

    private func expire(_ id: Int, after waited: Duration) {
        guard let waiter = waiters[id], let continuation = waiter.continuation else { return }
        waiters[id]?.continuation = nil
        if let error = waiter.lastE2EError, waiter.confirmed.count < waiter.expected.count {
            continuation.resume(returning: .e2eError(message: error.message, status: error.status))
            return
        }
        var reported: [PropertyKey: PropertyValue] = [:]
        for key in waiter.expected.keys where waiter.confirmed[key] == nil {
            if let value = state[key] { reported[key] = value }
        }
        continuation.resume(returning: .timeout(waited: waited, reported: reported))
    }

    private func finish(_ id: Int, with failure: CommandFailure?) {
        guard let continuation = waiters[id]?.continuation else {
            // Still sending: keep the first outcome for when the waiter starts waiting.
            if waiters[id] != nil, waiters[id]?.early == nil { waiters[id]?.early = .some(failure) }
            return
        }
        waiters[id]?.continuation = nil
        continuation.resume(returning: failure)
    }

    // MARK: - Receiving

    private func handle(_ received: ReceivedFrame) {
        let content = frames.decodeFromVehicle(received.frame, context: state, checkers: &checkers)
        // Every waiter records the frames of its window, related or not, as candump would.
        for id in waiters.keys { waiters[id]?.frames.append(received) }
        switch content {
        case let .status(message, values):
            lastTrustedStatus = clock.now
            heardFrom.insert(message)
            var changed: [PropertyKey] = []
            for (key, value) in values where state[key] != value {
                state[key] = value
                changed.append(key)
            }
            if !changed.isEmpty { stateChanged(changed) }
            if !changed.isEmpty, !observers.isEmpty {
                let change = StateChange(keys: changed.sorted(), state: state, frame: received)
                for observer in observers.values { observer.yield(change) }
            }
            for (id, waiter) in waiters where waiter.statusMessages.contains(message) {
                var confirmed = waiter.confirmed
                for (key, want) in waiter.expected {
                    guard let value = values[key] else { continue }
                    if Self.matches(value, want) { confirmed[key] = value } else { confirmed[key] = nil }
                }
                waiters[id]?.confirmed = confirmed
                if confirmed.count == waiter.expected.count { finish(id, with: nil) }
            }
            checkConditions()
        case let .acknowledgement(ack):
            lastTrustedStatus = clock.now
            acknowledgements += 1
            checkConditions()
            guard !ack.accepted else { return }
            for (id, waiter) in waiters {
                if let sent = waiter.sent.first(where: { $0.id == ack.commandFrameID && ($0.counter == nil || $0.counter == ack.counter) }) {
                    finish(id, with: .rejected(message: sent.message, result: ack.result))
                }
            }
        case let .e2eError(message, status):
            e2eErrors += 1
            lastUntrusted = "\(message) \(received.frame.id): \(Self.describe(status))"
            for (id, waiter) in waiters where waiter.statusMessages.contains(message) {
                waiters[id]?.lastE2EError = (message, status)
            }
        case .undecodable, .unrelated:
            break
        }
    }

    /// An E2E verdict for the log: "wrongCRC", "repeated counter",
    /// "wrongSequence: counter 8, expected 7", "invalidLength: 3 bytes, 8 needed".
    static func describe(_ status: E2EStatus) -> String {
        switch status {
        case .ok: "ok"
        case .wrongCRC: "wrongCRC"
        case .repeated: "repeated counter"
        case let .wrongSequence(expected?, received): "wrongSequence: counter \(received), expected \(expected)"
        case let .wrongSequence(nil, received): "wrongSequence: counter \(received)"
        case let .invalidLength(required, received): "invalidLength: \(received) bytes, \(required) needed"
        }
    }

    /// Numbers compare with a tolerance (status signals carry them scaled).
    static func matches(_ value: PropertyValue, _ expected: PropertyValue) -> Bool {
        switch (value, expected) {
        case let (.number(a), .number(b)): return abs(a - b) <= 1e-6 * max(1, abs(b))
        case let (.integer(a), .number(b)), let (.number(b), .integer(a)): return abs(Double(a) - b) <= 1e-6 * max(1, abs(b))
        default: return value == expected
        }
    }
}

/// One change of the live state and the status frame that caused it.
public struct StateChange: Sendable {
    public var keys: [PropertyKey]
    public var state: VehicleState
    public var frame: ReceivedFrame
}
