import CANBus
import CANKit
import CarplayJSON
import Foundation
import Synchronization
import TestSupport
import Testing
import VehicleKit

@testable import VehicleSimulator

/// Scenario files (Scenario.swift): what they say, how their errors name the JSON path,
/// and when their events are due (ScenarioSchedule.swift); the runner on a node.
@Suite struct ScenarioTests {
    let sedan: VehicleProfile
    let suv: VehicleProfile

    init() throws {
        sedan = try ProfileFixture("sedan").load()
        suv = try ProfileFixture("suv").load()
    }

    static let commute = """
        {"seed": 1, "loop": false, "events": [
          {"at": 2.0, "set": {"climate.temperature.left": 19}},
          {"at": 5.0, "fault": {"kind": "silence", "message": "SeatStatus", "forMs": 1500}},
          {"at": 8.0, "set": {"lock.locked": true}},
          {"every": 10.0, "until": 35, "add": {"power.fuelPercent": -1}}
        ]}
        """

    func parse(_ text: String, profile: VehicleProfile? = nil) throws(JSONContentError) -> Scenario {
        try Scenario(parsing: text, source: "s.json", profile: profile ?? sedan)
    }

    func error(_ text: String, profile: VehicleProfile? = nil) -> String {
        do {
            _ = try parse(text, profile: profile)
            return "no error"
        } catch {
            return error.description
        }
    }

    @Test func parsesTheCommute() throws {
        let scenario = try parse(Self.commute)
        #expect(scenario.seed == 1 && !scenario.loop && scenario.duration == nil)
        #expect(scenario.events.count == 4)
        #expect(scenario.events[0].timing == .at(.seconds(2)))
        #expect(scenario.events[0].action == .set(["climate.temperature.left": .number(19)]))
        #expect(scenario.events[1].action == .fault(FaultRule(.silence, message: "SeatStatus"), lasting: .milliseconds(1500)))
        #expect(scenario.events[2].action == .set([.locked: .bool(true)]))
        #expect(scenario.events[3].timing == .every(.seconds(10), first: .seconds(10), until: .seconds(35)))
        #expect(scenario.events[3].action == .add([.fuelPercent: -1]))
        #expect(scenario.events[3].path == "events[3]")
    }

