// frames-bench: the CPU cost of one intent's frame path, without bus, actors or Varlink.
//
// Per intent, what carplayd does on the embedded default (VehicleController and the
// simulated vehicle), in one thread:
//   1. controller: VehicleFrames.commandFrames(for:context:counters:) and reportedValue
//      of each target;
//   2. vehicle: VehicleSimulation.receive of each command frame (decodeFromHeadUnit,
//      validate, apply, acknowledgementFrame, statusFrame);
//   3. controller: decodeFromVehicle of every frame the vehicle sent, merging the
//      status values into its state; the intent counts when every target shows.
// The workload is Benchmarks/intents': each intent changes one property of the sedan
// (temperatures, fan speed, A/C, auto, recirculation, defrosters, seat heating, FM
// tuning, audio source) between two values.
//
// Usage: frames-bench [--profile DIR] [--intents N] [--runs R] [--json]
// Prints ns per intent (best and median of R runs). Build with -c release
// (Benchmarks/frames/run.sh does).

import CANKit
import LinuxSupport
import VehicleKit
import VehicleSimulator

#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    try? FileDescriptor.standardError.writeAll("frames-bench: \(message)\n")
    exit(2)
}

func value(_ text: String?, _ option: String) -> Int {
    guard let text, let number = Int(text), number > 0 else { fail("\(option) needs a positive number") }
    return number
}

var profileDirectory = "VehicleProfiles/sedan"
var intentCount = 200_000
var runs = 5
var json = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--profile":
        guard let directory = arguments.next() else { fail("--profile needs a directory") }
        profileDirectory = directory
    case "--intents": intentCount = value(arguments.next(), "--intents")
    case "--runs": runs = value(arguments.next(), "--runs")
    case "--json": json = true
    default: fail("unknown argument \(argument) (usage: frames-bench [--profile DIR] [--intents N] [--runs R] [--json])")
    }
}

let profile: VehicleProfile
do {
    profile = try ProfileLoader.load(directory: profileDirectory) { try? FileDescriptor.readFile(atPath: $0) }
} catch {
    fail("cannot load the profile \(profileDirectory): \(error)")
}

/// Each workload item: two target sets the intent alternates between.
func workload(_ profile: VehicleProfile) -> [[[PropertyKey: PropertyValue]]] {
    var items: [[[PropertyKey: PropertyValue]]] = []
    func add(_ key: PropertyKey, _ a: PropertyValue, _ b: PropertyValue) {
        guard profile.bindings[key]?.command != nil else { return }
        items.append([[key: a], [key: b]])
    }
    if let climate = profile.climate {
        if let celsius = climate.celsius {
            for zone in climate.zones { add(.temperature(zone: zone.id), .number(celsius.snap(19.5)), .number(celsius.snap(23))) }
        }
        if climate.fanSpeedLevels > 1 { add(.fanSpeed, .integer(1), .integer(min(5, climate.fanSpeedLevels))) }
        add(.airConditioner, .bool(false), .bool(true))
        add(.autoMode, .bool(true), .bool(false))
        add(.airCirculation, .enumeration("recirculateAir"), .enumeration("freshAir"))
    }
    for defroster in profile.defrosters { add(.defroster(defroster), .bool(true), .bool(false)) }
    for seat in profile.seats where seat.heating > 0 { add(.seat(seat.seat, .heating), .integer(1), .integer(seat.heating)) }
    if let radio = profile.radio, let fm = radio.band(.FM), profile.bindings[.radioFrequency]?.command != nil {
        var tuning: [PropertyKey: PropertyValue] = [.radioBand: .enumeration("FM")]
        if profile.audioSources.contains(.sourceRadio) { tuning[.audioSource] = .enumeration(CarAudioSource.sourceRadio.rawValue) }
        var a = tuning
        var b = tuning
        a[.radioFrequency] = .number(fm.range.snap(fm.range.min + 10 * fm.range.step))
        b[.radioFrequency] = .number(fm.range.snap(fm.range.min + 20 * fm.range.step))
        items.append([a, b])
    }
    if profile.audioSources.count > 1 {
        add(.audioSource, .enumeration(profile.audioSources[1].rawValue), .enumeration(profile.audioSources[0].rawValue))
    }
    return items
}

let items = workload(profile)
guard !items.isEmpty else { fail("the profile has no commandable property") }

/// One run: `count` intents; returns nanoseconds elapsed.
func run(_ count: Int) -> Int64 {
    let frames = VehicleFrames(profile: profile)
    var simulation = VehicleSimulation(profile: profile)
    var state = simulation.state
    var counters: [String: UInt8] = [:]
    var checkers: [String: FrameChecker] = [:]
    var now = Duration.zero
    var acknowledgements = 0
    let clock = ContinuousClock()
    let start = clock.now
    for index in 0..<count {
        let item = items[index % items.count]
        let targets = item[(index / items.count) % 2]
        let commands: [CANFrame]
        do {
            commands = try frames.commandFrames(for: targets, context: state, counters: &counters)
        } catch {
            fail("intent \(index): commandFrames: \(error)")
        }
        var context = state
        for (key, value) in targets { context[key] = value }
        var expected: [PropertyKey: PropertyValue] = [:]
        for (key, value) in targets { expected[key] = frames.reportedValue(value, for: key, context: context) ?? value }
        now += .milliseconds(1)
        for command in commands {
            for sent in simulation.receive(command, at: now) {
                switch frames.decodeFromVehicle(sent, context: state, checkers: &checkers) {
                case let .status(_, values, _):
                    for (key, value) in values { state[key] = value }
                case let .acknowledgement(ack):
                    guard ack.accepted else { fail("intent \(index): \(targets) rejected: \(ack.result)") }
                    acknowledgements += 1
                case let .e2eError(message, status):
                    fail("intent \(index): E2E error on \(message): \(status)")
                case let .undecodable(message):
                    fail("intent \(index): \(message) undecodable")
                case .unrelated:
                    break
                }
            }
        }
        for (key, want) in expected where state[key] != want {
            fail("intent \(index): \(key) reads \(state[key].map(String.init(describing:)) ?? "nothing"), expected \(want)")
        }
    }
    let elapsed = clock.now - start
    if profile.acknowledgement != nil, acknowledgements == 0 { fail("no acknowledgement received") }
    return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
}

_ = run(min(intentCount, 2000))  // warm-up
var perIntent: [Double] = []
for _ in 0..<max(1, runs) {
    perIntent.append(Double(run(intentCount)) / Double(intentCount))
}
perIntent.sort()
let best = perIntent[0]
let median = perIntent[perIntent.count / 2]
func format(_ value: Double) -> String { String(Int(value.rounded())) }
if json {
    print(
        "{\"profile\": \"\(profile.identifier)\", \"intents\": \(intentCount), \"runs\": \(perIntent.count), \"ns_per_intent_best\": \(format(best)), \"ns_per_intent_median\": \(format(median)), \"intents_per_s_best\": \(format(1e9 / best))}"
    )
} else {
    print(
        "frames-bench \(profile.identifier): \(intentCount) intents x \(perIntent.count) runs: best \(format(best)) ns/intent (\(format(1e9 / best)) intents/s on one core), median \(format(median)) ns/intent"
    )
}
