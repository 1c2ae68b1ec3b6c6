import LinuxSupport

#if canImport(Glibc)
import Glibc
#endif

/// Where carplayd puts its socket and its state, shared by the daemon and its clients.
public enum CarplaydPaths {
    public static let socketName = "io.carplayd.Vehicle"

    /// `$CARPLAYD_SOCKET`, else `$XDG_RUNTIME_DIR/carplayd/io.carplayd.Vehicle` for a
    /// non-root user, `/run/carplayd/io.carplayd.Vehicle` for root.
    public static func defaultSocket(environment: [String: String] = ProcessEnvironment.current(), uid: UInt32 = getuid()) -> String {
        if let path = environment["CARPLAYD_SOCKET"], !path.isEmpty { return path }
        if uid != 0, let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/carplayd/" + socketName
        }
        if uid != 0 { return "/tmp/carplayd-\(uid)/" + socketName }
        return "/run/carplayd/" + socketName
    }

    /// `$STATE_DIRECTORY` (systemd's StateDirectory=), else `/var/lib/carplayd` for root,
    /// `$XDG_STATE_HOME/carplayd` or `~/.local/state/carplayd` otherwise.
    public static func defaultStateDirectory(environment: [String: String] = ProcessEnvironment.current(), uid: UInt32 = getuid()) -> String {
        if let directory = environment["STATE_DIRECTORY"], !directory.isEmpty {
            return String(directory.split(separator: ":").first ?? Substring(directory))
        }
        if uid == 0 { return "/var/lib/carplayd" }
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/carplayd" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/state/carplayd" }
        return "/tmp/carplayd-\(uid)/state"
    }

    public static let defaultConfigFile = "/etc/carplayd/carplayd.conf"
}
