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

/// What an observer of the controller hears, in the order it happened.
public enum VehicleEvent: Sendable {
    case changed(StateChange)
    /// Only for observers that asked (`events(commands: true)`).
    case command(CommandProgress)
}

/// A command in flight, as observers see it: sent with its targets (pending), then
/// settled -- confirmed by the status frames, or failed. `id` pairs them. A command that
/// timed out may still be applied by the vehicle: then a third, `appliedLate`, follows.
public struct CommandProgress: Sendable {
    public enum Stage: Sendable {
        case pending
        case confirmed
        case failed(CommandFailure)
        /// The status showed `targets` this long after the command timed out: a change
        /// nobody waited for, which may have replaced a newer confirmed value.
        case appliedLate(after: Duration)
    }

    public var id: Int
    /// The intent the command carries out (nil for a command not sent for an intent).
    public var intent: IntentName?
    public var targets: [PropertyKey: PropertyValue]
    public var stage: Stage
}

/// Runs the pure `HeadUnit` on a port and a clock: the head unit's side of the bus.
/// It keeps the live vehicle state from trusted status frames, sends commands and
/// reports success only when status frames confirm them.
///
/// The runner owns what the machine must not: the continuations of the tasks that wait,
/// the observers and the port, beside the machine in a `MachineRunner` (one lock, one
/// timer at the machine's next deadline). Every decision is the machine's. Frames are
/// handled on the thread that delivers them (the in-process bus, SocketCAN's reader
/// thread); continuations are resumed and streams finished outside the lock. A command
/// whose confirmation arrived while it was being sent (the in-process simulated vehicle
/// answers at once) returns without suspending. Commands on the same command message
/// must not be applied concurrently (the engine runs them one at a time): their alive
/// counters are taken in order, but two sends from different tasks may reach the bus in
/// either order.
public final class VehicleController: Sendable {
    public let profile: VehicleProfile
    let frames: VehicleFrames
    let port: any CANPort
    let clock: any MonotonicClock
    /// When the controller was made: the origin of `traffic()`'s uptime.
    let createdAt: ContinuousClock.Instant
    /// A seam for tests: runs after a command's frames are sent, before its wait.
    let stallBeforeWaiting: (@Sendable () async -> Void)?
    /// How long after the last trusted frame the vehicle still counts as reachable.
    public let reachabilityWindow: Duration
    /// Command messages with a period: consecutive frames of one (a request held) go
    /// out that far apart.
    let pacing: [CANID: Duration]
    let runner: MachineRunner<Core>

    struct Observer {
        var continuation: AsyncStream<VehicleEvent>.Continuation
        var commands: Bool
    }

    /// What to do once the lock is released: a continuation to resume, frames to send
    /// (a send may deliver to this controller at once, which takes the lock).
    enum Wake: Sendable {
        case command(CheckedContinuation<Void, Never>)
        case condition(CheckedContinuation<Bool, Never>, Bool)
        case send([CANFrame])
    }

    func fire(_ wakes: [Wake]) {
        for wake in wakes {
            switch wake {
            case let .command(continuation): continuation.resume()
            case let .condition(continuation, met): continuation.resume(returning: met)
            case let .send(frames):
                for frame in frames {
                    // A cyclic idle frame: a failed one is the next cycle's to retry.
                    guard case let .sent(sent) = port.send(frame) else { continue }
                    let now = clock.now
                    runner.withCore { core in
                        core.unit.recordSent(sent)
                        core.unit.cyclicFrameSent(frame.id, at: now)
                    }
                }
            }
        }
    }

    /// The machine and what runs it, behind the runner's one lock.
    struct Core: RunnableCore {
        var unit: HeadUnit
        /// Tasks waiting for a command's outcome or a wait's end, by the machine's token.
        var commandWaits = Continuations<HeadUnit.Token, Void>()
        var conditionWaits = Continuations<HeadUnit.Token, Bool>()
        /// Observers (Monitor, the power-level updates): each gets the state changes with
        /// their frame, and commands in flight if it asked for them.
        var observers: [Int: Observer] = [:]
        var nextID = 0
        var started = false
        var readerFinished = false

