import LinuxSupport
import Varlink

/// Who may act as the driver of a simulated car through `io.carplayd.Simulator` (carplayd's
/// embedded vehicle, carplay-ecu's `--control` socket): root, the user the simulator runs
/// as (the developer with a virtual car on the desk), and the users and groups configured.
/// Narrower than the Vehicle interface's allow list on purpose: whoever may ask the car for
/// intents may not thereby fake what the car reports.
public struct SimulatorAccess: Sendable, Equatable {
    public var users: Set<UInt32>
    public var groups: Set<UInt32>
    /// The uid the simulator runs as.
    public var ownUser: UInt32

    public init(users: Set<UInt32> = [], groups: Set<UInt32> = [], ownUser: UInt32 = Accounts.currentUserID) {
        self.users = users
        self.groups = groups
        self.ownUser = ownUser
    }

    /// Whether `peer` may call. `groupsOf` gives a user's groups (`Accounts.groups`: may
    /// read /etc/group), asked only when a group could decide.
    public func allows(_ peer: PeerCredentials, groupsOf: (_ uid: UInt32, _ primary: UInt32) -> [UInt32] = Accounts.groups) -> Bool {
        if peer.uid == 0 || peer.uid == ownUser || users.contains(peer.uid) { return true }
        if groups.contains(peer.gid) { return true }
        guard !groups.isEmpty else { return false }
        return !groups.isDisjoint(with: groupsOf(peer.uid, peer.gid))
    }

    /// The typed refusal, naming the caller.
    public static func notAuthorized(_ peer: PeerCredentials) -> VarlinkError {
        VarlinkError("\(SimulatorService.interfaceName).NotAuthorized", ["uid": .integer(Int(peer.uid)), "gid": .integer(Int(peer.gid))])
    }
}
