import CANBus
import CarIntents
import CarplaydProduct
import EventLoops
import LinuxSupport
import SimulatorControl
import SocketCAN
import Varlink
import VehicleKit
import VehicleSimulator

/// carplayd as a service: `run()` starts the vehicle session and the Varlink server,
/// then serves until SIGTERM/SIGINT (graceful stop) while SIGHUP reloads.
public final class Daemon: Sendable {
    public let configuration: DaemonConfiguration
    private let arguments: [String]
    let log: Logger

    public init(configuration: DaemonConfiguration, arguments: [String]) {
        self.configuration = configuration
        self.arguments = arguments
        self.log = Logger(level: configuration.logLevel)
    }

    public static let version = CarplaydVersion.current

    /// The session on `vehicle`, with the configured confirmation timeout and the saved car
    /// profiles; its deadlines on `clock` (the loop that reads the bus).
    static func startSession(
        _ configuration: DaemonConfiguration, profile: VehicleProfile, vehicle: VehicleSession.Vehicle, store: CarProfileStore, clock: any MonotonicClock
    ) -> VehicleSession {
        var profile = profile
        if let milliseconds = configuration.confirmationTimeoutMilliseconds {
            profile.policies.confirmationTimeout = .milliseconds(milliseconds)
        }
        let identifier = profile.identifier
        return VehicleSession(
            profile: profile, vehicle: vehicle, savedCarProfiles: store.load(profile: identifier), restrictedWhileLocked: configuration.restrictedWhileLocked,
            carIdentifier: carIdentifier(profile: identifier),
            persist: { profiles in try store.save(profiles, profile: identifier) }, clock: clock)
    }

    /// `INCar.carIdentifier`: stable for this unit and profile, and not the VIN nor the
    /// machine ID (an app-specific ID derived from it); without a machine ID, the profile's.
    static func carIdentifier(profile: String) -> String {
        // carplayd's application ID for sd_id128_get_machine_app_specific (random, fixed).
        guard let machine = MachineID.appSpecific((0x5f3c_9a21_7e4b_4d0c, 0xa8e1_62f0_93b7_1c55)) else { return "carplayd-\(profile)" }
        return "\(machine.prefix(16))-\(profile)"
    }

    /// The event loops: one per CPU (at most 4), each serving its share of the Varlink
    /// connections. The first also accepts them and reads the CAN bus: a connection goes
    /// there while it serves no more than the others, so with one client (a head unit's
    /// usual) a call, its frames and its reply run on one thread with no wake-up between.
    static func startLoops() -> Result<[EventLoop], DaemonError> {
        var loops: [EventLoop] = []
        for _ in 0..<min(4, ResourceLimits.onlineProcessors()) {
            do { loops.append(try EventLoop()) } catch {
                for loop in loops { loop.shutdown() }
                return .failure(DaemonError("cannot start the event loop: \(error)"))
            }
        }
        return .success(loops)
    }

    /// Listens on the socket and starts the Varlink server on `loops` (`startLoops`).
    static func serve(
        socketPath: String, listener passed: FileDescriptor? = nil, loops: [EventLoop], service: VehicleService, simulatorControl: Bool = false
    ) -> Result<VarlinkServer, DaemonError> {
        let listener: FileDescriptor
        if let passed {
            listener = passed
        } else {
            do {
                try FileSystem.makeDirectories(FileSystem.parentDirectory(of: socketPath), mode: 0o755)
                listener = try UnixSocket.listen(path: socketPath, mode: 0o660)
            } catch {
                return .failure(DaemonError("cannot listen on \(socketPath): \(error)"))
            }
        }
        // Room for thousands of clients where the hard limit allows it (systemd's default
        // soft limit is 1024); the server keeps a reserve of descriptors free below it.
        ResourceLimits.raiseOpenFiles(upTo: VarlinkServer.connectionCap + 1024)
        let server = VarlinkServer(
            listener: listener, loop: loops[0], workers: loops,
            info: VarlinkServerInfo(vendor: "carplayd", product: "carplayd", version: version, url: "file:///usr/share/doc/carplayd/README.md"),
            interfaces: [
                VarlinkInterfaceDescription(name: VehicleService.interfaceName, text: VehicleInterface.description),
                VarlinkInterfaceDescription(name: VSSInterface.name, text: VSSInterface.description),
            ]
                + (simulatorControl ? [VarlinkInterfaceDescription(name: SimulatorInterface.name, text: SimulatorInterface.description)] : []),
            service: service)
        do { try server.start() } catch {
            listener.close()
            return .failure(DaemonError("cannot serve on \(socketPath): \(error)"))
        }
        return .success(server)
    }