        mutating func makeID() -> Int {
            defer { nextID += 1 }
            return nextID
        }

        var nextDeadline: ContinuousClock.Instant? { unit.nextDeadline }

        mutating func expire(at now: ContinuousClock.Instant) -> [Wake] { dispatch(unit.expire(at: now)) }

        /// Acts on the machine's events: observers told (under the lock, so they hear
        /// everything in order), waiting tasks collected to be woken after it.
        mutating func dispatch(_ events: [HeadUnit.Event]) -> [Wake] {
            var wakes: [Wake] = []
            for event in events {
                switch event {
                case let .changed(change):
                    for observer in observers.values { observer.continuation.yield(.changed(change)) }
                case let .commandSettled(token):
                    if let continuation = commandWaits.remove(token) { wakes.append(.command(continuation)) }
                case let .waitEnded(token, met):
                    if let continuation = conditionWaits.remove(token) { wakes.append(.condition(continuation, met)) }
                case let .send(frames):
                    wakes.append(.send(frames))
                case let .appliedLate(application):
                    guard observers.values.contains(where: \.commands) else { break }
                    let id = application.origin?.id ?? makeID()
                    tell(
                        CommandProgress(id: id, intent: application.origin?.intent, targets: application.targets, stage: .appliedLate(after: application.after))
                    )
                }
            }
            return wakes
        }

        /// A command's progress, to the observers that want commands.
        func tell(_ progress: CommandProgress) {
            for observer in observers.values where observer.commands { observer.continuation.yield(.command(progress)) }
        }
    }

    public convenience init(profile: VehicleProfile, port: any CANPort, clock: any MonotonicClock = Timekeeper.loop) {
        self.init(profile: profile, port: port, clock: clock, stallBeforeWaiting: nil)
    }

    init(profile: VehicleProfile, port: any CANPort, clock: any MonotonicClock, stallBeforeWaiting: (@Sendable () async -> Void)?) {
        self.profile = profile
        self.clock = clock
        self.createdAt = clock.now
        self.stallBeforeWaiting = stallBeforeWaiting
        let unit = HeadUnit(profile: profile)
        self.frames = unit.frames
        self.reachabilityWindow = unit.reachabilityWindow
        self.port = port
        var pacing: [CANID: Duration] = [:]
        for name in frames.commandMessages {
            if let message = profile.database.message(named: name), let cycle = profile.cycleTime(of: message) { pacing[message.canID] = cycle }
        }
        self.pacing = pacing
        self.runner = MachineRunner(Core(unit: unit), clock: clock)
        runner.onExpired { [weak self] wakes in self?.fire(wakes) }
    }

    /// Starts reading the bus: the port hands every frame to the machine on its thread.
    public func start() {
        let first = runner.withCore { core -> Bool in
            guard !core.started else { return false }
            core.started = true
            return true
        }
        guard first else { return }
        port.startReceiving(
            CANReceiver(
                frame: { [weak self] received in self?.handle(received) },
                frames: { [weak self] batch in self?.handle(batch) },
                finished: { [weak self] in self?.readerEnded() }))
        let now = clock.now
        runner.scheduling { core in core.unit.startCyclicSending(at: now) }
    }

    func readerEnded() { runner.withCore { $0.readerFinished = true } }

    /// The controller reads the bus: started, and its port has not ended its frames.
    /// Answering at all shows the controller's lock is not wedged (the systemd watchdog asks).
    public var isReading: Bool { runner.withCore { $0.started && !$0.readerFinished } }

