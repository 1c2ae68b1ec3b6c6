import CANKit
import CarplayClient
import CarplayDash
import CarplayJSON
import LinuxSupport

/// `carplayctl dash`: the live car, full screen, from the daemon's Monitor stream.
enum DashVerb {
    static let usage = """
        usage: carplayctl dash [--dbc FILE] [--plain] [--socket PATH]

          A full-screen view of the live car: the cabin from above by zone and seat
          (temperatures, fan, A/C, seat levels, defrosters, doors, audio, fuel/charge),
          values asked for -- by the dash or any other client -- and not yet confirmed
          ('→ 23 °C …') or refused ('✗'), and every CAN ID on the bus with its message,
          rate, last data and counts. Keys send the common intents as the verbs do
          (? lists them); q or Ctrl-C quits.
          --dbc FILE      the car's DBC, to decode the selected message's signals
          --plain         the plain view: the cabin as text, again whenever it changed
                          (at most once a second), until Ctrl-C. The default when stdout
                          is not a terminal or TERM is dumb.
          --socket PATH   the daemon's socket (default: $CARPLAYD_SOCKET, else
                          $XDG_RUNTIME_DIR/carplayd/io.carplayd.Vehicle, /run/carplayd/... for root)
          NO_COLOR set: no colours (markers and bold only).
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        var options = DaemonOptions()
        var dbcPath: String?
        var plain = false
        let positional = try IntentVerbs.parse(arguments, &options) { argument, list in
            switch argument {
            case "--dbc": dbcPath = try list.value(for: argument)
            case "--plain": plain = true
            default: return false
            }
            return true
        }
        if let extra = positional.first { throw UsageError("unexpected argument '\(extra)'") }
        options.json = false
        let database = try dbcPath.map { try DBCCommand.load($0, warnings: false) }

        // The first readings before the screen changes: an unreachable daemon is exit 3.
        var model = try withDaemonErrorsAsJSON(false) { () throws -> DashModel in
            let daemon = try DaemonConnection(options)
            let vehicle = try daemon.run { try $0.describe().vehicle }
            var model = DashModel(vehicle: DashVehicle(describe: vehicle), database: database)
            model.apply(state: try daemon.run { try $0.getState() }, now: monotonicSeconds())
            // The frame detail names each key's VSS paths; a daemon without io.carplayd.VSS
            // (an older one) leaves them out.
            if let described = try? daemon.run({ try $0.describeVSS() }) { model.vssPaths = described.pathsByKey }
            return model
        }

        let term = environment("TERM") ?? ""
        let fullScreen = !plain && Terminal.isTerminal(.standardInput) && Terminal.isTerminal(.standardOutput) && !term.isEmpty && term != "dumb"
        let colors = (environment("NO_COLOR") ?? "").isEmpty

        let (events, sink) = AsyncStream<DashEvent>.makeStream()
        let signals = Signals.stream([Signals.interrupt, Signals.terminate, Signals.windowChange])
        let forwarder = Task {
            for await number in signals { sink.yield(.signal(number)) }
        }
        defer { forwarder.cancel() }
        do {
            try DashFeeds.start(options, sink, keys: fullScreen)
        } catch {
            throw OperationFailure("cannot start the dash's threads: \(error)")
        }
        if fullScreen {
            try await runFullScreen(&model, events, sink, options, colors: colors)
        } else {
            await runPlain(&model, events)
        }
        return ExitCode.success
    }

    static func environment(_ name: String) -> String? { ProcessEnvironment.current()[name] }

    /// Applies a daemon event; true when the dash should end.
    static func apply(_ event: DashEvent, to model: inout DashModel, now: Double) -> Bool {
        switch event {
        case let .state(reply, at): model.apply(state: reply, now: at)
        case let .monitor(reply, at): model.apply(monitor: reply, now: at)
        case let .traffic(reply): model.apply(traffic: reply)
        case let .lost(reason): model.lost(reason)
        case let .finished(number, result): model.finish(number, result, now: now)
        case let .signal(number) where number != Signals.windowChange: return true
        case .signal, .input: break
        }
        model.expire(now: now)
        return false
    }

    static func runFullScreen(
        _ model: inout DashModel, _ events: AsyncStream<DashEvent>, _ sink: AsyncStream<DashEvent>.Continuation, _ options: DaemonOptions, colors: Bool
    ) async throws {
        let screen: DashScreen
        do { screen = try DashScreen(colors: colors) } catch { throw OperationFailure(error.description) }
        defer { screen.leave() }
        screen.draw(DashRenderer.render(model, columns: screen.size.columns, rows: screen.size.rows, now: monotonicSeconds()))
        for await event in events {
            let now = monotonicSeconds()
            if apply(event, to: &model, now: now) { break }
            switch event {
            case .signal(Signals.windowChange): screen.resized()
            case let .input(bytes):
                for key in DashKey.parse(bytes) {
                    if key == .redraw { screen.invalidate() }
                    if let request = DashKeys.handle(key, &model) {
                        DashFeeds.send(request, number: model.begin(request, now: now), options, sink)
                    }
                }
            default: break
            }
            if model.quit { break }
            screen.draw(DashRenderer.render(model, columns: screen.size.columns, rows: screen.size.rows, now: now))
        }
    }

    /// The fallback: no cursor addressing, no keys; the cabin again when it changed.
    static func runPlain(_ model: inout DashModel, _ events: AsyncStream<DashEvent>) async {
        var printed: [String] = []
        var printedAt = -Double.infinity
        let columns = Terminal.size(of: .standardOutput)?.columns ?? 80
        func show(_ now: Double) {
            let text = DashRenderer.plainText(model, columns: columns)
            guard text != printed else { return }
            output(StateVerbs.clockTime() + "\n" + text.joined(separator: "\n") + "\n")
            printed = text
            printedAt = now
        }
        show(monotonicSeconds())
        for await event in events {
            let now = monotonicSeconds()
            if apply(event, to: &model, now: now) { break }
            if now - printedAt >= 1 { show(now) }
        }
    }
}
