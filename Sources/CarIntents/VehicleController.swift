import CANBus
import CANKit
import Synchronization
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
        case let .e2eError(message, status): return "frames of \(message) failed the E2E check (\(status))"
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
///
/// Its state lives behind one lock rather than in an actor: when the port delivers
/// directly (the in-process bus, SocketCAN's reader thread) a status frame is decoded
/// and matched on the thread that received it, and a command whose confirmation arrived
/// while it was being sent (the in-process simulated vehicle answers at once) returns
/// without suspending. Continuations are resumed and streams finished outside the lock.
/// Commands on the same command message must not be applied concurrently (the engine
/// runs them one at a time): their alive counters are taken in order, but two sends from
/// different tasks may reach the bus in either order.
public final class VehicleController: Sendable {
    public let profile: VehicleProfile
    private let frames: VehicleFrames
    private let port: any CANPort
    private let clock = ContinuousClock()
    /// How long after the last trusted frame the vehicle still counts as reachable: the
    /// fastest cyclic status message times `unreachableAfterCycles`.
    private let reachabilityWindow: Duration
    /// Command messages with a period: consecutive frames of one (a request held) go
    /// out that far apart.
    private let pacing: [CANID: Duration]
    /// Whether any property is commanded by steps / by toggle (asked per command).
    private let hasSteps: Bool
    private let hasToggles: Bool
    private let core = Mutex(Core())
    /// The alive counters of the command messages: encoding takes them, outside `core`,
    /// so that a status frame is not held up by a command being built.
    private let encoder = Mutex<[String: UInt8]>([:])
    /// The E2E checkers of the status messages: decoding runs outside `core` too (frames
    /// arrive one at a time per sender; only `handle` changes the state they are read in).
    private let decoder = Mutex<[String: FrameChecker]>([:])

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
        /// The outcome when it arrived before the continuation was installed (while sending).
        var settledWhileSending: Settled?
        /// Set once the frames are sent: when the command times out, and its timeout.
        var deadline: ContinuousClock.Instant?
        var timeout: Duration = .zero

