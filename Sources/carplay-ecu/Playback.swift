import CANBus
import CANKit
import LinuxSupport
import SocketCAN
import VehicleKit
import VehicleSimulator

// carplay-ecu's two playbacks: a scenario on the simulated vehicle, and a candump
// replay in its place.

func readText(_ path: String, option: String) -> String {
    guard let bytes = try? FileDescriptor.readFile(atPath: path) else { fail("\(option): cannot read \(path)") }
    return String(decoding: bytes, as: UTF8.self)
}

func loadScenario(_ path: String, profile: VehicleProfile) -> Scenario {
    do { return try Scenario(parsing: readText(path, option: "--scenario"), source: path, profile: profile) } catch { fail("--scenario: \(error)") }
}

/// Starts the scenario on `node` beside its run; the returned task ends with the scenario.
func startScenario(_ scenario: Scenario, node: SimulatedVehicleNode) -> Task<Void, Never> {
    let runner = ScenarioRunner(scenario: scenario, node: node) { line in
        try? FileDescriptor.standardError.writeAll("carplay-ecu: scenario: \(line)\n")
    }
    return runner.start()
}

/// (Synchronous: typed throws inside an async function crash the release compiler, see Daemon.run.)
func loadReplay(_ path: String) -> CandumpReplay {
    do { return try CandumpReplay(parsing: Array(readText(path, option: "--replay").utf8)) } catch { fail("--replay: \(path): \(error)") }
}

/// One line from standard input per frame (Enter on a terminal); false at its end.
/// Read on a thread of its own: the read blocks.
func awaitLine() async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        do {
            try DetachedThread.start(name: "step") { continuation.resume(returning: readLine(strippingNewline: true) != nil) }
        } catch {
            continuation.resume(returning: false)
        }
    }
}

/// `--replay LOG`: plays the log on `interface` instead of a vehicle, then exits (0 when
/// played through, on SIGTERM / SIGINT too).
func runReplay(_ path: String, interface: String, loop: Bool, step: Bool, quiet: Bool) async -> Never {
    let replay = loadReplay(path)
    guard !replay.entries.isEmpty else { fail("--replay: \(path) has no frames") }
    let fd = replay.entries.contains { if case .fd = $0.frame.kind { true } else { false } }
    let port: SocketCANPort
    do {
        // Listen to nothing of interest: only the log's own IDs pass the filters.
        port = try SocketCANPort(interface: interface, fd: fd, acceptedIDs: Array(Set(replay.entries.map(\.frame.id))))
    } catch {
        fail("cannot open \(interface): \(error)", code: 1)
    }
    let mode = step ? "step mode: one frame per line on standard input\(Terminal.isTerminal(.standardInput) ? " (Enter)" : "")" : "timing kept"
    try? FileDescriptor.standardError.writeAll(
        "carplay-ecu: replaying \(path) on \(interface): \(replay.entries.count) frames, \(replay.time(of: replay.entries.count - 1)), \(mode)\(loop ? ", looping" : "")\n"
    )
    let player = CandumpPlayer(replay: replay, port: port, loop: loop)
    var stepper: (@Sendable (Int, CANFrame) async -> Bool)?
    if step {
        let count = replay.entries.count
        stepper = { @Sendable (index: Int, frame: CANFrame) async -> Bool in
            try? FileDescriptor.standardError.writeAll("carplay-ecu: next \(index + 1)/\(count) \(CandumpWriter.compactFrame(frame))? ")
            return await awaitLine()
        }
    }
    let steps = stepper
    let play = Task(executorPreference: Timekeeper.loop) {
        await player.play(step: steps) { frame in
            if !quiet, step { try? FileDescriptor.standardError.writeAll("carplay-ecu: sent \(CandumpWriter.compactFrame(frame))\n") }
        }
    }
    let signals = Signals.stream([Signals.terminate, Signals.interrupt])
    let stop = Task {
        for await _ in signals { break }
        play.cancel()
    }
    let (sent, failed) = await play.value
    stop.cancel()
    await port.close()
    try? FileDescriptor.standardError.writeAll("carplay-ecu: replay done: \(sent) frames sent\(failed > 0 ? ", \(failed) lost (bus busy)" : "")\n")
    exitProcess(0)
}

/// `--bus-load`: the rest of the car's bus (`BusLoad`) beside the simulated vehicle, on
/// a thread of its own that sleeps until the next message is due; it ends when the port
/// closes.
func startBusLoad(_ load: BusLoad, port: SocketCANPort) {
    do {
        try DetachedThread.start(name: "bus-load") {
            var schedule = load.schedule()
            let start = ContinuousClock.now
            while let next = schedule.nextDue {
                let wait = next - (ContinuousClock.now - start)
                if wait > .zero { DetachedThread.sleep(for: wait) }
                let elapsed = ContinuousClock.now - start
                for frame in schedule.frames(at: elapsed) {
                    // A full transmit queue or a link that is down: the next period tries again.
                    if case .failed(.closed) = port.send(frame) { return }
                }
            }
        }
    } catch {
        fail("--bus-load: cannot start its thread: \(error)", code: 1)
    }
}
