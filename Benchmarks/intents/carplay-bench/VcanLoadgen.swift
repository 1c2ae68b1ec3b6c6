import CarplayJSON
import Foundation
import LinuxSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `carplay-bench --socket PATH --clients N --intents M --json`: the load generator
/// contract of the vcan bench (Benchmarks/vcan/README.md), with the workload of
/// Benchmarks/vcan/workload.py: client i toggles the property of slot i mod 8 between
/// two values, after setting it to the first value untimed, so that every timed intent
/// is a confirmed change and concurrent clients never conflict (up to 8 clients).
/// Sends `io.carplayd.Vehicle.Perform`; a success is a response code `success`.
enum VcanLoadgen {
    /// (property, intent A, intent B): the slots of workload.py, in its order.
    static let slots: [(property: String, a: JSONValue, b: JSONValue)] = {
        func climate(_ parameters: JSONValue) -> JSONValue { ["intent": "SetClimateSettingsInCar", "parameters": parameters] }
        func temperature(_ celsius: Double, _ zone: String) -> JSONValue {
            climate(["temperature": ["value": .number(celsius), "unit": "celsius"], "climateZone": .string(zone)])
        }
        func defroster(_ on: Bool, _ which: String) -> JSONValue {
            ["intent": "SetDefrosterSettingsInCar", "parameters": ["enable": .bool(on), "defroster": .string(which)]]
        }
        func seat(_ level: Int, _ seat: String) -> JSONValue {
            ["intent": "SetSeatSettingsInCar", "parameters": ["enableHeating": true, "seat": .string(seat), "level": .integer(level)]]
        }
        return [
            ("climate.temperature.left", temperature(20.0, "frontLeft"), temperature(22.5, "frontLeft")),
            ("climate.temperature.right", temperature(20.0, "frontRight"), temperature(22.5, "frontRight")),
            ("defroster.front", defroster(true, "front"), defroster(false, "front")),
            ("defroster.rear", defroster(true, "rear"), defroster(false, "rear")),
            ("seat.frontLeft.heating", seat(1, "frontLeft"), seat(3, "frontLeft")),
            ("seat.frontRight.heating", seat(1, "frontRight"), seat(3, "frontRight")),
            ("climate.airConditioner", climate(["enableAirConditioner": true]), climate(["enableAirConditioner": false])),
            ("climate.airCirculation", climate(["airCirculationMode": "recirculateAir"]), climate(["airCirculationMode": "freshAir"])),
        ]
    }()

    static func call(_ intent: JSONValue) -> [UInt8] {
        let call: JSONValue = ["method": "io.carplayd.Vehicle.Perform", "parameters": intent]
        return Array(call.serialized(sortedKeys: true).utf8) + [0]
    }

    struct Outcome: Sendable {
        var latencies: [Int64] = []
        var failures = 0
        var errors: [String] = []
        var start: Int64 = 0
        var end: Int64 = 0
        var error: String?
    }

    /// Whether the arguments ask for this mode (`--json`).
    static func wanted(_ arguments: [String]) -> Bool { arguments.contains("--json") }

    static func printJSON(_ object: [String: JSONValue]) {
        print(JSONValue.object(object).serialized(sortedKeys: true))
    }

