import CANBus
import CarplayJSON
import CarplaydProduct
import EventLoops
import LinuxSupport
import SimulatorControl
import SocketCAN
import Varlink
import VehicleKit
import VehicleSimulator

// carplay-ecu: the simulated vehicle as its own process on a CAN interface.
let usage = """
    usage: carplay-ecu --can IFACE --profile DIR [--faults JSON|@FILE] [--state JSON]
                       [--plug-in CONNECTOR | --drive KMH] [--scenario FILE] [--bus-load [--bitrate BITS]] [--quiet]
                       [--control PATH [--control-users LIST] [--control-groups LIST]]
       carplay-ecu --can IFACE --replay LOG [--loop] [--step] [--quiet]

    Plays the vehicle of the profile on a CAN interface (vcan0 or real): applies the
    E2E-checked command frames it may (the car's limits), acknowledges each, and sends
    status frames at their GenMsgCycleTime and at once on change. Logs what it applied.

      --faults   fault plan, JSON or @file (docs/SIMULATION.md), e.g.
                 '{"rules":[{"kind":"reject","property":"climate."}]}'
      --state    starting property values, e.g. '{"lock.locked":true}'
      --plug-in  start plugged in at this charging connector (one of the profile's
                 car.chargingConnectors, e.g. ccs2): charges at its power
      --drive    start driving at this speed, km/h: charge or fuel and range fall
      --scenario timed vehicle-side changes and faults to play (docs/SIMULATION.md)
      --replay   instead of a vehicle, send the frames of a candump -L log, timing kept
                 (relative to its first frame; the log's interface names are ignored)
      --loop     with --replay: start again after the last frame
      --step     with --replay: send one frame per line read on standard input (Enter)
      --bus-load also send every other message of the profile's DBC at its cycle time
                 (the profile's cycleTimeMs, GenMsgCycleTime, else 100 ms), data all
                 zeros: the rest of the real car's bus, around the few IDs carplayd reads
                 (a recorded bus: a second carplay-ecu with --replay LOG --loop)
      --bitrate  with --bus-load: the real bus's bit rate (e.g. 500000, 33333); vcan has
                 none, so the 100 ms guesses are lengthened until the load takes at most
                 half of such a bus (the DBC's and the profile's cycle times are kept)
      --quiet    log only rejections and faults
      --control  serve io.carplayd.Simulator on this Varlink socket: the car's own panel
                 (carplayctl --socket PATH car set ...), its faults and drive state
      --control-users, --control-groups
                 who may call it besides root and carplay-ecu's own user (comma-separated)

    SIGTERM / SIGINT stop it; SIGHUP prints its statistics.
    """

func fail(_ text: String, code: Int32 = 2) -> Never {
    try? FileDescriptor.standardError.writeAll("carplay-ecu: \(text)\n")
    exitProcess(code)
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exitProcess(0)
}
var interface: String?
var profileDirectory: String?
var faultsText: String?
var stateText: String?
var quiet = false
var drive = DriveState.parked
var controlPath: String?
var controlUsers: [String] = []
var controlGroups: [String] = []
var scenarioFile: String?
var replayFile: String?
var replayLoop = false
var replayStep = false
var busLoad = false
var bitrate: Int?
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    func value() -> String {
        guard !arguments.isEmpty else { fail("\(argument) needs a value\n\n\(usage)") }
        return arguments.removeFirst()
    }
    switch argument {
    case "--can": interface = value()
    case "--profile": profileDirectory = value()
    case "--faults": faultsText = value()
    case "--state": stateText = value()
    case "--plug-in":
        let name = value()
        guard let connector = ChargingConnectorType(rawValue: name) else {
            fail("--plug-in: expected one of \(ChargingConnectorType.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(name)\"")
        }
        drive.connector = connector
    case "--drive":
        let text = value()
        guard let speed = Double(text) else { fail("--drive: expected a speed in km/h, found \"\(text)\"") }
        drive.speedKmh = speed
    case "--quiet": quiet = true
    case "--bus-load": busLoad = true
    case "--bitrate":
        let text = value()
        guard let bits = Int(text), bits > 0 else { fail("--bitrate: expected bits per second, e.g. 500000, found \"\(text)\"") }
        bitrate = bits
    case "--control": controlPath = value()
    case "--control-users": controlUsers = value().split(separator: ",").map(String.init)
    case "--control-groups": controlGroups = value().split(separator: ",").map(String.init)
    case "--scenario": scenarioFile = value()
    case "--replay": replayFile = value()
    case "--loop": replayLoop = true
    case "--step": replayStep = true
    default: fail("unknown option \(argument)\n\n\(usage)")
    }
}
if let replayFile, let interface {
    // A replay is the whole bus traffic: nothing of a simulated vehicle goes with it.
    if profileDirectory != nil || faultsText != nil || stateText != nil || scenarioFile != nil || drive != .parked || controlPath != nil || busLoad {
        fail("--replay plays a log instead of a vehicle: it takes no --profile, --faults, --state, --scenario, --plug-in, --drive, --control or --bus-load")
    }
    await runReplay(replayFile, interface: interface, loop: replayLoop, step: replayStep, quiet: quiet)
}
if replayLoop || replayStep { fail("--loop and --step go with --replay") }
if bitrate != nil, !busLoad { fail("--bitrate goes with --bus-load") }
guard let interface, let profileDirectory else { fail("give --can IFACE and --profile DIR\n\n\(usage)") }

