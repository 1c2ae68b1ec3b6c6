import CarIntents
import LinuxSupport

/// SiriKit's "restricted while locked" on a Linux head unit: is the *caller's device*
/// locked? The caller's device is its logind session (logind's GetSessionByPID of
/// SO_PEERCRED's pid), and the session's `LockedHint` is its lock. Read per call, and
/// only for the intents restricted while locked (two D-Bus round trips: docs/CONFIGURATION.md).
///
/// A caller in no session (a voice agent running as a system service, a phone bridge)
/// has no device of its own: by default it is refused the restricted intents; a
/// configuration may trust its user or group, or take the lock of a seat's active
/// session (seat0: the head unit's screen) for it. Root outside a session is the system
/// itself (it could drive the bus directly) and counts as unlocked; root in a session
/// has that session's lock like anyone.
struct DeviceLock: Sendable {
    let sessionless: DaemonConfiguration.SessionlessCallers
    let trustedUsers: Set<UInt32>
    let trustedGroups: Set<UInt32>
    let logind: LogindReader

    /// What is read from logind (a test passes its own).
    struct LogindReader: Sendable {
        var session: @Sendable (_ pid: Int32) -> Result<LogindSession?, LogindError>
        var activeSession: @Sendable (_ seat: String) -> LogindSession?
        var lockedHint: @Sendable (_ session: LogindSession) -> Result<Bool, LogindError>
        var groups: @Sendable (_ uid: UInt32, _ primary: UInt32) -> [UInt32]

        static let system = LogindReader(
            session: { Logind.session(ofPID: $0) }, activeSession: { Logind.activeSession(seat: $0) },
            lockedHint: { Logind.lockedHint($0) }, groups: { Accounts.groups(ofUser: $0, primary: $1) })
    }

    static let none = DeviceLock(sessionless: .refuse, trustedUsers: [], trustedGroups: [], logind: .system)

    /// The caller's device, for `peer`.
    func device(of peer: PeerCredentials) -> CallerDevice {
        // Where logind cannot be asked (no system bus: a container), nobody has a session.
        if case let .success(session?) = logind.session(peer.pid) {
            return Self.device(hint: logind.lockedHint(session), whose: "the caller's session \(session.id)")
        }
        if peer.uid == 0 || trustedUsers.contains(peer.uid) || trusts(groupsOf: peer) { return .unlocked }
        switch sessionless {
        case .refuse:
            return .locked(
                reason:
                    "the caller (uid \(peer.uid)) is in no logind session, so its device lock is unknown: call from a user's session, or trust that user in sessionless-trusted-users"
            )
        case let .seat(seat):
            guard let active = logind.activeSession(seat) else {
                return .locked(reason: "the caller is in no logind session and no session is active on \(seat): log in on \(seat) first")
            }
            return Self.device(hint: logind.lockedHint(active), whose: "\(seat)'s active session \(active.id)")
        }
    }

    private func trusts(groupsOf peer: PeerCredentials) -> Bool {
        guard !trustedGroups.isEmpty else { return false }
        return trustedGroups.contains(peer.gid) || !trustedGroups.isDisjoint(with: logind.groups(peer.uid, peer.gid))
    }

    /// A hint that cannot be read counts as locked: the safe answer.
    static func device(hint: Result<Bool, LogindError>, whose: String) -> CallerDevice {
        switch hint {
        case .success(false): .unlocked
        case .success(true): .locked(reason: "\(whose) is locked: unlock it first")
        case let .failure(error): .locked(reason: "the lock state of \(whose) cannot be read (\(error)), so it counts as locked")
        }
    }
}