    /// The listening socket systemd passed (carplayd.socket), nil when started directly.
    static func activatedListener() -> Result<FileDescriptor?, DaemonError> {
        let descriptors = SystemdActivation.listenedDescriptors()
        guard let first = descriptors.first else { return .success(nil) }
        guard descriptors.count == 1 else {
            return .failure(DaemonError("socket activation: expected one socket, systemd passed \(descriptors.count)"))
        }
        guard SystemdActivation.isUnixStreamListener(first) else {
            return .failure(DaemonError("socket activation: fd \(first.rawValue) is not a listening AF_UNIX stream socket"))
        }
        do { try SystemdActivation.makeNonBlocking(first) } catch {
            return .failure(DaemonError("socket activation: fd \(first.rawValue): \(error)"))
        }
        return .success(first)
    }

    /// Which car is served, for the log: "the Example Sedan (profile DIR, the default vehicle)".
    static func served(_ profile: VehicleProfile, directory: String, configured: Bool) -> String {
        "the \(profile.displayName) (profile \(directory)\(configured ? "" : ", the default vehicle: no profile configured"))"
    }

    static func statusText(reachable: Bool, interface: String) -> String {
        reachable ? "vehicle reachable on \(interface)" : "vehicle not reachable on \(interface)"
    }

    /// Under systemd: STATUS= when the vehicle's reachability changes, and WATCHDOG=1 at half
    /// of `WatchdogSec=`, sent only while every event loop thread answers a poke and the
    /// controller's CAN reader runs (a wedged actor never answers: no ping, systemd restarts us).
    func supervise(state: DaemonState, loops: [EventLoop], notifier: SystemdNotifier, reachable: Bool) async {
        let watchdog = SystemdNotifier.watchdogTimeout()
        if let watchdog { log.info("watchdog: \(watchdog) (pinging every \(watchdog / 2) while the event loop and CAN reader are alive)") }
        let tick: Duration = watchdog.map { min($0 / 2, .seconds(1)) } ?? .seconds(1)
        let pingEvery: Duration = watchdog.map { $0 / 2 } ?? .seconds(3600)
        let clock = ContinuousClock()
        var lastPing = clock.now - pingEvery
        var wasReachable = reachable
        var untrustedReported = 0
        var lateReported = 0
        var beats = loops.map(\.heartbeat)
        for loop in loops { loop.poke() }
        while !Task.isCancelled {
            // Cancelled, or the loop stopped: the daemon is stopping.
            do { try await loops[0].sleep(for: tick) } catch { return }
            let session = state.session
            let controller = session.controller
            let nowReachable = controller.isReachable
            if nowReachable != wasReachable {
                wasReachable = nowReachable
                _ = try? notifier.notify("STATUS=\(Self.statusText(reachable: nowReachable, interface: session.interface))")
                if nowReachable { log.info("vehicle reachable on \(session.interface)") } else { log.warning("vehicle not reachable on \(session.interface)") }
            }
            // Untrusted frames (wrong CRC, repeated or skipped alive counter on the
            // vehicle's IDs): at most one line per tick, with the count and the latest.
            let untrusted = controller.untrustedFrames
            if untrusted < untrustedReported { untrustedReported = 0 }  // a reload: a new controller
            if untrusted > untrustedReported {
                let last = controller.lastUntrustedFrame ?? "?"
                log.warning("\(untrusted - untrustedReported) untrusted frame(s) from the vehicle's IDs ignored (\(untrusted) in all; last: \(last))")
                untrustedReported = untrusted
            }
            // Commands the vehicle applied after they timed out: a change nobody waited
            // for, which may have replaced a newer confirmed value.
            let late = controller.lateApplications
            if late < lateReported { lateReported = 0 }  // a reload: a new controller
            if late > lateReported {
                log.warning("\(controller.lastLateApplication ?? "a timed-out command was applied late") (\(late) in all)")
                lateReported = late
            }
            guard watchdog != nil else { continue }
            let loopAlive = zip(loops, beats).allSatisfy { $0.heartbeat != $1 }
            let reading = controller.isReading
            beats = loops.map(\.heartbeat)
            for loop in loops { loop.poke() }
            if clock.now - lastPing >= pingEvery - tick / 2 {
                if loopAlive && reading {
                    _ = try? notifier.notify("WATCHDOG=1")
                    lastPing = clock.now
                } else {
                    log.warning("watchdog: not pinging (event loop \(loopAlive ? "alive" : "stuck"), CAN reader \(reading ? "running" : "stopped"))")
                }
            }
        }
    }

