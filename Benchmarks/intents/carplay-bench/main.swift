import CarplayJSON
import Foundation
import LinuxSupport
import Synchronization
import Varlink
import VehicleKit

#if canImport(Glibc)
import Glibc
#endif

// carplay-bench: a load generator for a running carplayd. N client threads, one
// Varlink connection each, send intents that each change the vehicle's state (every
// client alternates between two values of a property no other client sets to those
// values), and measure confirmed intents per second and latencies. It prints one JSON
// object on stdout; Benchmarks/intents/bench.py runs carplayd and this tool and
// writes docs/BENCHMARKS.md.

let usage = """
    usage: carplay-bench --socket PATH --profile DIR [options]

      --socket PATH       carplayd's Varlink socket
      --profile DIR       the vehicle profile carplayd runs (to pick properties, values, frame IDs)
      --clients N         concurrent clients, one connection and thread each (default 8)
      --seconds S         measure for S seconds (default 5) ...
      --intents N         ... or until N intents completed in total (overrides --seconds)
      --warmup S          seconds of load before measuring (default 1; 0 with --intents)
      --method M          Handle (default) or Perform; Resolve measures the floor of the
                          Varlink hop and the resolution alone (no CAN: counts ready replies)
      --verify            parse every reply fully, check the reported state, and count the
                          vehicle's state changes on a Monitor connection; exit 1 on any
                          unconfirmed intent or a count that does not match
      --ready-timeout S   wait up to S seconds for the vehicle to be reachable (default 10)

    carplay-bench --socket PATH --clients N --intents M --json
                          the vcan bench's load generator contract (Benchmarks/vcan/README.md):
                          the sedan workload of Benchmarks/vcan/workload.py, Perform calls

    Output: one JSON object: clients, intents, confirmed, failed, seconds, rate (confirmed
    intents/s), latency_us / first_frame_us / confirm_us ({p50, p99, max, mean}), failures.
    """

struct Options: Sendable {
    var socket = ""
    var profile = ""
    var clients = 8
    var seconds = 5.0
    var intents: Int?
    var warmup: Double?
    var method = "Handle"
    var verify = false
    var readyTimeout = 10.0
}

func fail(_ message: String, code: Int32 = 2) -> Never {
    try? FileDescriptor.standardError.writeAll("carplay-bench: \(message)\n")
    exit(code)
}

func parseOptions(_ arguments: [String]) -> Options {
    var options = Options()
    var index = 0
    func value(_ name: String) -> String {
        index += 1
        guard index < arguments.count else { fail("\(name) needs a value\n\n\(usage)") }
        return arguments[index]
    }
    func number(_ name: String) -> Double {
        let text = value(name)
        guard let number = Double(text), number >= 0 else { fail("\(name): expected a number >= 0, found \"\(text)\"") }
        return number
    }
    while index < arguments.count {
        let argument = arguments[index]
        switch argument {
        case "--socket": options.socket = value(argument)
        case "--profile": options.profile = value(argument)
        case "--clients":
            let count = Int(number(argument))
            guard count >= 1 else { fail("--clients: at least 1") }
            options.clients = count
        case "--seconds": options.seconds = number(argument)
        case "--intents": options.intents = Int(number(argument))
        case "--warmup": options.warmup = number(argument)
        case "--method":
            options.method = value(argument)
            guard ["Handle", "Perform", "Resolve"].contains(options.method) else { fail("--method: Handle, Perform or Resolve, found \"\(options.method)\"") }
        case "--verify": options.verify = true
        case "--ready-timeout": options.readyTimeout = number(argument)
        case "-h", "--help":
            print(usage)
            exit(0)
        default: fail("unknown argument \"\(argument)\"\n\n\(usage)")
        }
        index += 1
    }
    if options.socket.isEmpty { fail("--socket is required\n\n\(usage)") }
    if options.profile.isEmpty { fail("--profile is required\n\n\(usage)") }
    return options
}

if VcanLoadgen.wanted(Array(CommandLine.arguments.dropFirst())) {
    exit(VcanLoadgen.main(Array(CommandLine.arguments.dropFirst())))
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))

let profile: VehicleProfile
do {
    profile = try ProfileLoader.load(directory: options.profile) { try? FileDescriptor.readFile(atPath: $0) }
} catch {
    fail("--profile \(options.profile): \(error)")
}

/// The vehicle's state once it is reachable.
func reachableState(_ options: Options) -> [String: JSONValue] {
    let clock = ContinuousClock()
    let deadline = clock.now + .milliseconds(Int(options.readyTimeout * 1000))
    var last = "no answer"
    while clock.now < deadline {
        do {
            let client = try VarlinkClient(path: options.socket)
            let reply = try client.call("io.carplayd.Vehicle.GetState")
            if case .bool(true)? = reply["reachable"], case let .object(state)? = reply["state"] { return state }
            last = "the vehicle is not reachable yet"
        } catch {
            last = "\(error)"
        }
        Thread.sleep(forTimeInterval: 0.02)
    }
    fail("carplayd at \(options.socket) not ready after \(options.readyTimeout) s: \(last)", code: 1)
}

let slots: [Slot]
do {
    slots = try Workload.slots(clients: options.clients, profile: profile, state: reachableState(options), method: options.method)
} catch {
    fail("\(error)")
}

let run = LoadRun(options: options, slots: slots)
exit(run.main())
