import CANBus
import CANKit
import VehicleKit

/// The head unit's side of the bus as a pure state machine: frames in, the live state,
/// commands and their confirmation, what the caller waits for, and when the next of
/// those times out. It does no I/O, starts no task, takes no lock and reads no clock:
/// the time is passed in. `VehicleController` runs it on a port, a clock and one lock.
///
/// A command is a token: `beginCommand` registers what the status frames must show,
/// `startTimeout` gives it its deadline once its frames are sent, `receive` and
/// `expire` settle it, `finishCommand` hands over its outcome. An outcome that came
/// before anyone waits for it stays here until collected, so no wake-up can be lost.
public struct HeadUnit: Sendable {
    public typealias Instant = ContinuousClock.Instant

    /// Names a command or a wait of the machine.
    public struct Token: Hashable, Sendable, Comparable {
        let rawValue: Int
        public static func < (a: Token, b: Token) -> Bool { a.rawValue < b.rawValue }
    }

    /// What a frame or the passing of time did, for the runner to act on.
    public enum Event: Sendable {
        /// The state changed (observers hear it).
        case changed(StateChange)
        /// The command's outcome is ready: `finishCommand` hands it over.
        case commandSettled(Token)
        /// A wait ended: its condition holds (met) or its timeout passed.
        case waitEnded(Token, met: Bool)
        /// Frames to send now: a cyclic command message's idle frame.
        case send([CANFrame])
        /// The status showed targets of a command that had timed out.
        case appliedLate(LateApplication)
    }

    public let profile: VehicleProfile
    let frames: VehicleFrames
    /// How long after the last trusted frame the vehicle still counts as reachable: the
    /// fastest cyclic status message times `unreachableAfterCycles`.
    public let reachabilityWindow: Duration

    public internal(set) var state = VehicleState()
    /// Counts state changes, so a reader can cache what it derives from the state.
    public internal(set) var stateVersion = 0
    var lastTrustedStatus: Instant?
    /// The wall-clock time (the frame's stamp) of each status message's newest trusted frame.
    var lastStatusStamp: [String: CandumpTimestamp] = [:]
    /// Status messages received (trusted) at least once.
    var heardFrom: Set<String> = []
    public internal(set) var untrustedFrames = 0
    public internal(set) var lastUntrustedFrame: String?
    /// The properties whose last status carried no value, with why (an unmapped raw
    /// value, a validity qualifier that says invalid); cleared when a value is read.
    public internal(set) var unreadable: [PropertyKey: String] = [:]
    /// Acknowledgements received from the vehicle (any command).
    public internal(set) var acknowledgements = 0
    /// Per CAN ID what the bus carried (GetBusTraffic): counted as frames arrive.
    var traffic: [CANID: MessageTraffic] = [:]
    /// The alive counters of the command messages (encoding takes them) and the E2E
    /// checkers of the status messages (decoding updates them).
    var counters: [String: UInt8] = [:]
    var checkers: [String: FrameChecker] = [:]

    /// The commands in flight, in token order (made in order, so appended in order): a
    /// few at a time, found by a short scan and changed in place.
    var commands: [PendingCommand] = []
    /// Targets of commands that timed out, watched for a late application.
    var lateWatches: [PropertyKey: LateWatch] = [:]
    /// Late applications seen (the daemon logs them), and the newest, for people.
    public internal(set) var lateApplications = 0
    public internal(set) var lastLateApplication: String?
    var waits: [Token: PendingWait] = [:]
    var nextToken = 0

    /// Command messages sent every cycle, idle or not (`messages.<M>.send: cyclic`: a
    /// receiver drops a requester that goes silent), with their periods.
    let cyclicMessages: [(name: String, id: CANID, period: Duration)]
    /// When each cyclic message is next due; empty until `startCyclicSending`.
    var cyclicDue: [String: Instant] = [:]

