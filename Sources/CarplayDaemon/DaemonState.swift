import CarIntents
import LinuxSupport
import SimulatorControl
import Synchronization
import Varlink

/// What the whole daemon shares: the current vehicle session (replaced on reload), who
/// may call, and the calls in flight (for a graceful stop). A lock, not an actor: every
/// intent passes here three times, each briefly.
public final class DaemonState: Sendable {
    private struct Shared {
        var session: VehicleSession
        /// The session's state as reply JSON, per state version: a reload's new session
        /// starts its own (its versions count from its start).
        var stateJSON = StateJSONCache()
        var allowedUsers: Set<UInt32>
        var allowedGroups: Set<UInt32>
        var deviceLock: DeviceLock
        /// Who may call io.carplayd.Simulator; nil: nobody (not served, or off since a reload).
        var simulatorAccess: SimulatorAccess?
        var inFlight = 0
        var stopping = false
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    private let shared: Mutex<Shared>
    private let ownUser = Accounts.currentUserID

    init(
        session: VehicleSession, allowedUsers: Set<UInt32>, allowedGroups: Set<UInt32>, deviceLock: DeviceLock = .none, simulatorAccess: SimulatorAccess? = nil
    ) {
        shared = Mutex(
            Shared(session: session, allowedUsers: allowedUsers, allowedGroups: allowedGroups, deviceLock: deviceLock, simulatorAccess: simulatorAccess))
    }

    /// Who may call io.carplayd.Simulator now (nil: nobody).
    var simulatorAccess: SimulatorAccess? { shared.withLock { $0.simulatorAccess } }

    public var session: VehicleSession { shared.withLock { $0.session } }

    /// Whether `peer` may call (root, the daemon's own user, the allowed users, members
    /// of allowed groups), the current session with its state cache and how to read the
    /// caller's device lock, read together.
    func admit(_ peer: PeerCredentials) -> (authorized: Bool, session: VehicleSession, stateJSON: StateJSONCache, deviceLock: DeviceLock) {
        let (session, stateJSON, users, groups, deviceLock) = shared.withLock {
            ($0.session, $0.stateJSON, $0.allowedUsers, $0.allowedGroups, $0.deviceLock)
        }
        return (authorize(peer, users: users, groups: groups), session, stateJSON, deviceLock)
    }

    /// Outside the lock: a group lookup may read /etc/group.
    private func authorize(_ peer: PeerCredentials, users: Set<UInt32>, groups: Set<UInt32>) -> Bool {
        if peer.uid == 0 || peer.uid == ownUser || users.contains(peer.uid) { return true }
        if groups.contains(peer.gid) { return true }
        guard !groups.isEmpty else { return false }
        return !groups.isDisjoint(with: Accounts.groups(ofUser: peer.uid, primary: peer.gid))
    }

    /// A reload: the new session and accounts; returns the old session, to stop.
    func replace(
        session: VehicleSession, allowedUsers: Set<UInt32>, allowedGroups: Set<UInt32>, deviceLock: DeviceLock, simulatorAccess: SimulatorAccess? = nil
    ) -> VehicleSession {
        shared.withLock { shared in
            shared.simulatorAccess = simulatorAccess
            let old = shared.session
            shared.session = session
            shared.stateJSON = StateJSONCache()
            shared.deviceLock = deviceLock
            shared.allowedUsers = allowedUsers
            shared.allowedGroups = allowedGroups
            return old
        }
    }

    /// Counts a call in flight; false once stopping (the call is refused).
    func beginCall() -> Bool {
        shared.withLock { shared in
            guard !shared.stopping else { return false }
            shared.inFlight += 1
            return true
        }
    }

    func endCall() {
        let waiting = shared.withLock { shared -> [CheckedContinuation<Void, Never>] in
            shared.inFlight -= 1
            guard shared.inFlight == 0 else { return [] }
            defer { shared.drained.removeAll() }
            return shared.drained
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Refuses new calls; returns once the calls in flight have finished (or `timeout`).
    public func drain(timeout: Duration) async -> Int {
        let busy = shared.withLock { shared -> Bool in
            shared.stopping = true
            return shared.inFlight > 0
        }
        guard busy else { return 0 }
        let waiting = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.releaseWaiters()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = shared.withLock { shared -> Bool in
                guard shared.inFlight > 0 else { return true }
                shared.drained.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
        waiting.cancel()
        return shared.withLock { $0.inFlight }
    }

    private func releaseWaiters() {
        let waiting = shared.withLock { shared in
            defer { shared.drained.removeAll() }
            return shared.drained
        }
        for continuation in waiting { continuation.resume() }
    }
}
