import CarplayJSON
import Foundation
import LinuxSupport
import Synchronization
import Varlink
import VehicleKit

#if canImport(Glibc)
import Glibc
#endif

/// What one client measured.
struct ClientReport: Sendable {
    var latencies: [Int64] = []
    var firstFrames: [Int64] = []
    var confirms: [Int64] = []
    var confirmed = 0
    var failed = 0
    var failures: [String: Int] = [:]
    var firstStart: Int64 = .max
    var lastEnd: Int64 = 0
    var stateMismatches = 0
    /// Every intent completed, warm-up included (for CPU time per intent).
    var completed = 0
    var error: String?
}

/// One load run: the client threads, the optional Monitor thread, and the report.
final class LoadRun: Sendable {
    let options: Options
    let slots: [Slot]
    let clock = ContinuousClock()
    let origin: ContinuousClock.Instant
    let countMode: Bool
    let warmupNanos: Int64
    let windowEnd: Int64
    let remaining: Atomic<Int>
    let ready = Atomic<Int>(0)
    let go = Atomic<Bool>(false)
    let monitorStarted = Atomic<Bool>(false)
    let monitorCount = Atomic<Int>(0)
    let reports = Mutex<[Int: ClientReport]>([:])
    /// Properties set by more than one client: their reported state may already show a
    /// later client's value, so only unshared ones are checked against the reply's state.
    let shared: Set<PropertyKey>

    init(options: Options, slots: [Slot]) {
        self.options = options
        self.slots = slots
        origin = clock.now
        countMode = options.intents != nil
        warmupNanos = Int64((options.warmup ?? (options.intents != nil ? 0 : 1)) * 1e9)
        windowEnd = warmupNanos + Int64(options.seconds * 1e9)
        remaining = Atomic(options.intents ?? 0)
        shared = Set(Dictionary(grouping: slots, by: \.property).filter { $0.value.count > 1 }.keys)
    }

    func nanosSinceOrigin() -> Int64 {
        let elapsed = clock.now - origin
        return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
    }

    func runClient(_ index: Int) -> ClientReport {
        var report = ClientReport()
        let slot = slots[index]
        let connection: BenchConnection
        do {
            connection = try BenchConnection(path: options.socket)
        } catch {
            report.error = "connect: \(error)"
            ready.add(1, ordering: .sequentiallyConsistent)
            return report
        }
        ready.add(1, ordering: .sequentiallyConsistent)
        while !go.load(ordering: .acquiring) { sched_yield() }
        var turn = 0
        while true {
            if countMode, remaining.subtract(1, ordering: .relaxed).oldValue <= 0 { break }
            let start = nanosSinceOrigin()
            if !countMode, start >= windowEnd { break }
            let value = turn & 1
            turn += 1
            let wall = wallMicros()
            do {
                try connection.send(slot.calls[value])
                try connection.receive()
            } catch {
                report.error = "\(error)"
                break
            }
            let end = nanosSinceOrigin()
            report.completed += 1
            let facts = ReplyFacts.scan(connection.reply, commandID: slot.commandID)
            var confirmed = facts.code == "success" || (options.method == "Resolve" && facts.code == "ready")
            if options.verify {
                // The slow path: the whole reply through the JSON parser.
                if let reply = try? VarlinkReply(parsing: connection.reply) {
                    if reply.parameters["response"]?.objectValue?["code"]?.stringValue != "success" { confirmed = false }
                    if confirmed, !shared.contains(slot.property) {
                        let reported = reply.parameters["state"]?.objectValue?[slot.property.rawValue]
                        if reported.map({ !Workload.same(slot.values[value], $0) }) ?? true { report.stateMismatches += 1 }
                    }
                } else {
                    confirmed = false
                }
            }
            let measured = countMode ? start >= warmupNanos : (start >= warmupNanos && end <= windowEnd)
            guard measured else { continue }
            report.firstStart = min(report.firstStart, start)
            report.lastEnd = max(report.lastEnd, end)
            report.latencies.append(end - start)
            if confirmed {
                report.confirmed += 1
                if let command = facts.commandFrame {
                    report.firstFrames.append(command - wall)
                    if let last = facts.lastFrame { report.confirms.append(last - command) }
                }
            } else {
                report.failed += 1
                report.failures[facts.code, default: 0] += 1
            }
        }
        return report
    }