        var isConfirmed: Bool { confirmed.count == expected.count }
    }

    /// How a command ended: confirmed (no failure) or failed.
    struct Settled {
        var failure: CommandFailure?
    }

    /// What a caller of the waits below waits for; checked after every trusted frame.
    private enum Condition {
        case reachable
        case complete
        case knowing([PropertyKey])
    }

    /// A continuation to resume once the lock is released.
    private enum Wake {
        case command(CheckedContinuation<CommandFailure?, Never>, CommandFailure?)
        case condition(CheckedContinuation<Bool, Never>, Bool, timer: Task<Void, Never>?)

        func fire() {
            switch self {
            case let .command(continuation, failure): continuation.resume(returning: failure)
            case let .condition(continuation, met, timer):
                timer?.cancel()
                continuation.resume(returning: met)
            }
        }
    }

    /// Everything mutable.
    private struct Core {
        var state = VehicleState()
        var lastTrustedStatus: ContinuousClock.Instant?
        /// Status messages received (trusted) at least once.
        var heardFrom: Set<String> = []
        var started = false
        var receiveTask: Task<Void, Never>?
        var readerFinished = false
        var untrustedFrames = 0
        var lastUntrustedFrame: String?
        /// Acknowledgements received from the vehicle (any command).
        var acknowledgements = 0

        /// One sleeping task expires the waiters whose deadline passed (instead of a task
        /// per command): it sleeps until the earliest deadline it knows of.
        var reaper: Task<Void, Never>?
        var reaperWakes: ContinuousClock.Instant?
        var reaperGeneration = 0

        var waiters: [Int: Waiter] = [:]
        var nextID = 0
        /// Observers of state changes (Monitor): each gets the changed keys and the frame.
        var observers: [Int: AsyncStream<StateChange>.Continuation] = [:]
        var conditionWaiters: [Int: (condition: Condition, continuation: CheckedContinuation<Bool, Never>, timer: Task<Void, Never>?)] = [:]

        /// Counts state changes, so a reader can cache what it derives from the state.
        var stateVersion = 0

        mutating func makeID() -> Int {
            defer { nextID += 1 }
            return nextID
        }
    }

    public init(profile: VehicleProfile, port: any CANPort) {
        self.profile = profile
        self.frames = VehicleFrames(profile: profile)
        self.port = port
        let cycles = frames.statusMessages.values.compactMap(\.cycleTime)
        // The fastest cyclic message sets the pace: a live vehicle sends it every cycle.
        let fastest = cycles.min() ?? .milliseconds(100)
        self.reachabilityWindow = fastest * max(1, profile.policies.unreachableAfterCycles)
        var pacing: [CANID: Duration] = [:]
        for name in frames.commandMessages {
            if let message = profile.database.message(named: name), let cycle = profile.cycleTime(of: message) { pacing[message.canID] = cycle }
        }
        self.pacing = pacing
        let frames = frames
        self.hasSteps = profile.bindings.keys.contains { frames.commandKind(of: $0) == "step" }
        self.hasToggles = profile.bindings.keys.contains { frames.commandKind(of: $0) == "toggle" }
    }

    /// Starts reading the bus.
    public func start() async {
        let first = core.withLock { core -> Bool in
            guard !core.started else { return false }
            core.started = true
            return true
        }
        guard first else { return }
        let receiver = CANReceiver(
            frame: { [weak self] received in self?.handle(received) },
            finished: { [weak self] in self?.readerEnded() })
        let stream = port.frames
        if port.deliverDirectly(to: receiver) {
            // Frames that arrived before (the port's stream finishes once attached).
            for await received in stream { handle(received) }
            return
        }
        let task = Task { [weak self] in
            for await received in stream {
                guard let self else { return }
                self.handle(received)
            }
            self?.readerEnded()
        }
        core.withLock { $0.receiveTask = task }
    }

    private func readerEnded() { core.withLock { $0.readerFinished = true } }

    /// The CAN reader is running: started and its frames have not ended. Answering at all
    /// shows the controller's lock is not wedged (the systemd watchdog asks).
    public var isReading: Bool { core.withLock { $0.started && !$0.readerFinished } }

    public func stop() {
        let (wakes, observers, reaper, receiveTask) = core.withLock { core in
            var wakes: [Wake] = []
            for (_, waiter) in core.waiters {
                if let continuation = waiter.continuation { wakes.append(.command(continuation, .vehicleUnreachable)) }
            }
            core.waiters.removeAll()
            for (_, waiter) in core.conditionWaiters { wakes.append(.condition(waiter.continuation, false, timer: waiter.timer)) }
            core.conditionWaiters.removeAll()
            let observers = Array(core.observers.values)
            core.observers.removeAll()
            let reaper = core.reaper
            core.reaper = nil
            core.reaperWakes = nil
            let receiveTask = core.receiveTask
            core.receiveTask = nil
            core.started = false
            return (wakes, observers, reaper, receiveTask)
        }
        reaper?.cancel()
        receiveTask?.cancel()
        for wake in wakes { wake.fire() }
        for observer in observers { observer.finish() }
    }

    public var currentState: VehicleState { core.withLock { $0.state } }

    /// The state and whether the vehicle is reachable, read together.
    public func snapshot() -> (state: VehicleState, reachable: Bool) {
        core.withLock { ($0.state, isReachable($0)) }
    }

    /// The state and its version, which changes whenever the state does (the service
    /// serializes the state once per version).
    public func versionedState() -> (state: VehicleState, version: Int) {
        core.withLock { ($0.state, $0.stateVersion) }
    }

    /// Frames from the vehicle's IDs that failed their protection check (wrong CRC,
    /// repeated or skipped alive counter): GetState's `bus.untrustedFrames`.
    public var untrustedFrames: Int { core.withLock { $0.untrustedFrames } }

    /// The latest untrusted frame (for the log): the message and why, nil before the first.
    public var lastUntrustedFrame: String? { core.withLock { $0.lastUntrustedFrame } }

    /// Commands sent and still waiting for their confirmation (0 when idle: nothing is
    /// left pending after every `apply` returned).
    public var pendingCommands: Int { core.withLock { $0.waiters.count } }

    /// True when a trusted status frame arrived within `unreachableAfterCycles` cycle times.
    public var isReachable: Bool { core.withLock { isReachable($0) } }

    private func isReachable(_ core: Core) -> Bool {
        guard let last = core.lastTrustedStatus else { return false }
        return clock.now - last <= reachabilityWindow
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
        await wait(for: .knowing(keys), timeout: timeout) ? currentState : nil
    }

    private func holds(_ condition: Condition, _ core: Core) -> Bool {
        switch condition {
        case .reachable: isReachable(core)
        case .complete: core.heardFrom.count >= frames.statusMessages.count
        case let .knowing(keys): keys.allSatisfy { core.state[$0] != nil }
        }
    }

    private func wait(for condition: Condition, timeout: Duration) async -> Bool {
        if core.withLock({ holds(condition, $0) }) { return true }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let registered = core.withLock { core -> Bool in
                if holds(condition, core) { return false }
                let id = core.makeID()
                // The timer starts once the waiter is in place, so it cannot miss it.
                let timer = Task { [weak self] in
                    do { try await Task.sleep(for: timeout) } catch { return }
                    self?.giveUp(id)
                }
                core.conditionWaiters[id] = (condition, continuation, timer)
                return true
            }
            if !registered { continuation.resume(returning: true) }
        }
    }

    private func giveUp(_ id: Int) {
        let waiter = core.withLock { $0.conditionWaiters.removeValue(forKey: id) }
        waiter?.continuation.resume(returning: false)
    }

    private func checkConditions(_ core: inout Core, _ wakes: inout [Wake]) {
        guard !core.conditionWaiters.isEmpty else { return }
        for (id, waiter) in core.conditionWaiters where holds(waiter.condition, core) {
            core.conditionWaiters[id] = nil
            wakes.append(.condition(waiter.continuation, true, timer: waiter.timer))
        }
    }

    /// State changes as they happen, with the frame that caused each.
    public func changes() -> AsyncStream<StateChange> {
        let (stream, continuation) = AsyncStream<StateChange>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = core.withLock { core in
            let id = core.makeID()
            core.observers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.removeObserver(id) }
        return stream
    }

    private func removeObserver(_ id: Int) { _ = core.withLock { $0.observers.removeValue(forKey: id) } }

    /// Sends the commands that set `targets` and waits until status frames show every
    /// target (as the status signals quantize it), the vehicle rejects a command, or
    /// `timeout` passes. Stepped properties are pressed one step at a time, each step
    /// waiting for the status to move (`StepCommand.stepTimeout`), after the others.
    public func apply(_ targets: [PropertyKey: PropertyValue], timeout: Duration) async -> CommandOutcome {
        let first = await applyOnce(targets, timeout: timeout)
        // A vehicle that has never acknowledged us may still hold the alive counters of
        // a previous head unit (this daemon restarted): it drops our first frames as out
        // of sequence and resynchronises. One more try settles it; later timeouts stand.
        // Only setpoints are sent again: a press sent twice is two presses.
        if profile.acknowledgement != nil, core.withLock({ $0.acknowledgements == 0 }), case .timeout? = first.failure,
           targets.keys.allSatisfy({ frames.commandKind(of: $0) == "setpoint" }) {
            var second = await applyOnce(targets, timeout: timeout)
            second.frames = first.frames + second.frames
            return second
        }
        return first
    }

    private func applyOnce(_ targets: [PropertyKey: PropertyValue], timeout: Duration) async -> CommandOutcome {
        guard !targets.isEmpty else { return CommandOutcome(targets: targets, confirmed: [:], failure: nil, frames: []) }
        let (context, reachable) = core.withLock { ($0.state, isReachable($0)) }
        guard reachable else {
            return CommandOutcome(targets: targets, confirmed: [:], failure: .vehicleUnreachable, frames: [])
        }
        var direct = targets
        var stepped: [(key: PropertyKey, value: PropertyValue, command: StepCommand)] = []
        if hasSteps {
            for (key, value) in targets {
                guard let command = frames.stepCommand(of: key) else { continue }
                stepped.append((key, value, command))
                direct[key] = nil
            }
            stepped.sort { $0.key < $1.key }
        }
        var outcome = CommandOutcome(targets: targets, confirmed: [:], failure: nil, frames: [])
        if !direct.isEmpty {
            // A toggle pressed without knowing the state could flip it the wrong way.
            let toggles = hasToggles ? direct.keys.filter { frames.commandKind(of: $0) == "toggle" } : []
            var context = context
            if !toggles.isEmpty, toggles.contains(where: { context[$0] == nil }) {
                guard let known = await state(knowing: toggles, timeout: timeout) else {
                    return CommandOutcome(targets: targets, confirmed: [:], failure: .timeout(waited: timeout, reported: [:]), frames: [])
                }
                context = known
            }
            let encoded = encoder.withLock { counters in
                Result { () throws(VehicleFramesError) in try frames.commandFrames(for: direct, context: context, counters: &counters) }
            }
            let commandFrames: [CANFrame]
            switch encoded {
            case let .success(built): commandFrames = built
            case let .failure(error): return CommandOutcome(targets: targets, confirmed: [:], failure: .unencodable(error.description), frames: [])
            }
            // A toggle that already shows the target is not pressed: it is confirmed by the state.
            var shown: [PropertyKey: PropertyValue] = [:]
            for key in toggles { if let value = context[key], value == direct[key] { shown[key] = value } }
            let sent = await transmit(commandFrames, expecting: direct, confirmed: shown, context: context, timeout: timeout)
            outcome.confirmed = sent.confirmed
            outcome.frames = sent.frames
            outcome.failure = sent.failure
            if sent.failure != nil { return outcome }
        }
        for (key, value, command) in stepped {
            let result = await step(key, to: value, command: command, timeout: max(command.stepTimeout, timeout))
            outcome.frames += result.frames
            outcome.confirmed.merge(result.confirmed) { $1 }
            if let failure = result.failure {
                outcome.failure = failure
                return outcome
            }
        }
        return outcome
    }

    /// Presses `key` up or down until the status shows `target`: each press waits up to
    /// `timeout` for the status to move one step (the profile's step timeout, at least the
    /// confirmation timeout); a press it does not follow ends in `timeout` naming what the
    /// vehicle reports.
    private func step(_ key: PropertyKey, to target: PropertyValue, command: StepCommand, timeout: Duration) async -> CommandOutcome {
        var outcome = CommandOutcome(targets: [key: target], confirmed: [:], failure: nil, frames: [])
        let wanted = frames.reportedValue(target, for: key) ?? target
        var presses = 0
        while true {
            var state = core.withLock { $0.state }
            if state[key] == nil { state = await self.state(knowing: [key], timeout: timeout) ?? state }
            guard let current = state[key], let position = current.doubleValue, let goal = wanted.doubleValue else {
                outcome.failure = .timeout(waited: timeout, reported: [:])
                return outcome
            }
            if Self.matches(current, wanted) {
                outcome.confirmed[key] = current
                return outcome
            }
            let remaining = (goal - position) / command.step
            guard abs(remaining) >= 0.5 else {
                outcome.failure = .unencodable("\(key) = \(target) is not on the car's steps of \(command.step) from the \(current) it reports")
                return outcome
            }
            guard presses < command.maxSteps else {
                outcome.failure = .timeout(waited: timeout, reported: [key: current])
                return outcome
            }
            let up = remaining > 0
            let moved = position + (up ? command.step : -command.step)
            let next: PropertyValue = if case .integer = current { .integer(Int(moved.rounded())) } else { .number(moved) }
            let encoded = encoder.withLock { counters in
                Result { () throws(VehicleFramesError) in try frames.stepFrames(for: key, up: up, context: state, counters: &counters) }
            }
            guard case let .success(press) = encoded else {
                if case let .failure(error) = encoded { outcome.failure = .unencodable(error.description) }
                return outcome
            }
            let result = await transmit(press, expecting: [key: next], confirmed: [:], context: state, timeout: timeout)
            outcome.frames += result.frames
            presses += 1
            if let failure = result.failure {
                outcome.failure = failure
                return outcome
            }
        }
    }

    /// Sends `commandFrames` (consecutive frames of a message with a cycle time that
    /// far apart) and waits until status frames show `targets`, starting from `confirmed`.
    private func transmit(
        _ commandFrames: [CANFrame], expecting targets: [PropertyKey: PropertyValue], confirmed shown: [PropertyKey: PropertyValue],
        context: VehicleState, timeout: Duration
    ) async -> CommandOutcome {
        var expected: [PropertyKey: PropertyValue] = [:]
        var statusMessages = Set<String>()
        var after = context
        for (key, value) in targets { after[key] = value }
        for (key, value) in targets {
            expected[key] = frames.reportedValue(value, for: key, context: after) ?? value
            if let binding = profile.bindings[key] { statusMessages.insert(binding.status.message) }
        }
        var waiter = Waiter(expected: expected, statusMessages: statusMessages)
        waiter.confirmed = shown
        // Recorded before sending: the acknowledgement may arrive while `send` runs.
        for frame in commandFrames {
            let message = profile.database.message(id: frame.id)?.name ?? ""
            let counter = profile.protection[message]?.protection.counter(in: frame.data)
            waiter.sent.append((frame.id.rawValue, counter, message))
        }
        let id = core.withLock { core in
            let id = core.makeID()
            core.waiters[id] = waiter
            return id
        }

        for (index, frame) in commandFrames.enumerated() {
            if index > 0, let pause = pacing[frame.id], commandFrames[index - 1].id == frame.id {
                try? await Task.sleep(for: pause)
            }
            // Where the frame belongs among those the waiter records: an in-process bus
            // delivers the vehicle's answer before `send` returns.
            let position = core.withLock { $0.waiters[id]?.frames.count ?? 0 }
            do throws(CANBusError) {
                let sent: ReceivedFrame
                if let immediate = port.sendImmediately(frame) { sent = try immediate.get() } else { sent = try await port.send(frame) }
                core.withLock { core in
                    guard let count = core.waiters[id]?.frames.count else { return }
                    core.waiters[id]?.frames.insert(sent, at: min(position, count))
                }
            } catch {
                let recorded = core.withLock { $0.waiters.removeValue(forKey: id) }
                return CommandOutcome(targets: targets, confirmed: recorded?.confirmed ?? [:], failure: .bus(error), frames: recorded?.frames ?? [])
            }
        }

        // Answered while sending (the in-process vehicle): no suspension at all.
        let deadline = clock.now + timeout
        let settled = core.withLock { core -> (failure: CommandFailure?, waiter: Waiter?)? in
            guard let waiter = core.waiters[id] else { return (.vehicleUnreachable, nil) }
            if let settled = waiter.settledWhileSending { return (settled.failure, core.waiters.removeValue(forKey: id)) }
            if waiter.isConfirmed { return (nil, core.waiters.removeValue(forKey: id)) }
            core.waiters[id]?.deadline = deadline
            core.waiters[id]?.timeout = timeout
            armReaper(for: deadline, &core)
            return nil
        }
        if let settled {
            return CommandOutcome(targets: targets, confirmed: settled.waiter?.confirmed ?? [:], failure: settled.failure, frames: settled.waiter?.frames ?? [])
        }
        let failure: CommandFailure? = await withCheckedContinuation { continuation in
            let now = core.withLock { core -> Settled? in
                guard let waiter = core.waiters[id] else { return Settled(failure: .vehicleUnreachable) }
                if let settled = waiter.settledWhileSending { return settled }
                if waiter.isConfirmed { return Settled(failure: nil) }
                core.waiters[id]?.continuation = continuation
                return nil
            }
            if let now { continuation.resume(returning: now.failure) }
        }
        let finished = core.withLock { $0.waiters.removeValue(forKey: id) }
        return CommandOutcome(targets: targets, confirmed: finished?.confirmed ?? [:], failure: failure, frames: finished?.frames ?? [])
    }

    /// Makes sure the reaper wakes by `deadline`.
    private func armReaper(for deadline: ContinuousClock.Instant, _ core: inout Core) {
        if core.reaper != nil, let wakes = core.reaperWakes, wakes <= deadline { return }
        core.reaper?.cancel()
        core.reaperGeneration += 1
        let generation = core.reaperGeneration
        core.reaperWakes = deadline
        let clock = clock
        core.reaper = Task { [weak self] in
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return
            }
            self?.reap(generation)
        }
    }

    /// Expires the waiters whose deadline passed; re-arms for the next deadline.
    private func reap(_ generation: Int) {
        let wakes = core.withLock { core -> [Wake] in
            guard generation == core.reaperGeneration else { return [] }
            core.reaper = nil
            core.reaperWakes = nil
            let now = clock.now
            var next: ContinuousClock.Instant?
            var wakes: [Wake] = []
            for (id, waiter) in core.waiters {
                guard let deadline = waiter.deadline else { continue }
                if deadline <= now {
                    if let wake = Self.expire(id, after: waiter.timeout, &core) { wakes.append(wake) }
                } else if waiter.continuation != nil || waiter.settledWhileSending == nil {
                    next = next.map { min($0, deadline) } ?? deadline
                }
            }
            if let next { armReaper(for: next, &core) }
            return wakes
        }
        for wake in wakes { wake.fire() }
    }

    private static func expire(_ id: Int, after waited: Duration, _ core: inout Core) -> Wake? {
        guard let waiter = core.waiters[id], let continuation = waiter.continuation else { return nil }
        core.waiters[id]?.continuation = nil
        if let error = waiter.lastE2EError, !waiter.isConfirmed {
            return .command(continuation, .e2eError(message: error.message, status: error.status))
        }
        var reported: [PropertyKey: PropertyValue] = [:]
        for key in waiter.expected.keys where waiter.confirmed[key] == nil {
            if let value = core.state[key] { reported[key] = value }
        }
        return .command(continuation, .timeout(waited: waited, reported: reported))
    }

    private static func finish(_ id: Int, with failure: CommandFailure?, _ core: inout Core, _ wakes: inout [Wake]) {
        guard let continuation = core.waiters[id]?.continuation else {
            // Still sending: keep the first outcome for when the waiter starts waiting.
            if core.waiters[id] != nil, core.waiters[id]?.settledWhileSending == nil { core.waiters[id]?.settledWhileSending = Settled(failure: failure) }
            return
        }
        core.waiters[id]?.continuation = nil
        wakes.append(.command(continuation, failure))
    }

    // MARK: - Receiving

    private func handle(_ received: ReceivedFrame) {
        let context = core.withLock { $0.state }
        let content = decoder.withLock { checkers in frames.decodeFromVehicle(received.frame, context: context, checkers: &checkers) }
        let wakes = core.withLock { core -> [Wake] in
            var wakes: [Wake] = []
            handle(received, content, &core, &wakes)
            return wakes
        }
        for wake in wakes { wake.fire() }
    }

    private func handle(_ received: ReceivedFrame, _ content: VehicleFrameContent, _ core: inout Core, _ wakes: inout [Wake]) {
        // Every waiter records the frames of its window, related or not, as candump would.
        for id in core.waiters.keys { core.waiters[id]?.frames.append(received) }
        switch content {
        case let .status(message, values):
            core.lastTrustedStatus = clock.now
            core.heardFrom.insert(message)
            var changed: [PropertyKey] = []
            for (key, value) in values where core.state[key] != value {
                core.state[key] = value
                changed.append(key)
            }
            if !changed.isEmpty { core.stateVersion &+= 1 }
            if !changed.isEmpty, !core.observers.isEmpty {
                let change = StateChange(keys: changed.sorted(), state: core.state, frame: received)
                for observer in core.observers.values { observer.yield(change) }
            }
            for (id, waiter) in core.waiters where waiter.statusMessages.contains(message) {
                var confirmed = waiter.confirmed
                for (key, want) in waiter.expected {
                    guard let value = values[key] else { continue }
                    if Self.matches(value, want) { confirmed[key] = value } else { confirmed[key] = nil }
                }
                core.waiters[id]?.confirmed = confirmed
                if confirmed.count == waiter.expected.count { Self.finish(id, with: nil, &core, &wakes) }
            }
            checkConditions(&core, &wakes)
        case let .acknowledgement(ack):
            core.lastTrustedStatus = clock.now
            core.acknowledgements += 1
            checkConditions(&core, &wakes)
            guard !ack.accepted else { return }
            for (id, waiter) in core.waiters {
                if let sent = waiter.sent.first(where: { $0.id == ack.commandFrameID && ($0.counter == nil || $0.counter == ack.counter) }) {
                    Self.finish(id, with: .rejected(message: sent.message, result: ack.result), &core, &wakes)
                }
            }
        case let .e2eError(message, status):
            core.untrustedFrames += 1
            core.lastUntrustedFrame = "\(message) \(received.frame.id): \(Self.describe(status))"
            // A status message a waiter needs, or the acknowledgement message: an untrusted
            // acknowledgement may have been any waiter's (its command ID cannot be trusted
            // either), so a wait that then times out reports the E2E error, not a timeout.
            let isAcknowledgement = message == profile.acknowledgement?.message
            for (id, waiter) in core.waiters where isAcknowledgement || waiter.statusMessages.contains(message) {
                core.waiters[id]?.lastE2EError = (message, status)
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