    /// Ends every command and wait in flight (`vehicleUnreachable`, unmet), the
    /// observers' streams, the timer and the reader.
    public func stop() {
        // Stopped, the machine has no deadline: the runner's timer is cancelled.
        let (wakes, observers) = runner.scheduling { core in
            let wakes = core.dispatch(core.unit.stop())
            let observers = core.observers.values.map(\.continuation)
            core.observers.removeAll()
            core.started = false
            return (wakes, observers)
        }
        fire(wakes)
        for observer in observers { observer.finish() }
    }

    /// A frame from the bus, on the thread that delivered it.
    func handle(_ received: ReceivedFrame) {
        let now = clock.now
        let wakes = runner.withCore { core in core.dispatch(core.unit.receive(received, at: now)) }
        fire(wakes)
    }

    /// Frames one read of the bus brought: one clock read and one lock for them all (they
    /// arrived within the same wake-up).
    func handle(_ batch: [ReceivedFrame]) {
        let now = clock.now
        let wakes = runner.withCore { core in
            var wakes: [Wake] = []
            for received in batch { wakes += core.dispatch(core.unit.receive(received, at: now)) }
            return wakes
        }
        fire(wakes)
    }

    public var currentState: VehicleState { runner.withCore { $0.unit.state } }

    /// The state and whether the vehicle is reachable, read together.
    public func snapshot() -> (state: VehicleState, reachable: Bool) {
        let now = clock.now
        return runner.withCore { ($0.unit.state, $0.unit.isReachable(at: now)) }
    }

    /// The state and its version, which changes whenever the state does (the service
    /// serializes the state once per version).
    public func versionedState() -> (state: VehicleState, version: Int) {
        runner.withCore { ($0.unit.state, $0.unit.stateVersion) }
    }

    /// The wall-clock stamp of the newest trusted status frame of a message that carries
    /// a property `carries` accepts (GetCarPowerLevelStatus' `dateOfLastStateUpdate`);
    /// nil before the first.
    public func newestStatusStamp(carrying carries: (PropertyKey) -> Bool) -> CandumpTimestamp? {
        runner.withCore { $0.unit.newestStatusStamp(carrying: carries) }
    }

    /// Frames from the vehicle's IDs that failed their protection check (wrong CRC,
    /// repeated or skipped alive counter): GetState's `bus.untrustedFrames`.
    public var untrustedFrames: Int { runner.withCore { $0.unit.untrustedFrames } }

    /// The latest untrusted frame (for the log): the message and why, nil before the first.
    public var lastUntrustedFrame: String? { runner.withCore { $0.unit.lastUntrustedFrame } }

    /// Commands the vehicle applied after they had timed out, and the newest of them,
    /// for people (the daemon logs them).
    public var lateApplications: Int { runner.withCore { $0.unit.lateApplications } }
    public var lastLateApplication: String? { runner.withCore { $0.unit.lastLateApplication } }
    /// Why the properties whose last status carried no value are unknown (`HeadUnit.unreadable`).
    public var unreadable: [PropertyKey: String] { runner.withCore { $0.unit.unreadable } }

    /// Every CAN ID the bus carried since the controller started, in ID order, and the
    /// seconds since then read with the counts (a client's rates: Δframes / Δuptime).
    public func traffic() -> (messages: [MessageTraffic], uptime: Duration) {
        let messages = runner.withCore { $0.unit.busTraffic }
        return (messages, clock.now - createdAt)
    }

    /// Commands sent and still waiting for their confirmation (0 when idle: nothing is
    /// left pending after every `apply` returned).
    public var pendingCommands: Int { runner.withCore { $0.unit.commandCount } }

    /// The interface's name while its CAN controller is bus-off (the port's health), else nil.
    public var busOffInterface: String? { port.health().state == .busOff ? port.interface : nil }

    /// Waits for a condition in progress (`waitUntilReachable`, ...).
    var waitsInProgress: Int { runner.withCore { $0.unit.waitCount } }

    /// True when a trusted status frame arrived within `unreachableAfterCycles` cycle times.
    public var isReachable: Bool {
        let now = clock.now
        return runner.withCore { $0.unit.isReachable(at: now) }
    }
}