    @Test func errorsNameTheJSONPath() {
        #expect(
            error(#"{"events": [{"at": 1, "set": {"climate.temperature.left": "warm"}}]}"#)
                == #"s.json: events[0].set["climate.temperature.left"]: "warm" is not a valid value of climate.temperature.left"#)
        #expect(
            error(#"{"events": [{"at": 1, "set": {"lock.locked": 1}}]}"#)
                == #"s.json: events[0].set["lock.locked"]: 1 is not a valid value of lock.locked"#)
        #expect(
            error(#"{"events": [{"at": 1, "add": {"lock.locked": 1}}]}"#)
                == #"s.json: events[0].add["lock.locked"]: lock.locked is not a number: add moves numbers only (use set)"#)
        #expect(
            error(#"{"events": [{"at": 1}, {"every": 0, "set": {"lock.locked": true}}]}"#)
                == "s.json: events[0]: an event needs one action: set, add, fault, clearFaults, plugIn, drive")
        #expect(
            error(#"{"events": [{"at": 1, "set": {"lock.locked": true}}, {"every": 0, "set": {"lock.locked": true}}]}"#)
                == "s.json: events[1].every: expected seconds > 0, found 0.0")
        #expect(
            error(#"{"events": [{"at": 1, "set": {"lock.locked": true}, "drive": 30}]}"#)
                == "s.json: events[0].drive: an event has one action; this one has set and drive: write two events")
        #expect(error(#"{"loop": true, "events": []}"#) == "s.json: duration: a looping scenario needs a duration (seconds): the length of one pass")
        #expect(
            error(#"{"duration": 5, "events": [{"at": 6, "drive": 30}]}"#)
                == "s.json: events[0].at: at 6 s is not before the scenario's duration (5 s)")
        #expect(
            error(#"{"events": [{"at": 1, "fault": {"kind": "explode"}}]}"#)
                == #"s.json: events[0].fault.kind: unknown fault kind "explode" (drop, delay, reject, wrongValue, badCRC, repeatCounter, silence, busOff)"#)
        #expect(
            error(#"{"events": [{"at": 1, "fault": {"kind": "silence", "fromMs": 3}}]}"#)
                == "s.json: events[0].fault.fromMs: the event's time opens a scenario fault: give forMs for how long it lasts")
        #expect(
            error(#"{"events": [{"at": 1, "fault": {"kind": "drop", "message": "SeatStatus", "forMs": 1500}}]}"#)
                == #"s.json: events[0].fault.message: drop acts on received commands and SeatStatus is not a command message; to keep the vehicle's SeatStatus frames off the bus use "silence""#
        )
        #expect(
            error(#"{"events": [{"at": 1, "set": {"power.chargePercent": 50}}]}"#)
                == #"s.json: events[0].set["power.chargePercent"]: Sedan has no power.chargePercent"#.replacingSedan(sedan))
        #expect(error(#"{"events": [{"at": 1, "plugIn": "ccs2"}]}"#).hasPrefix("s.json: events[0].plugIn: "))
        #expect(error(#"{"events": [{"at": 1, "plugIn": "ccs2"}]}"#, profile: suv) == "no error")
        #expect(error(#"{"events": [{"every": 1, "jitter": 1, "drive": 3}]}"#) == "s.json: events[0].jitter: jitter must be shorter than the period (1 s)")
        #expect(error(#"{"events": [{"at": 1, "set": {"lock.locked": true}},]}"#).hasPrefix("s.json: not valid JSON: "))
        #expect(error(#"{"sead": 1, "events": []}"#).hasPrefix(#"s.json: sead: unknown key "sead" (did you mean "seed"?)"#))
    }

    func times(_ occurrences: [ScenarioSchedule.Occurrence]) -> [Double] {
        occurrences.map { FaultRule.milliseconds($0.time) / 1000 }
    }

    @Test func dueEventsInOrder() throws {
        let scenario = try parse(Self.commute)
        let all = ScenarioSchedule.occurrences(of: scenario, from: .zero, to: .seconds(100))
        #expect(times(all) == [2, 5, 8, 10, 20, 30])
        #expect(all.map(\.event) == [0, 1, 2, 3, 3, 3])
        var schedule = ScenarioSchedule(scenario)
        #expect(schedule.nextTime == .seconds(2))
        #expect(schedule.due(through: .seconds(1)).isEmpty)
        #expect(times(schedule.due(through: .seconds(8))) == [2, 5, 8])
        #expect(schedule.nextTime == .seconds(10))
        _ = schedule.due(through: .seconds(1000))
        #expect(schedule.nextTime == nil, "once: over after the last event")
    }

    @Test func loopRepeatsEachPass() throws {
        let scenario = try parse(
            #"{"loop": true, "duration": 10, "events": [{"at": 1, "drive": 30}, {"every": 4, "from": 0, "add": {"power.fuelPercent": -1}}]}"#)
        let all = ScenarioSchedule.occurrences(of: scenario, from: .zero, to: .seconds(25))
        #expect(times(all) == [0, 1, 4, 8, 10, 11, 14, 18, 20, 21, 24])
        #expect(all.map(\.pass) == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2])
        // Once with a duration: the same first pass, then over.
        let once = try parse(#"{"duration": 10, "events": [{"every": 4, "from": 0, "add": {"power.fuelPercent": -1}}]}"#)
        #expect(times(ScenarioSchedule.occurrences(of: once, from: .zero, to: .seconds(100))) == [0, 4, 8])
    }

    @Test func jitterIsSeededAndDeterministic() throws {
        let text = #"{"seed": 7, "events": [{"every": 1, "jitter": 0.5, "until": 20, "set": {"lock.locked": true}}, {"at": 3, "jitter": 2, "drive": 20}]}"#
        let first = ScenarioSchedule.occurrences(of: try parse(text), from: .zero, to: .seconds(30))
        let second = ScenarioSchedule.occurrences(of: try parse(text), from: .zero, to: .seconds(30))
        #expect(first == second)
        #expect(first.count == 20)
        #expect(
            first.allSatisfy { occurrence in
                let base: Duration = occurrence.event == 0 ? .seconds(1 + occurrence.number) : .seconds(3)
                return occurrence.time >= base && occurrence.time <= base + (occurrence.event == 0 ? .milliseconds(500) : .seconds(2))
            })
        #expect(Set(first.map(\.time)).count == 20, "jittered: no two the same")
        // However time is cut into calls, the same sequence.
        var schedule = ScenarioSchedule(try parse(text))
        var stepped: [ScenarioSchedule.Occurrence] = []
        var now = Duration.zero
        while now < .seconds(30) {
            now += .milliseconds(137)
            stepped += schedule.due(through: now)
        }
        #expect(stepped == first)
        // Another seed, other times.
        let other = ScenarioSchedule.occurrences(of: try parse(text.replacingOccurrences("\"seed\": 7", "\"seed\": 8")), from: .zero, to: .seconds(30))
        #expect(other.map(\.time) != first.map(\.time))
    }

    @Test func randomIsSplitMix64() {
        // The reference sequence of SplitMix64 seeded with 0.
        var random = ScenarioRandom(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect((0..<1000).allSatisfy { _ in (0..<1).contains(random.unit()) })
    }

    @Test func addClampsGauges() {
        var state = VehicleState()
        state[.fuelPercent] = .number(0.5)
        state[.minutesToFull] = .integer(3)
        state["climate.temperature.left"] = .number(21)
        let values = ScenarioRunner.adding([.fuelPercent: -1, .minutesToFull: -5, "climate.temperature.left": -2, .chargePercent: 1], to: state)
        #expect(values == [.fuelPercent: .number(0), .minutesToFull: .integer(0), "climate.temperature.left": .number(19)])
    }

    /// The runner on a node on the in-process bus: the events reach the vehicle's state,
    /// its status frames and its fault plan, in the simulation's time.
    @Test func runnerAppliesEventsOnTheNode() async throws {
        let scenario = try parse(
            #"""
            {"events": [
              {"at": 0.05, "set": {"climate.temperature.left": 19}},
              {"at": 0.1, "fault": {"kind": "silence", "message": "SeatStatus", "forMs": 1500}},
              {"at": 0.15, "add": {"power.fuelPercent": -2}}
            ]}
            """#)
        let bus = VirtualCANBus(interface: "vcan0")
        let listener = bus.makePort()
        let node = SimulatedVehicleNode(simulation: VehicleSimulation(profile: sedan), port: bus.makePort())
        let run = node.start()
        let lines = LineLog()
        await ScenarioRunner(scenario: scenario, node: node) { lines.append($0) }.run()
        let state = node.state()
        #expect(state["climate.temperature.left"] == .number(19))
        #expect(state[.fuelPercent] == .number(60))
        let rules = node.faults().rules
        #expect(rules.count == 1)
        if let rule = rules.first, let from = rule.from, let until = rule.until {
            #expect(rule.kind == .silence && rule.message == "SeatStatus")
            #expect(until - from == .milliseconds(1500))
            #expect(from >= .milliseconds(100) && from < .seconds(2), "in the simulation's time")
        }
        #expect(lines.lines.count == 4 && lines.lines.last == "scenario finished")
        run.cancel()
        listener.close()
    }
}

extension ScenarioTests {
    @Test func afterCommandEventsParseAndStayOffTheClock() throws {
        let scenario = try parse(
            #"{"events": [{"afterCommand": "ClimateCommand", "delay": 0.5, "set": {"climate.temperature.left": 19}}, {"at": 1, "set": {"lock.locked": true}}]}"#
        )
        #expect(scenario.events[0].timing == .afterCommand("ClimateCommand", delay: .milliseconds(500)))
        #expect(try parse(#"{"events": [{"afterCommand": "SeatCommand", "drive": 3}]}"#).events[0].timing == .afterCommand("SeatCommand", delay: .zero))
        #expect(times(ScenarioSchedule.occurrences(of: scenario, from: .zero, to: .seconds(100))) == [1], "only the timed event is scheduled")
        #expect(
            error(#"{"events": [{"afterCommand": "ClimateStatus", "set": {"lock.locked": true}}]}"#)
                == "s.json: events[0].afterCommand: ClimateStatus is not a command message of \(sedan.displayName) (its command messages: AudioCommand, BodyCommand, ClimateCommand, SeatCommand)"
        )
        #expect(
            error(#"{"events": [{"afterCommand": "ClimateCommand", "at": 2, "set": {"lock.locked": true}}]}"#)
                == #"s.json: events[0].at: "at" does not go with "afterCommand" (its time is the command's, plus "delay" and "jitter")"#)
        #expect(error(#"{"events": [{"at": 2, "delay": 1, "set": {"lock.locked": true}}]}"#) == #"s.json: events[0].delay: "delay" goes with "afterCommand""#)
        #expect(
            error(#"{"events": [{"afterCommand": "ClimateCommand", "delay": -1, "set": {"lock.locked": true}}]}"#)
                == "s.json: events[0].delay: expected seconds ≥ 0, found -1.0")
    }

    /// The driver turns the knob back after the head unit's command: the event waits for
    /// a command the vehicle applied, then its delay (and, jittered, its seeded reaction time).
    @Test(arguments: [false, true])
    func afterCommandReactsToAppliedCommands(jittered: Bool) async throws {
        let jitter = jittered ? #", "jitter": 0.8"# : ""
        let scenario = try parse(
            #"{"seed": 5, "duration": 30, "events": [{"afterCommand": "ClimateCommand", "delay": 0.1"# + jitter
                + #", "set": {"climate.temperature.left": 19}}]}"#)
        let lateness = (0..<2).map { Duration.milliseconds(100) + ScenarioSchedule.jitter(scenario, event: 0, pass: 0, number: $0) }
        if jittered { #expect(lateness[0] != lateness[1] && lateness.allSatisfy { $0 < .milliseconds(900) }, "\(lateness)") }
        let bus = VirtualCANBus(interface: "vcan0")
        let headUnit = bus.makePort()
        let node = SimulatedVehicleNode(simulation: VehicleSimulation(profile: sedan), port: bus.makePort())
        let run = node.start()
        let lines = LineLog()
        let runner = ScenarioRunner(scenario: scenario, node: node) { lines.append($0) }
        let playing = runner.start()
        try await Task.sleep(for: .milliseconds(100))  // subscribed
        let frames = VehicleFrames(profile: sedan)
        var counters: [String: UInt8] = [:]  // the head unit's alive counters
        for round in 0..<2 {
            let command = try frames.commandFrames(for: ["climate.temperature.left": .number(24)], context: node.state(), counters: &counters)
            let sent = ContinuousClock.now
            for frame in command { headUnit.send(frame) }
            #expect(node.state()["climate.temperature.left"] == .number(24), "the vehicle took the command")
            let deadline = ContinuousClock.now + .seconds(10)
            while node.state()["climate.temperature.left"] != .number(19), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(node.state()["climate.temperature.left"] == .number(19), "round \(round): the driver set it back")
            #expect(ContinuousClock.now - sent >= lateness[round], "round \(round): not before its delay and jitter (\(lateness[round]))")
        }
        #expect(lines.lines.filter { $0.contains("set climate.temperature.left=19") }.count == 2, "\(lines.lines)")
        playing.cancel()
        await playing.value
        #expect(lines.lines.last == "scenario finished")
        run.cancel()
        headUnit.close()
    }
}

final class LineLog: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}

extension String {
    fileprivate func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }

    fileprivate func replacingSedan(_ profile: VehicleProfile) -> String { replacingOccurrences("Sedan", profile.displayName) }
}

/// The examples of docs/examples are valid scenarios of the cars they are written for.
@Suite struct ScenarioExampleTests {
    @Test(arguments: [
        ("scenario-commute.json", "sedan"), ("scenario-loop.json", "sedan"), ("scenario-charging.json", "suv"), ("scenario-driver.json", "sedan"),
    ])
    func examplesParse(file: String, car: String) throws {
        let profile = try ProfileFixture(car).load()
        let path = TestPaths.repository("docs/examples/" + file).path
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let scenario = try Scenario(parsing: String(decoding: bytes, as: UTF8.self), source: file, profile: profile)
        #expect(!scenario.events.isEmpty)
        // Something happens: on the clock, or after a command.
        let reacts = scenario.events.contains { if case .afterCommand = $0.timing { true } else { false } }
        #expect(reacts || !ScenarioSchedule.occurrences(of: scenario, from: .zero, to: .seconds(60)).isEmpty)
    }
}