    static func main(_ arguments: [String]) -> Int32 {
        var socket = ""
        var clients = 1
        var intents = 1000
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            func value() -> String? {
                index += 1
                return index < arguments.count ? arguments[index] : nil
            }
            switch argument {
            case "--socket": socket = value() ?? ""
            case "--clients": clients = value().flatMap { Int($0) } ?? 0
            case "--intents": intents = value().flatMap { Int($0) } ?? 0
            case "--json": break
            default:
                printJSON(["error": .string("unknown argument \"\(argument)\" (the vcan contract: --socket PATH --clients N --intents M --json)")])
                return 1
            }
            index += 1
        }
        guard !socket.isEmpty, clients >= 1, intents >= clients else {
            printJSON(["error": "need --socket PATH, --clients N >= 1 and --intents M >= N"])
            return 1
        }
        let clock = ContinuousClock()
        let origin = clock.now
        @Sendable func nanos() -> Int64 {
            let elapsed = clock.now - origin
            return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        }
        let shared = Shared()
        let path = socket
        var threads: [Thread] = []
        for client in 0..<clients {
            let count = intents / clients + (client < intents % clients ? 1 : 0)
            let slot = slots[client % slots.count]
            let calls = [call(slot.a), call(slot.b)]
            let thread = Thread {
                var outcome = Outcome()
                defer {
                    shared.outcomes.withLock { $0[client] = outcome }
                    shared.done.signal()
                }
                let connection: BenchConnection
                do {
                    connection = try BenchConnection(path: path)
                    // The first value, untimed: from here on every intent is a change.
                    try connection.send(calls[0])
                    try connection.receive()
                } catch {
                    outcome.error = "client \(client): \(error)"
                    shared.ready.signal()
                    return
                }
                // Blocks (no spinning: the client's CPU time is part of the figures).
                shared.ready.signal()
                shared.go.wait()
                outcome.start = nanos()
                outcome.latencies.reserveCapacity(count)
                for turn in 0..<count {
                    let started = nanos()
                    do {
                        try connection.send(calls[(turn + 1) & 1])
                        try connection.receive()
                    } catch {
                        outcome.error = "client \(client): \(error)"
                        break
                    }
                    let ended = nanos()
                    let code = ReplyFacts.scan(connection.reply, commandID: 0).code
                    if code == "success" {
                        outcome.latencies.append(ended - started)
                    } else {
                        outcome.failures += 1
                        if outcome.errors.count < 3 { outcome.errors.append("\(slot.property): \(code)") }
                    }
                }
                outcome.end = nanos()
            }
            thread.start()
            threads.append(thread)
        }
        for _ in 0..<clients { shared.ready.wait() }
        // CPU time from the start of the timed intents (the untimed first ones excluded).
        let cpuBefore = cpuMicros()
        for _ in 0..<clients { shared.go.signal() }
        for _ in 0..<clients { shared.done.wait() }
        let cpu = cpuMicros() - cpuBefore
        let all = shared.outcomes.withLock { $0 }.sorted { $0.key < $1.key }.map(\.value)
        let broken = all.compactMap(\.error)
        guard broken.isEmpty else {
            printJSON(["error": .string(broken.joined(separator: "; "))])
            return 1
        }
        let latencies = all.flatMap(\.latencies).sorted()
        let failures = all.reduce(0) { $0 + $1.failures }
        let wall = Double((all.map(\.end).max() ?? 0) - (all.map(\.start).min() ?? 0)) / 1e9
        func percentile(_ fraction: Double) -> JSONValue {
            guard !latencies.isEmpty else { return .null }
            // Nearest rank, as workload.percentile.
            let rank = max(1, (Int((fraction * 1000).rounded()) * latencies.count + 999) / 1000)
            return .number(rounded(Double(latencies[min(rank, latencies.count) - 1]) / 1000, 1))
        }
        let total = latencies.count + failures
        printJSON([
            "intents": .integer(latencies.count),
            "failures": .integer(failures),
            "seconds": .number(rounded(wall, 6)),
            "rate": wall > 0 ? .number(rounded(Double(latencies.count) / wall, 3)) : .null,
            "p50_us": percentile(0.50),
            "p99_us": percentile(0.99),
            "max_us": latencies.last.map { .number(rounded(Double($0) / 1000, 1)) } ?? .null,
            "clients": .integer(clients),
            "loadgen": "carplay-bench",
            "client_cpu_us_per_intent": total > 0 ? .number(rounded(Double(cpu) / Double(total), 1)) : .null,
            "errors": .array(all.flatMap(\.errors).prefix(5).map { .string($0) }),
        ])
        return failures == 0 ? 0 : 2
    }

    /// What the client threads share with the main thread.
    final class Shared: Sendable {
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let outcomes = Mutex<[Int: Outcome]>([:])
    }

    static func rounded(_ value: Double, _ digits: Int) -> Double {
        let scale = pow(10, Double(digits))
        return (value * scale).rounded() / scale
    }

    /// This process's user + system CPU time in microseconds.
    static func cpuMicros() -> Int64 {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Int64(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + Int64(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
    }
}