    /// Whether the profile presses any property one step at a time, or toggles one:
    /// the policies that need them are skipped otherwise.
    let hasSteps: Bool
    let hasToggles: Bool

    public init(profile: VehicleProfile) {
        self.profile = profile
        let frames = VehicleFrames(profile: profile)
        self.frames = frames
        hasSteps = profile.bindings.keys.contains { frames.stepCommand(of: $0) != nil }
        hasToggles = profile.bindings.keys.contains { frames.commandKind(of: $0) == .toggle }
        let cycles = frames.statusMessages.values.compactMap(\.cycleTime)
        // The fastest cyclic message sets the pace: a live vehicle sends it every cycle.
        let fastest = cycles.min() ?? .milliseconds(100)
        self.reachabilityWindow = fastest * max(1, profile.policies.unreachableAfterCycles)
        self.cyclicMessages = frames.commandMessages.sorted().compactMap { name in
            guard profile.messages[name]?.cyclic == true, let message = profile.database.message(named: name),
                let period = profile.cycleTime(of: message), period > .zero
            else { return nil }
            return (name, message.canID, period)
        }
    }

    mutating func makeToken() -> Token {
        defer { nextToken += 1 }
        return Token(rawValue: nextToken)
    }

    /// True when a trusted frame arrived within the reachability window before `now`.
    public func isReachable(at now: Instant) -> Bool {
        guard let last = lastTrustedStatus else { return false }
        return now - last <= reachabilityWindow
    }

    /// The earliest deadline of a command, a wait or a cyclic frame: when `expire` has
    /// work next.
    public var nextDeadline: Instant? {
        var next: Instant? = cyclicDue.values.min()
        for index in commands.indices where commands[index].isOpen {
            if let deadline = commands[index].deadline { next = next.map { min($0, deadline) } ?? deadline }
        }
        for wait in waits.values { next = next.map { min($0, wait.deadline) } ?? wait.deadline }
        return next
    }

    /// Ends what timed out by `now`: commands (with a timeout naming what the vehicle
    /// reports, or the E2E error that kept their status untrusted) and waits.
    public mutating func expire(at now: Instant) -> [Event] {
        var events: [Event] = []
        for index in commands.indices {
            guard commands[index].isOpen, let deadline = commands[index].deadline, deadline <= now else { continue }
            watchForLateApplication(of: commands[index], timedOutAt: deadline)
            settle(at: index, with: timeoutFailure(of: commands[index]), &events)
        }
        for token in waits.keys.sorted() where waits[token]!.deadline <= now {
            waits[token] = nil
            events.append(.waitEnded(token, met: false))
        }
        sendCyclicFrames(at: now, &events)
        return events
    }

    /// Ends everything in flight: commands fail as `vehicleUnreachable`, waits unmet, and
    /// the idle frames stop, so nothing is timed any more.
    public mutating func stop() -> [Event] {
        var events: [Event] = []
        for index in commands.indices { settle(at: index, with: .vehicleUnreachable, &events) }
        for token in waits.keys.sorted() { events.append(.waitEnded(token, met: false)) }
        waits.removeAll()
        // The idle frames stop with the head unit (`startCyclicSending` starts them again).
        cyclicDue.removeAll()
        return events
    }

    /// Every CAN ID the bus carried, in ID order.
    public var busTraffic: [MessageTraffic] { traffic.values.sorted { $0.id < $1.id } }

    /// The wall-clock stamp of the newest trusted status frame of a message that carries
    /// a property `carries` accepts; nil before the first.
    public func newestStatusStamp(carrying carries: (PropertyKey) -> Bool) -> CandumpTimestamp? {
        var newest: CandumpTimestamp?
        for (name, stamp) in lastStatusStamp where frames.statusMessages[name]?.properties.keys.contains(where: carries) == true {
            if newest.map({ stamp > $0 }) ?? true { newest = stamp }
        }
        return newest
    }
}
