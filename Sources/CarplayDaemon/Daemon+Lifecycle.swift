import CarIntents
import EventLoops
import LinuxSupport
import Varlink

/// carplayd's life: start (the loops, the configuration prepared as a reload prepares
/// it, the socket served), serve the signals, stop.
extension Daemon {
    /// Serves until SIGTERM/SIGINT, reloading on SIGHUP. Throws `StartFailure` when it
    /// cannot start (what failed is logged already; the failure carries the exit code).
    public func run() async throws {
        Signals.ignoreBrokenPipes()
        let signals = Signals.stream([Signals.terminate, Signals.interrupt, Signals.hangup])
        let running = try await start()
        // On the first loop, which keeps its ticks: no timer thread wakes for them.
        let supervisor = Task(executorPreference: running.loops[0]) {
            await self.supervise(state: running.state, loops: running.loops, notifier: running.notifier, reachable: running.reachable)
        }
        for await signal in signals {
            guard signal == Signals.hangup else { break }
            _ = try? running.notifier.notify("RELOADING=1\nSTATUS=reloading")
            await reload(state: running.state, canLoop: running.loops[0])
            let session = running.state.session
            _ = try? running.notifier.notify("READY=1\nSTATUS=\(Self.statusText(reachable: session.controller.isReachable, interface: session.interface))")
        }
        supervisor.cancel()
        await stop(running)
    }

    /// What `run` serves with once started.
    struct Running {
        let loops: [EventLoop]
        let state: DaemonState
        let server: VarlinkServer
        /// The listener systemd passed (carplayd.socket), nil when carplayd made its own.
        let activated: FileDescriptor?
        let notifier: SystemdNotifier
        let reachable: Bool
    }

    /// The event loops, the configuration prepared (`prepare`, as a reload does), the
    /// socket served; READY=1 once the vehicle is heard or 2 s passed. What a failed step
    /// leaves running is stopped before it throws.
    func start() async throws -> Running {
        let loops = try startStep(Self.startLoops(), exitCode: 1, undo: [])
        let prepared: Prepared
        switch prepare(configuration, canLoop: loops[0]) {
        case let .success(value): prepared = value
        case let .failure(error): throw fail(error.description, exitCode: error.exitCode, loops: loops)
        }
        let session = prepared.session
        let state = DaemonState(
            session: session, allowedUsers: prepared.allowedUsers, allowedGroups: prepared.allowedGroups, deviceLock: prepared.deviceLock,
            simulatorAccess: prepared.simulatorAccess)
        let socketPath = configuration.socket
        let listened = Self.activatedListener().flatMap { activated in
            Self.serve(
                socketPath: socketPath, listener: activated, loops: loops, service: VehicleService(state: state, log: log),
                simulatorControl: configuration.servesSimulator
            ).map { (activated, $0) }
        }
        guard case let .success((activated, server)) = listened else {
            if case let .failure(error) = listened {
                await session.stop()
                throw fail(error.description, exitCode: 1, loops: loops)
            }
            preconditionFailure("a Result is a success or a failure")
        }
        if configuration.servesSimulator {
            log.info(
                "io.carplayd.Simulator is served: the embedded vehicle's panel, faults and drive state (root, uid \(Accounts.currentUserID), simulator-control-users/-groups)"
            )
        }
        let reachable = await session.controller.waitUntilReachable(timeout: .seconds(2))
        let bus = prepared.source.description(interface: session.interface)
        let listening = activated.map { "\(socketPath) (socket-activated, fd \($0.rawValue))" } ?? socketPath
        let car = Self.served(prepared.profile, directory: prepared.directory, configured: configuration.profile != nil)
        log.info("listening on \(listening): \(car); \(bus)\(reachable ? "" : ", vehicle not reachable yet")")
        let notifier = SystemdNotifier()
        _ = try? notifier.notify("READY=1\nSTATUS=\(Self.statusText(reachable: reachable, interface: session.interface))")
        log.info(Self.tryHint(socket: socketPath))
        return Running(loops: loops, state: state, server: server, activated: activated, notifier: notifier, reachable: reachable)
    }

    /// A graceful stop: no new connections, intents in flight finished (5 s at most), the
    /// session and the loops stopped, the socket removed where carplayd made it.
    func stop(_ running: Running) async {
        log.info("stopping: no new connections, finishing intents in flight")
        _ = try? running.notifier.notify("STOPPING=1\nSTATUS=stopping")
        running.server.stopAccepting()
        let left = await running.state.drain(timeout: .seconds(5))
        if left > 0 { log.warning("\(left) intents still in flight after 5 s; their clients are disconnected") }
        running.server.closeAll()
        await running.state.session.stop()
        for loop in running.loops { loop.shutdown() }
        // A socket-activated listener belongs to carplayd.socket: systemd keeps the path.
        if running.activated == nil { FileSystem.remove(configuration.socket) }
        log.info("stopped")
    }

    /// A start-up step's value, or its failure logged and thrown (after shutting `undo` down).
    func startStep<T>(_ result: Result<T, DaemonError>, exitCode: Int32, undo loops: [EventLoop]) throws -> T {
        switch result {
        case let .success(value): return value
        case let .failure(error): throw fail(error.description, exitCode: exitCode, loops: loops)
        }
    }

    func fail(_ message: String, exitCode: Int32, loops: [EventLoop]) -> StartFailure {
        for loop in loops { loop.shutdown() }
        log.error(message)
        return StartFailure(description: message, exitCode: exitCode)
    }
}

/// Why carplayd did not start: 2 for what the configuration says wrong, 1 for what failed
/// when it was opened (the event loops, the vehicle, the socket).
public struct StartFailure: Error, CustomStringConvertible {
    public let description: String
    public let exitCode: Int32
}