    static func parseConfiguration(_ arguments: [String]) -> Result<DaemonConfiguration, ConfigurationError> {
        Result { () throws(ConfigurationError) in try DaemonConfiguration.parse(arguments: arguments) { try? FileDescriptor.readFile(atPath: $0) } }
    }

    static func faultPlan(_ text: String?) -> Result<FaultPlan, DaemonError> {
        guard let text else { return .success(.none) }
        do { return .success(try FaultPlan(parsing: text, source: "--simulator-faults")) } catch { return .failure(DaemonError("\(error)")) }
    }

    static func loadProfileResult(_ path: String?) -> Result<(String, VehicleProfile), DaemonError> {
        do { return .success(try loadProfile(path)) } catch { return .failure(DaemonError("\(error)")) }
    }

    /// SIGHUP: re-read the config file and the profile; keep the old ones if invalid.
    func reload(state: DaemonState, canLoop: EventLoop) async {
        var next = configuration
        if let file = configuration.configFile {
            switch Self.parseConfiguration(arguments) {
            case let .success(parsed): next = parsed
            case let .failure(error):
                log.error("reload: \(file): \(error); keeping the running configuration")
                return
            }
        }
        let outcome = prepare(next, canLoop: canLoop)
        guard case let .success(prepared) = outcome else {
            if case let .failure(error) = outcome { log.error("reload: \(error); keeping \(error.kept)") }
            return
        }
        let old = state.replace(
            session: prepared.session, allowedUsers: prepared.allowedUsers, allowedGroups: prepared.allowedGroups,
            deviceLock: prepared.deviceLock, simulatorAccess: prepared.simulatorAccess)
        await old.stop()
        log.info("reloaded: \(Self.served(prepared.profile, directory: prepared.directory, configured: next.profile != nil))")
    }

    func resolveAccounts(_ configuration: DaemonConfiguration) -> (Set<UInt32>, Set<UInt32>) {
        (userIDs(configuration.allowedUsers, key: "allow-users"), groupIDs(configuration.allowedGroups, key: "allow-groups"))
    }

    /// Who may call io.carplayd.Simulator; nil when it is not offered (off, or a real bus).
    func simulatorAccess(_ configuration: DaemonConfiguration) -> SimulatorAccess? {
        guard configuration.servesSimulator else { return nil }
        return SimulatorAccess(
            users: userIDs(configuration.simulatorControlUsers, key: "simulator-control-users"),
            groups: groupIDs(configuration.simulatorControlGroups, key: "simulator-control-groups"))
    }

    private func userIDs(_ names: [String], key: String) -> Set<UInt32> {
        var users = Set<UInt32>()
        for name in names {
            if let uid = Accounts.userID(named: name) { users.insert(uid) } else { log.warning("\(key): no user \(name)") }
        }
        return users
    }

