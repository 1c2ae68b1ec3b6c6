import LinuxSupport
import Varlink
import VehicleKit

/// carplayd as a service: `run()` starts the vehicle runtime and the Varlink server,
/// then serves until SIGTERM/SIGINT (graceful stop) while SIGHUP reloads.
public final class Daemon: Sendable {
    public let configuration: DaemonConfiguration
    private let arguments: [String]
    private let log: Logger

    public init(configuration: DaemonConfiguration, arguments: [String]) {
        self.configuration = configuration
        self.arguments = arguments
        self.log = Logger(level: configuration.logLevel)
    }

    public static let version = "0.4.0"

    /// Serves until stopped; returns the exit code.
    public func run() async -> Int32 {
        Signals.ignoreBrokenPipes()
        let signals = Signals.stream([Signals.terminate, Signals.interrupt, Signals.hangup])
        // The throwing steps live in synchronous helpers: the release compiler (6.3.1)
        // crashes splitting this coroutine when typed throws happen inside it.
        let loaded = Self.loadProfileResult(configuration.profile)
        guard case let .success((directory, profile)) = loaded else {
            if case let .failure(error) = loaded { log.error(error.description) }
            return 2
        }
        let (users, groups) = resolveAccounts(configuration)
        let store = CarProfileStore(directory: configuration.stateDirectory)
        let parsedFaults = Self.faultPlan(configuration.simulatorFaults)
        guard case let .success(faults) = parsedFaults else {
            if case let .failure(error) = parsedFaults { log.error("--simulator-faults: \(error)") }
            return 2
        }
        if let text = configuration.simulatorFaults { log.warning("the simulated vehicle runs with faults: \(text)") }
        let made = await Self.makeRuntime(configuration, profile: profile, directory: directory, store: store, faults: faults)
        guard case let .success(runtime) = made else {
            if case let .failure(error) = made { log.error(error.description) }
            return 1
        }
        let state = DaemonState(runtime: runtime, allowedUsers: users, allowedGroups: groups)

        let socketPath = configuration.socket
        let served = Self.serve(socketPath: socketPath, service: VehicleService(state: state, log: log))
        guard case let .success((server, loop)) = served else {
            if case let .failure(error) = served { log.error(error.description) }
            await runtime.stop()
            return 1
        }
        let reachable = await runtime.controller.waitUntilReachable(timeout: .seconds(2))
        let where_ = runtime.isEmbedded ? "embedded simulated vehicle on an in-process \(runtime.interface)" : "CAN interface \(runtime.interface)"
        log.info("listening on \(socketPath) (\(profile.displayName), profile \(directory); \(where_)\(reachable ? "" : ", vehicle not reachable yet"))")
        log.info("try: carplayctl --socket \(socketPath) climate --temperature 21.5 --zone driver   (or: carplayctl --socket \(socketPath) status)")

        for await signal in signals {
            if signal == Signals.hangup {
                await reload(state: state, store: store)
                continue
            }
            log.info("stopping: no new connections, finishing intents in flight")
            server.stopAccepting()
            let left = await state.drain(timeout: .seconds(5))
            if left > 0 { log.warning("\(left) intents still in flight after 5 s; their clients are disconnected") }
            server.closeAll()
            await state.runtime.stop()
            loop.shutdown()
            FileSystem.remove(socketPath)
            log.info("stopped")
            return 0
        }
        return 0
    }

    static func makeRuntime(_ configuration: DaemonConfiguration, profile: VehicleProfile, directory: String, store: CarProfileStore, faults: FaultPlan) async -> Result<VehicleRuntime, DaemonError> {
        var profile = profile
        if let milliseconds = configuration.confirmationTimeoutMilliseconds {
            profile.policies.confirmationTimeout = .milliseconds(milliseconds)
        }
        if let interface = configuration.canInterface {
            return await VehicleRuntime.socketCAN(profile: profile, profileDirectory: directory, interface: interface, store: store)
        }
        return .success(await VehicleRuntime.embedded(profile: profile, profileDirectory: directory, store: store, faults: faults))
    }

