import CANBus
import CANKit
import CarplayDash
import LinuxSupport
import SocketCAN

/// `carplayctl dbc watch`: the live bus decoded, full screen, as `cantools monitor`
/// shows it; the dash's terminal layer (80x24 and any size, resize, NO_COLOR, q and
/// Ctrl-C restore the terminal).
enum DBCWatch {
    static let usage = """
               carplayctl dbc watch [--filter TEXT] [--plain] DBC_FILE (--can IFACE | --replay LOG)
        """

    static let help = """
          watch    the bus decoded live: per message its signals with values and choice
                   names, its rate and last data, a change of the last 2 s highlighted;
                   from a CAN interface (--can) or a candump -L log played at its recorded
                   pace (--replay). --filter TEXT shows the messages and signals whose
                   names contain it. q or Ctrl-C quits; --plain (or no terminal) prints
                   the decoded bus once a second instead.
        """

    enum Event: Sendable {
        case frame(CANFrame)
        case input([UInt8])
        case signal(Int32)
        case tick
    }

    static func run(_ arguments: [String]) async throws -> Int32 {
        var rest = arguments
        let filter = try DBCDiff.takeValue("--filter", from: &rest) ?? ""
        let interface = try DBCDiff.takeValue("--can", from: &rest)
        let replay = try DBCDiff.takeValue("--replay", from: &rest)
        let plain = DBCDiff.take("--plain", from: &rest)
        if let option = rest.first(where: { $0.hasPrefix("--") }) { throw UsageError("unknown option \(option)") }
        guard rest.count == 1 else { throw UsageError("watch takes one DBC file") }
        guard (interface == nil) != (replay == nil) else { throw UsageError("watch needs --can IFACE or --replay LOG (one of them)") }
        let database = try DBCCommand.load(rest[0], warnings: false)
        let records = try replay.map { try DBCDiff.read($0) }

        let (events, sink) = AsyncStream<Event>.makeStream()
        let term = DashVerb.environment("TERM") ?? ""
        let fullScreen = !plain && Terminal.isTerminal(.standardInput) && Terminal.isTerminal(.standardOutput) && !term.isEmpty && term != "dumb"
        var port: SocketCANPort?
        do {
            if let interface {
                let opened = try SocketCANPort(interface: interface, fd: database.messages.contains(where: \.isFD))
                opened.startReceiving(CANReceiver(frame: { sink.yield(.frame($0.frame)) }, finished: {}))
                port = opened
            } else if let records {
                try DetachedThread.start(name: "watch-replay") { play(records, sink) }
            }
            try DetachedThread.start(name: "watch-tick") {
                while true {
                    DetachedThread.sleep(for: .milliseconds(250))
                    sink.yield(.tick)
                }
            }
            if fullScreen {
                try DetachedThread.start(name: "watch-keys") {
                    var buffer = [UInt8](repeating: 0, count: 64)
                    while true {
                        let count = (try? buffer.withUnsafeMutableBytes { raw in try FileDescriptor.standardInput.read(into: raw) }) ?? 0
                        guard count > 0 else { return }
                        sink.yield(.input(Array(buffer[0..<count])))
                    }
                }
            }
        } catch {
            throw OperationFailure("cannot watch \(interface ?? replay ?? ""): \(error)")
        }
        let signals = Signals.stream([Signals.interrupt, Signals.terminate, Signals.windowChange])
        let forwarder = Task {
            for await number in signals { sink.yield(.signal(number)) }
        }
        defer { forwarder.cancel() }
        let source = interface.map { "on \($0)" } ?? "replaying \(replay!.split(separator: "/").last.map(String.init) ?? replay!)"
        var watch = BusWatch(database: database, filter: filter)
        if fullScreen {
            try await runFullScreen(&watch, events, source: source, colors: (DashVerb.environment("NO_COLOR") ?? "").isEmpty)
        } else {
            await runPlain(&watch, events, source: source)
        }
        await port?.close()
        return ExitCode.success
    }

    /// Plays a log at the pace its timestamps give (untimed lines: 10 ms apart).
    static func play(_ records: [CandumpRecord], _ sink: AsyncStream<Event>.Continuation) {
        var previous: Double?
        for record in records {
            let at = record.timestamp.map(DBCDiff.seconds)
            if let at, let last = previous, at > last {
                DetachedThread.sleep(for: .seconds(min(2, at - last)))
            } else if at == nil {
                DetachedThread.sleep(for: .milliseconds(10))
            }
            previous = at ?? previous
            sink.yield(.frame(record.frame))
        }
    }

    static func runFullScreen(_ watch: inout BusWatch, _ events: AsyncStream<Event>, source: String, colors: Bool) async throws {
        let screen: DashScreen
        do { screen = try DashScreen(colors: colors) } catch { throw OperationFailure(error.description) }
        defer { screen.leave() }
        var drawnAt = -Double.infinity
        screen.draw(watch.render(columns: screen.size.columns, rows: screen.size.rows, now: monotonicSeconds(), source: source))
        for await event in events {
            let now = monotonicSeconds()
            switch event {
            case let .frame(frame): watch.receive(frame, at: now)
            case .signal(Signals.windowChange): screen.resized()
            case .signal: return
            case let .input(bytes):
                for key in DashKey.parse(bytes) {
                    switch key {
                    case .character("q"), .interrupt: return
                    case .redraw: screen.invalidate()
                    case .up: watch.scroll = max(0, watch.scroll - 1)
                    case .down: watch.scroll += 1
                    default: break
                    }
                }
            case .tick: break
            }
            // At most 20 screens a second on a busy bus.
            if case .frame = event, now - drawnAt < 0.05 { continue }
            drawnAt = now
            screen.draw(watch.render(columns: screen.size.columns, rows: screen.size.rows, now: now, source: source))
        }
    }

    static func runPlain(_ watch: inout BusWatch, _ events: AsyncStream<Event>, source: String) async {
        var printedAt = -Double.infinity
        let columns = Terminal.size(of: .standardOutput)?.columns ?? 100
        for await event in events {
            let now = monotonicSeconds()
            switch event {
            case let .frame(frame): watch.receive(frame, at: now)
            case let .signal(number) where number != Signals.windowChange: return
            default: break
            }
            guard now - printedAt >= 1 else { continue }
            printedAt = now
            let lines = watch.render(columns: columns, rows: 2 + watch.messages.values.reduce(0) { $0 + 1 + $1.signals.count }, now: now, source: source)
            let text = lines.dropLast().map { line -> String in
                var text = line.text
                while text.last == " " { text.removeLast() }
                return text
            }
            output(StateVerbs.clockTime() + "\n" + text.joined(separator: "\n") + "\n")
        }
    }
}