    private func groupIDs(_ names: [String], key: String) -> Set<UInt32> {
        var groups = Set<UInt32>()
        for name in names {
            if let gid = Accounts.groupID(named: name) { groups.insert(gid) } else { log.warning("\(key): no group \(name)") }
        }
        return groups
    }

    /// How the caller's device lock is read, as the configuration says.
    func deviceLock(_ configuration: DaemonConfiguration) -> DeviceLock {
        DeviceLock(
            sessionless: configuration.sessionlessCallers,
            trustedUsers: userIDs(configuration.sessionlessTrustedUsers, key: "sessionless-trusted-users"),
            trustedGroups: groupIDs(configuration.sessionlessTrustedGroups, key: "sessionless-trusted-groups"), logind: .system)
    }

    /// The vehicle served when no profile is configured: the example sedan, which takes
    /// every intent. Chosen by name: the first folder in name order was a real car's
    /// partial profile (the Ford, in °F, without a power level).
    public static let defaultVehicle = "sedan"

    /// The profile folder given, or the default vehicle's.
    public static func loadProfile(_ path: String?) throws -> (String, VehicleProfile) {
        let directory = try path ?? defaultProfileDirectory(in: profileRoots())
        let profile = try ProfileLoader.load(directory: directory) { try? FileDescriptor.readFile(atPath: $0) }
        return (directory, profile)
    }

    /// `defaultVehicle`'s folder in the first of `roots` that has it.
    static func defaultProfileDirectory(in roots: [String]) throws -> String {
        for root in roots where FileSystem.exists(root + "/" + defaultVehicle + "/" + ProfileLoader.profileFileName) {
            return root + "/" + defaultVehicle
        }
        throw DaemonError(
            "no vehicle profile given, and the default one, \(defaultVehicle) (the example sedan), is not in \(roots.joined(separator: ", ")); give --profile DIR"
        )
    }

    /// The start-up line's command to try, as it runs when pasted: carplayctl beside this
    /// executable (`scripts/run.sh` starts `.build/release/carplayd`, and a build's
    /// directory is on no one's PATH; an install puts both in one bin directory), by
    /// name only when there is none beside it.
    static func tryHint(socket: String, executable: String? = FileSystem.executablePath(), isExecutable: (String) -> Bool = FileSystem.isExecutable)
        -> String
    {
        var client = "carplayctl"
        if let executable {
            let beside = FileSystem.parentDirectory(of: executable) + "/carplayctl"
            if isExecutable(beside) { client = beside }
        }
        let command = "\(shellQuoted(client)) --socket \(shellQuoted(socket))"
        return "try: \(command) climate --temperature 21.5 --zone driver   (or: \(command) status)"
    }

    /// `text` as one shell word: as it is when it has nothing the shell would read, else
    /// in single quotes.
    static func shellQuoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-+:@%=,".contains($0)) }
        return plain ? text : "'" + text.replacing("'", with: #"'\''"#) + "'"
    }

    /// Where shipped profiles are: `$CARPLAYD_PROFILES`, the source tree's VehicleProfiles
    /// (next to a build), the installed ones.
    static func profileRoots() -> [String] {
        var roots: [String] = []
        if let root = ProcessEnvironment.current()["CARPLAYD_PROFILES"] { roots.append(root) }
        if let executable = FileSystem.executablePath() {
            // .build/<triple>/<config>/carplayd -> the package root
            var directory = FileSystem.parentDirectory(of: executable)
            for _ in 0..<5 {
                roots.append(directory + "/VehicleProfiles")
                directory = FileSystem.parentDirectory(of: directory)
            }
            roots.append(FileSystem.parentDirectory(of: FileSystem.parentDirectory(of: executable)) + "/share/carplayd/VehicleProfiles")
        }
        roots += ["/usr/local/share/carplayd/VehicleProfiles", "/usr/share/carplayd/VehicleProfiles"]
        return roots
    }
}

public struct DaemonError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