    /// Listens on the socket and starts the Varlink server on a new event loop.
    static func serve(socketPath: String, service: VehicleService) -> Result<(VarlinkServer, EventLoop), DaemonError> {
        let listener: FileDescriptor
        do {
            try FileSystem.makeDirectories(FileSystem.parentDirectory(of: socketPath), mode: 0o755)
            listener = try UnixSocket.listen(path: socketPath, mode: 0o660)
        } catch {
            return .failure(DaemonError("cannot listen on \(socketPath): \(error)"))
        }
        let loop: EventLoop
        do { loop = try EventLoop() } catch {
            listener.close()
            return .failure(DaemonError("cannot start the event loop: \(error)"))
        }
        let server = VarlinkServer(
            listener: listener, loop: loop,
            info: VarlinkServerInfo(vendor: "carplayd", product: "carplayd", version: version, url: "file:///usr/share/doc/carplayd/README.md"),
            interfaces: [VarlinkInterfaceDescription(name: VehicleService.interfaceName, text: VehicleInterface.description)],
            service: service)
        do { try server.start() } catch {
            loop.shutdown()
            listener.close()
            return .failure(DaemonError("cannot serve on \(socketPath): \(error)"))
        }
        return .success((server, loop))
    }

    static func parseConfiguration(_ arguments: [String]) -> Result<DaemonConfiguration, ConfigurationError> {
        Result { () throws(ConfigurationError) in try DaemonConfiguration.parse(arguments: arguments) { try? FileDescriptor.readFile(atPath: $0) } }
    }

    static func faultPlan(_ text: String?) -> Result<FaultPlan, DaemonError> {
        guard let text else { return .success(.none) }
        do { return .success(try JSONCoding.decode(FaultPlan.self, from: Array(text.utf8))) } catch { return .failure(DaemonError("\(error)")) }
    }

    static func loadProfileResult(_ path: String?) -> Result<(String, VehicleProfile), DaemonError> {
        do { return .success(try loadProfile(path)) } catch { return .failure(DaemonError("\(error)")) }
    }

    /// SIGHUP: re-read the config file and the profile; keep the old ones if invalid.
    private func reload(state: DaemonState, store: CarProfileStore) async {
        var next = configuration
        if let file = configuration.configFile {
            switch Self.parseConfiguration(arguments) {
            case let .success(parsed): next = parsed
            case let .failure(error):
                log.error("reload: \(file): \(error); keeping the running configuration")
                return
            }
        }
        let loaded = Self.loadProfileResult(next.profile)
        guard case let .success((directory, profile)) = loaded else {
            if case let .failure(error) = loaded { log.error("reload: \(error); keeping the running profile") }
            return
        }
        let (users, groups) = resolveAccounts(next)
        let parsedFaults = Self.faultPlan(next.simulatorFaults)
        guard case let .success(faults) = parsedFaults else {
            if case let .failure(error) = parsedFaults { log.error("reload: --simulator-faults: \(error); keeping the running vehicle") }
            return
        }
        let made = await Self.makeRuntime(next, profile: profile, directory: directory, store: CarProfileStore(directory: next.stateDirectory), faults: faults)
        guard case let .success(runtime) = made else {
            if case let .failure(error) = made { log.error("reload: \(error); keeping the running vehicle") }
            return
        }
        let old = await state.replace(runtime: runtime, allowedUsers: users, allowedGroups: groups)
        await old.stop()
        log.info("reloaded: \(profile.displayName) (profile \(directory))")
    }

    private func resolveAccounts(_ configuration: DaemonConfiguration) -> (Set<UInt32>, Set<UInt32>) {
        var users = Set<UInt32>()
        for name in configuration.allowedUsers {
            if let uid = Accounts.userID(named: name) { users.insert(uid) } else { log.warning("allow-users: no user \(name)") }
        }
        var groups = Set<UInt32>()
        for name in configuration.allowedGroups {
            if let gid = Accounts.groupID(named: name) { groups.insert(gid) } else { log.warning("allow-groups: no group \(name)") }
        }
        return (users, groups)
    }

    /// The profile folder given, or the first shipped vehicle.
    public static func loadProfile(_ path: String?) throws -> (String, VehicleProfile) {
        let directory = try path ?? defaultProfileDirectory()
        let profile = try ProfileLoader.load(directory: directory) { try? FileDescriptor.readFile(atPath: $0) }
        return (directory, profile)
    }

    /// `$CARPLAYD_PROFILES/…`, the source tree's VehicleProfiles (next to a build), or
    /// the installed ones; the first vehicle in name order.
    static func defaultProfileDirectory() throws -> String {
        var roots: [String] = []
        if let root = CarplaydPaths.environment()["CARPLAYD_PROFILES"] { roots.append(root) }
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
        for root in roots where FileSystem.isDirectory(root) {
            for name in FileSystem.contents(ofDirectory: root) where FileSystem.exists(root + "/" + name + "/profile.json") {
                return root + "/" + name
            }
        }
        throw DaemonError("no vehicle profile found (looked in \(roots.joined(separator: ", "))); give --profile DIR")
    }
}

public struct DaemonError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
