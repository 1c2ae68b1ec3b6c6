import CANBus
import CANKit
import Synchronization
import VehicleKit

/// What the bus carried of one CAN ID: frames received (and of them untrusted: failed
/// their E2E or checksum check), frames the head unit sent with it, the last received.
public struct MessageTraffic: Sendable, Equatable {
    public var id: CANID
    public var received = 0
    public var untrusted = 0
    public var sent = 0
    public var lastReceived: ReceivedFrame?

    mutating func count(_ frame: ReceivedFrame) {
        received += 1
        lastReceived = frame
    }
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
    let frames: VehicleFrames
    let port: any CANPort
    let clock: any MonotonicClock
    /// When the controller was made: the origin of `traffic()`'s uptime.
    let createdAt: ContinuousClock.Instant
    /// A seam for tests: runs after a command's frames are sent, before its wait.
    let stallBeforeWaiting: (@Sendable () async -> Void)?
    /// How long after the last trusted frame the vehicle still counts as reachable: the
    /// fastest cyclic status message times `unreachableAfterCycles`.
    let reachabilityWindow: Duration
    /// Command messages with a period: consecutive frames of one (a request held) go
    /// out that far apart.
    let pacing: [CANID: Duration]
    /// Whether any property is commanded by steps / by toggle (asked per command).
    let hasSteps: Bool
    let hasToggles: Bool
    let core = Mutex(Core())
    /// The alive counters of the command messages: encoding takes them, outside `core`,
    /// so that a status frame is not held up by a command being built.
    let encoder = Mutex<[String: UInt8]>([:])
    /// The E2E checkers of the status messages: decoding runs outside `core` too (frames
    /// arrive one at a time per sender; only `handle` changes the state they are read in).
    let decoder = Mutex<[String: FrameChecker]>([:])

    /// A command waiting for its confirmation.
    struct Waiter {
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

    struct Observer {
        var continuation: AsyncStream<VehicleEvent>.Continuation
        var commands: Bool
    }

    /// How a command ended: confirmed (no failure) or failed.
    struct Settled {
        var failure: CommandFailure?
    }

    /// What a caller of the waits below waits for; checked after every trusted frame.
    enum Condition {
        case reachable
        case complete
        case knowing([PropertyKey])
    }

    /// A continuation to resume once the lock is released.
    enum Wake {
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
    struct Core {
        var state = VehicleState()
        var lastTrustedStatus: ContinuousClock.Instant?
        /// The wall-clock time (the frame's stamp) of each status message's newest trusted frame.
        var lastStatusStamp: [String: CandumpTimestamp] = [:]
        /// Status messages received (trusted) at least once.
        var heardFrom: Set<String> = []
        var started = false
        var receiveTask: Task<Void, Never>?
        var readerFinished = false
        var untrustedFrames = 0
        var lastUntrustedFrame: String?
        /// Acknowledgements received from the vehicle (any command).
        var acknowledgements = 0
        /// Per CAN ID what the bus carried (GetBusTraffic): counted as frames arrive.
        var traffic: [CANID: MessageTraffic] = [:]

        /// One sleeping task expires the waiters whose deadline passed (instead of a task
        /// per command): it sleeps until the earliest deadline it knows of.
        var reaper: Task<Void, Never>?
        var reaperWakes: ContinuousClock.Instant?
        var reaperGeneration = 0

        var waiters: [Int: Waiter] = [:]
        var nextID = 0
        /// Observers (Monitor, the power-level updates): each gets the state changes with
        /// their frame, and commands in flight if it asked for them.
        var observers: [Int: Observer] = [:]
        var conditionWaiters: [Int: (condition: Condition, continuation: CheckedContinuation<Bool, Never>, timer: Task<Void, Never>?)] = [:]

        /// Counts state changes, so a reader can cache what it derives from the state.
        var stateVersion = 0

        mutating func makeID() -> Int {
            defer { nextID += 1 }
            return nextID
        }
    }

    public convenience init(profile: VehicleProfile, port: any CANPort, clock: any MonotonicClock = ContinuousClock()) {
        self.init(profile: profile, port: port, clock: clock, stallBeforeWaiting: nil)
    }

    init(profile: VehicleProfile, port: any CANPort, clock: any MonotonicClock, stallBeforeWaiting: (@Sendable () async -> Void)?) {
        self.profile = profile
        self.clock = clock
        self.createdAt = clock.now
        self.stallBeforeWaiting = stallBeforeWaiting
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
        // The frames that arrived before the switch first, then the port's thread's.
        let handoff = OrderedHandoff { [weak self] received in self?.handle(received) }
        let stream = port.frames
        if port.deliverDirectly(to: handoff.receiver(finished: { [weak self] in self?.readerEnded() })) {
            await handoff.drain(stream)
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

    func readerEnded() { core.withLock { $0.readerFinished = true } }

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
            let observers = core.observers.values.map(\.continuation)
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

    /// The wall-clock stamp of the newest trusted status frame of a message that carries
    /// a property `carries` accepts (GetCarPowerLevelStatus' `dateOfLastStateUpdate`);
    /// nil before the first.
    public func newestStatusStamp(carrying carries: (PropertyKey) -> Bool) -> CandumpTimestamp? {
        let stamps = core.withLock { $0.lastStatusStamp }
        var newest: CandumpTimestamp?
        for (name, stamp) in stamps where frames.statusMessages[name]?.properties.keys.contains(where: carries) == true {
            if newest.map({ stamp > $0 }) ?? true { newest = stamp }
        }
        return newest
    }

    /// Frames from the vehicle's IDs that failed their protection check (wrong CRC,
    /// repeated or skipped alive counter): GetState's `bus.untrustedFrames`.
    public var untrustedFrames: Int { core.withLock { $0.untrustedFrames } }

    /// The latest untrusted frame (for the log): the message and why, nil before the first.
    public var lastUntrustedFrame: String? { core.withLock { $0.lastUntrustedFrame } }

    /// Every CAN ID the bus carried since the controller started, in ID order, and the
    /// seconds since then read with the counts (a client's rates: Δframes / Δuptime).
    public func traffic() -> (messages: [MessageTraffic], uptime: Duration) {
        let messages = core.withLock { $0.traffic.values.sorted { $0.id < $1.id } }
        return (messages, clock.now - createdAt)
    }

    /// Commands sent and still waiting for their confirmation (0 when idle: nothing is
    /// left pending after every `apply` returned).
    public var pendingCommands: Int { core.withLock { $0.waiters.count } }

    /// True when a trusted status frame arrived within `unreachableAfterCycles` cycle times.
    public var isReachable: Bool { core.withLock { isReachable($0) } }

    func isReachable(_ core: Core) -> Bool {
        guard let last = core.lastTrustedStatus else { return false }
        return clock.now - last <= reachabilityWindow
    }
}