    /// The Monitor connection of --verify: counts changes of the properties the load sets.
    func monitor() {
        let keys = Set(slots.map(\.property.rawValue))
        do {
            let client = try VarlinkClient(path: options.socket)
            try client.send(VarlinkCall(method: "io.carplayd.Vehicle.Monitor", more: true))
            monitorStarted.store(true, ordering: .releasing)
            while true {
                let reply = try client.receive()
                guard case let .array(changed)? = reply.parameters["keys"] else { continue }
                monitorCount.add(changed.filter { $0.stringValue.map(keys.contains) ?? false }.count, ordering: .relaxed)
            }
        } catch {
            monitorStarted.store(true, ordering: .releasing)
        }
    }

    /// Runs the load; prints the report; returns the exit code.
    func main() -> Int32 {
        if options.verify {
            Thread.detachNewThread { [self] in monitor() }
            while !monitorStarted.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.001) }
            // The Monitor call is written; a GetState round trip after it, and a moment,
            // let the daemon subscribe before the load starts.
            _ = reachableState(options)
            Thread.sleep(forTimeInterval: 0.05)
        }
        let group = DispatchGroup()
        for index in 0..<options.clients {
            group.enter()
            let thread = Thread { [self] in
                let report = runClient(index)
                reports.withLock { $0[index] = report }
                group.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        while ready.load(ordering: .acquiring) < options.clients { sched_yield() }
        go.store(true, ordering: .releasing)
        group.wait()
        return report()
    }

    private func report() -> Int32 {
        let all = reports.withLock { $0 }.sorted { $0.key < $1.key }.map(\.value)
        let errors = all.compactMap(\.error)
        let latencies = all.flatMap(\.latencies).sorted()
        let firstFrames = all.flatMap(\.firstFrames).sorted()
        let confirms = all.flatMap(\.confirms).sorted()
        let confirmed = all.reduce(0) { $0 + $1.confirmed }
        let failed = all.reduce(0) { $0 + $1.failed }
        var failures: [String: Int] = [:]
        for report in all { failures.merge(report.failures, uniquingKeysWith: +) }
        let windowNanos: Int64
        if countMode {
            let first = all.map(\.firstStart).min() ?? 0
            let last = all.map(\.lastEnd).max() ?? 0
            windowNanos = max(1, last - first)
        } else {
            windowNanos = windowEnd - warmupNanos
        }
        let seconds = Double(windowNanos) / 1e9

        var verification: JSONValue = .null
        var verified = true
        if options.verify {
            // Wait for the Monitor stream to catch up with every confirmed change (with
            // --intents every completed intent is measured).
            let deadline = clock.now + .seconds(10)
            while monitorCount.load(ordering: .relaxed) < confirmed, clock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
            Thread.sleep(forTimeInterval: 0.2)  // changes beyond the expected ones would show now
            let seen = monitorCount.load(ordering: .relaxed)
            let mismatches = all.reduce(0) { $0 + $1.stateMismatches }
            verified = failed == 0 && errors.isEmpty && seen == confirmed && mismatches == 0 && confirmed > 0
            verification = .object([
                "monitored_changes": .integer(seen), "confirmed": .integer(confirmed), "state_mismatches": .integer(mismatches),
                "ok": .bool(verified),
            ])
        }

        let perMessage = Dictionary(grouping: slots, by: \.commandMessage).mapValues { JSONValue.integer($0.count) }
        let result: JSONValue = .object([
            "clients": .integer(options.clients),
            "method": .string(options.method),
            "intents": .integer(latencies.count),
            "completed": .integer(all.reduce(0) { $0 + $1.completed }),
            "confirmed": .integer(confirmed),
            "failed": .integer(failed),
            "failures": .object(failures.mapValues { .integer($0) }),
            "errors": .array(errors.map { .string($0) }),
            "seconds": .number((seconds * 1000).rounded() / 1000),
            "rate": .number((Double(confirmed) / seconds).rounded()),
            "latency_us": Self.summary(latencies, scale: 1000),
            "first_frame_us": Self.summary(firstFrames, scale: 1),
            "confirm_us": Self.summary(confirms, scale: 1),
            "clients_per_command_message": .object(perMessage),
            "verify": verification,
        ])
        print(result.serialized(sortedKeys: true))
        return errors.isEmpty && verified ? 0 : 1
    }

    /// Nearest-rank percentiles of sorted values, divided by `scale`.
    static func summary(_ sorted: [Int64], scale: Double) -> JSONValue {
        guard !sorted.isEmpty else { return .null }
        func rank(_ p: Double) -> Double { Double(sorted[max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1)]) / scale }
        let mean = Double(sorted.reduce(0, +)) / Double(sorted.count) / scale
        return .object([
            "p50": .number(rank(0.5)), "p99": .number(rank(0.99)), "max": .number(Double(sorted.last!) / scale),
            "min": .number(Double(sorted.first!) / scale), "mean": .number((mean * 10).rounded() / 10), "count": .integer(sorted.count),
        ])
    }
}