let profile: VehicleProfile
do {
    profile = try ProfileLoader.load(directory: profileDirectory) { try? FileDescriptor.readFile(atPath: $0) }
} catch {
    fail("\(error)")
}
var faults = FaultPlan.none
if var text = faultsText {
    if text.hasPrefix("@") {
        guard let bytes = try? FileDescriptor.readFile(atPath: String(text.dropFirst())) else { fail("cannot read \(text.dropFirst())") }
        text = String(decoding: bytes, as: UTF8.self)
    }
    do { faults = try FaultPlan(parsing: text, source: "--faults") } catch { fail("\(error)") }
}
var state = VehicleSimulation.defaultState(for: profile)
if let stateText {
    do { state.merge(try VehicleState(json: JSONNode(parsing: Array(stateText.utf8), file: "--state"))) } catch { fail("\(error)") }
}

var simulation = VehicleSimulation(profile: profile, state: state, faults: faults)
let scenario = scenarioFile.map { loadScenario($0, profile: profile) }
// Its status frames go out at the first tick, with everything else.
do { _ = try simulation.setDriveState(drive, at: .zero) } catch { fail("--\(error.parameter == "connector" ? "plug-in" : "drive"): \(error.reason)") }

let frames = VehicleFrames(profile: profile)
let commandIDs = Set(profile.bindings.values.compactMap { $0.command?.message }).compactMap { profile.database.message(named: $0)?.canID }
let port: SocketCANPort
do {
    port = try SocketCANPort(interface: interface, fd: profile.database.messages.contains(where: \.isFD), acceptedIDs: commandIDs)
} catch {
    fail("cannot open \(interface): \(error)", code: 1)
}
let node = SimulatedVehicleNode(simulation: simulation, port: port)
try? FileDescriptor.standardError.writeAll(
    "carplay-ecu: \(profile.displayName) on \(interface) (\(commandIDs.count) command messages, \(frames.statusMessages.count) status messages)\(faults.isEmpty ? "" : ", faults \(faultsText ?? "")")\n"
)
if busLoad {
    var load = BusLoad(profile: profile)
    var line = "carplay-ecu: bus load: \(load.messages.count) more messages of the DBC"
    if let bitrate {
        let planned = load.share(ofBitrate: bitrate)
        load = load.fitted(toBitrate: bitrate)
        let share = load.share(ofBitrate: bitrate)
        line += ", \(Int(load.framesPerSecond.rounded())) frames/s, \(Int((share * 100).rounded())) % of \(bitrate) bit/s"
        if share < planned, let guessed = load.messages.first(where: \.periodIsAssumed) {
            line += " (\(Int((planned * 100).rounded())) % at 100 ms: the messages without a cycle time go every \(guessed.period))"
        }
        if share > 1 { line += "; MORE than the bus carries: the DBC's and the profile's cycle times alone exceed it" }
    } else {
        line += ", \(Int(load.framesPerSecond.rounded())) frames/s"
    }
    try? FileDescriptor.standardError.writeAll(line + "\n")
    startBusLoad(load, port: port)
}

/// `--control PATH`: the simulator methods carplayd serves for its embedded vehicle, on a
/// socket of carplay-ecu's own, so a person or a test drives this car too.
func serveControl(path: String, users: [String], groups: [String]) -> (VarlinkServer, EventLoop) {
    var access = SimulatorAccess()
    for name in users {
        guard let uid = Accounts.userID(named: name) else { fail("--control-users: no user \(name)") }
        access.users.insert(uid)
    }
    for name in groups {
        guard let gid = Accounts.groupID(named: name) else { fail("--control-groups: no group \(name)") }
        access.groups.insert(gid)
    }
    do {
        let loop = try EventLoop()
        let service = SimulatorControlServer(service: SimulatorService(vehicle: node, profile: profile), access: access) { line in
            try? FileDescriptor.standardError.writeAll("carplay-ecu: \(line)\n")
        }
        let server = VarlinkServer(
            listener: try UnixSocket.listen(path: path, mode: 0o660), loop: loop,
            info: VarlinkServerInfo(
                vendor: "carplayd", product: "carplay-ecu", version: CarplaydVersion.current, url: "file:///usr/share/doc/carplayd/README.md"),
            interfaces: SimulatorControlServer.interfaces, service: service)
        try server.start()
        try? FileDescriptor.standardError.writeAll("carplay-ecu: io.carplayd.Simulator on \(path)\n")
        return (server, loop)
    } catch {
        fail("--control \(path): \(error)", code: 1)
    }
}

let signals = Signals.stream([Signals.terminate, Signals.interrupt, Signals.hangup])
let run = node.start()
let control = controlPath.map { serveControl(path: $0, users: controlUsers, groups: controlGroups) }
let scenarioTask = scenario.map { startScenario($0, node: node) }
let logger = Task {
    while !Task.isCancelled {
        try? await Task.sleep(for: .milliseconds(200))
        for entry in node.drainLog() {
            let line = entry.description
            if quiet, line.contains(" applied ") { continue }
            try? FileDescriptor.standardError.writeAll("carplay-ecu: \(line)\n")
        }
    }
}
for await signal in signals {
    if signal == Signals.hangup {
        try? FileDescriptor.standardError.writeAll("carplay-ecu: \(node.statistics())\n")
        continue
    }
    break
}
scenarioTask?.cancel()
run.cancel()
logger.cancel()
if let (server, loop) = control {
    server.closeAll()
    loop.shutdown()
    FileSystem.remove(controlPath!)
}
await port.close()
try? FileDescriptor.standardError.writeAll("carplay-ecu: stopped; \(node.statistics())\n")
exitProcess(0)
