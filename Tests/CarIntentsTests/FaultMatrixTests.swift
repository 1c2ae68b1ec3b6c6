import CANBus
import CANKit
import Foundation
import Synchronization
import TestSupport
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents

// Every fault of the simulated vehicle's fault plan, alone and mixed at random, through
// the real IntentEngine / VehicleController and SimulatedVehicleNode on a VirtualCANBus.
// Invariants checked after every intent:
//   - the response is success only when the vehicle holds the value (and its status
//     frames showed it); otherwise a failure whose reason names the fault;
//   - the intent ended within (at most two tries of) its timeout plus a generous slack;
//   - nothing is left pending (no controller waiter, no queued handle);
//   - once the fault is cleared, the controller's state converges to the vehicle's.

/// A value behind a lock, shareable between tasks (a class: `Mutex` itself cannot be copied).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout sending Value) throws -> sending R) rethrows -> R { try mutex.withLock(body) }
}

/// A port whose sends can be made to fail (a transmit queue that stays full) in process.
struct FlakyPort: CANPort {
    let inner: any CANPort
    let failing = Locked<CANBusError?>(nil)
    let refused = Locked(0)
    var interface: String { inner.interface }

    @discardableResult
    func send(_ frame: CANFrame) -> SendAttempt {
        if let error = failing.withLock({ $0 }) {
            refused.withLock { $0 += 1 }
            return .failed(error)
        }
        return inner.send(frame)
    }

    func startReceiving(_ receiver: CANReceiver) { inner.startReceiving(receiver) }

    func close() async { await inner.close() }

    /// Bus-off while its sends fail with `busOff` (as a SocketCANPort's do).
    func health() -> BusHealth {
        var health = inner.health()
        if case .busOff = failing.withLock({ $0 }) { health.state = .busOff }
        return health
    }
}

/// Every value each property took in the head unit's live state (from trusted status frames).
final class StateHistory: Sendable {
    private let seen = Locked<[PropertyKey: [PropertyValue]]>([:])
    private let task: Task<Void, Never>

    init(controller: VehicleController, initial: VehicleState) async {
        let stream = controller.events()
        seen.withLock { seen in for key in initial.keys { seen[key] = [initial[key]!] } }
        let seen = self.seen
        task = Task {
            for await case let .changed(change) in stream {
                seen.withLock { seen in for key in change.keys { seen[key, default: []].append(change.state[key]!) } }
            }
        }
    }

    func values(_ key: PropertyKey) -> [PropertyValue] { seen.withLock { $0[key] ?? [] } }

    func showed(_ key: PropertyKey, _ value: PropertyValue) -> Bool {
        values(key).contains { HeadUnit.matches($0, value) }
    }

    /// `showed`, waiting for the task that reads the events: the controller tells its
    /// observers before the intent's reply, but this task may run after the reply is read.
    func eventuallyShowed(_ key: PropertyKey, _ value: PropertyValue) async -> Bool {
        await eventuallyTrue(seconds: 5) { showed(key, value) }
    }

    deinit { task.cancel() }
}

/// One head unit and one simulated vehicle on a virtual bus, with a flaky head-unit port.
struct FaultRig: Stoppable {
    let rig: Rig
    let timeout: Duration
    var session: VehicleSession { rig.session }
    var time: VirtualTime { rig.time }
    var engine: IntentEngine { session.engine }
    var controller: VehicleController { session.controller }
    var vehicle: SimulatedVehicleNode { rig.vehicle }
    var port: FlakyPort { session.port as! FlakyPort }
    var bus: VirtualCANBus { session.virtualBus! }

    static func start(_ profileName: String = "sedan", timeout: Duration) async throws -> FaultRig {
        var profile = try ShippedProfiles.load(profileName)
        profile.policies.confirmationTimeout = timeout
        return FaultRig(rig: try await Rig.start(profile: profile, headUnitPort: { FlakyPort(inner: $0) }), timeout: timeout)
    }

    func stop() async { await session.stop() }

    /// Performs and checks the bound, in virtual time: at most two tries (the second only
    /// while the vehicle never acknowledged anything) and the pacing of held frames.
    func perform(_ json: String) async throws -> IntentOutcome {
        let start = time.clock.elapsed
        let result = try await rig.perform(json)
        let elapsed = time.clock.elapsed - start
        #expect(elapsed <= timeout * 2 + .seconds(1), "\(json) ended after \(elapsed)")
        #expect(controller.pendingCommands == 0, "no command left waiting after \(json)")
        #expect(engine.handlesInFlight == 0, "no handle left queued after \(json)")
        return result
    }

    /// The controller's live state agrees with what the vehicle holds (every property the
    /// vehicle reports, except those that drift by physics).
    func disagreements() async -> [String] {
        let vehicleState = vehicle.state()
        let live = controller.currentState
        var problems: [String] = []
        for key in vehicleState.keys where !key.rawValue.hasPrefix("climate.cabinTemperature") && !key.rawValue.hasPrefix("power.") {
            guard engine.profile.bindings[key] != nil else { continue }
            guard let seen = live[key] else {
                problems.append("\(key): vehicle \(vehicleState[key]!), head unit has none")
                continue
            }
            if !HeadUnit.matches(seen, vehicleState[key]!) { problems.append("\(key): vehicle \(vehicleState[key]!), head unit \(seen)") }
        }
        return problems
    }

    /// Moves time on until the controller has converged on the vehicle's state and the
    /// vehicle is reachable again (20 s of virtual time at most); records an issue otherwise.
    func expectConvergence(_ context: String) async {
        let controller = controller
        let reachable = try? await time.run { await controller.waitUntilReachable(timeout: .seconds(20)) }
        #expect(reachable == true, "\(context): the vehicle is reachable again once the fault cleared")
        let converged = await time.until(limit: .seconds(20)) { await disagreements().isEmpty }
        let problems = await disagreements()
        #expect(converged, "\(context): state did not converge: \(problems)")
    }
}

/// The intents the matrix drives, each setting one property to a value it does not hold.
enum FaultIntent: CaseIterable {
    case temperature, seatHeating, rearDefroster, radioFrequency

    var key: PropertyKey {
        switch self {
        case .temperature: .temperature(zone: "left")
        case .seatHeating: .seat(.frontLeft, .heating)
        case .rearDefroster: .defroster(.rear)
        case .radioFrequency: .radioFrequency
        }
    }

    var commandMessage: String {
        switch self {
        case .temperature, .rearDefroster: "ClimateCommand"
        case .seatHeating: "SeatCommand"
        case .radioFrequency: "AudioCommand"
        }
    }

    var statusMessage: String {
        switch self {
        case .temperature, .rearDefroster: "ClimateStatus"
        case .seatHeating: "SeatStatus"
        case .radioFrequency: "AudioStatus"
        }
    }

    /// A target other than `current`, and the intent that asks for it (sedan).
    func target(current: PropertyValue?, using generator: inout some RandomNumberGenerator) -> (PropertyValue, String) {
        switch self {
        case .temperature:
            var value: Double
            repeat { value = 16 + Double(Int.random(in: 0...24, using: &generator)) * 0.5 } while current.map { HeadUnit.matches($0, .number(value)) } ?? false
            return (
                .number(value),
                #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":\#(value),"unit":"celsius"},"climateZone":"driver"}}"#
            )
        case .seatHeating:
            var level: Int
            repeat { level = Int.random(in: 1...3, using: &generator) } while current == .integer(level)
            return (.integer(level), #"{"intent":"SetSeatSettingsInCar","parameters":{"enableHeating":true,"seat":"driver","level":\#(level)}}"#)
        case .rearDefroster:
            let on = current != .bool(true)
            return (.bool(on), #"{"intent":"SetDefrosterSettingsInCar","parameters":{"enable":\#(on),"defroster":"rear"}}"#)
        case .radioFrequency:
            var tenths: Int
            repeat { tenths = Int.random(in: 880...1070, using: &generator) } while current.map { HeadUnit.matches($0, .number(Double(tenths) / 10)) } ?? false
            let value = Double(tenths) / 10
            return (.number(value), #"{"intent":"SetRadioStation","parameters":{"radioType":"FM","frequency":\#(value)}}"#)
        }
    }
}

/// The failure reasons a fault may cause (and whether success is still possible).
func allowedReasons(for rule: FaultRule) -> Set<String> {
    switch rule.kind {
    case .drop, .delay, .wrongValue: ["timeout"]
    case .reject: ["rejectedByVehicle", "timeout"]  // timeout: the rejection itself can be corrupted by another rule
    case .badCRC, .repeatCounter: ["e2eError", "timeout", "vehicleUnreachable"]
    case .silence, .busOff: ["timeout", "vehicleUnreachable"]
    }
}

// Serialized: its rigs run one at a time, so the suite does not starve the rest of the
// test run on a 2-core machine (each case is dominated by waiting out a timeout).
@Suite(.serialized) struct FaultMatrixTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let rules: [FaultRule]
        /// The failure reasons accepted; empty: the intent must succeed.
        let reasons: Set<String>
        /// Where the vehicle ends up: with the target (the command was applied, maybe
        /// late or unseen), unchanged (refused) or with another value (wrongValue).
        let vehicleEnds: VehicleEnd
        var testDescription: String { name }
    }

    enum VehicleEnd: Sendable { case target, unchanged, otherValue }

    static let cases: [Case] = [
        Case(name: "drop", rules: [.drop()], reasons: ["timeout"], vehicleEnds: .unchanged),
        Case(name: "delay within the timeout", rules: [.delay(.milliseconds(100))], reasons: [], vehicleEnds: .target),
        Case(name: "delay beyond the timeout", rules: [.delay(.milliseconds(1500))], reasons: ["timeout"], vehicleEnds: .target),
        Case(name: "reject", rules: [.reject()], reasons: ["rejectedByVehicle"], vehicleEnds: .unchanged),
        Case(name: "reject with a result", rules: [.reject(result: "RejectedLocked")], reasons: ["rejectedByVehicle"], vehicleEnds: .unchanged),
        Case(name: "wrongValue", rules: [FaultRule(.wrongValue)], reasons: ["timeout"], vehicleEnds: .otherValue),
        Case(name: "badCRC on the status", rules: [FaultRule(.badCRC, message: "SeatStatus")], reasons: ["e2eError"], vehicleEnds: .target),
        Case(name: "badCRC on every status", rules: [FaultRule(.badCRC)], reasons: ["e2eError", "vehicleUnreachable"], vehicleEnds: .target),
        Case(name: "badCRC on a rejection", rules: [.reject(), FaultRule(.badCRC, message: "CommandAck")], reasons: ["e2eError"], vehicleEnds: .unchanged),
        Case(name: "repeatCounter on the status", rules: [FaultRule(.repeatCounter, message: "SeatStatus")], reasons: ["e2eError"], vehicleEnds: .target),
        Case(name: "silence", rules: [FaultRule(.silence)], reasons: ["timeout", "vehicleUnreachable"], vehicleEnds: .target),
        Case(name: "busOff", rules: [FaultRule(.busOff)], reasons: ["timeout", "vehicleUnreachable"], vehicleEnds: .target),
        Case(name: "scoped elsewhere", rules: [.reject(property: "climate."), .drop(message: "AudioCommand")], reasons: [], vehicleEnds: .target),
    ]

    /// Each fault alone, on the seat heating of the sedan: the right response, nothing
    /// pending, and convergence once cleared; then a new intent succeeds.
    @Test(arguments: cases)
    func faultAlone(_ testCase: Case) async throws {
        let rig = try await FaultRig.start(timeout: .seconds(1))
        try await stopping(rig) { rig in
            let key = PropertyKey.seat(.frontLeft, .heating)
            // Warm-up: the vehicle has acknowledged this head unit once, so a timeout is not
            // retried (the retry is for a restarted daemon; EngineTests covers it).
            let warmUp = try await rig.perform(#"{"intent":"SetSeatSettingsInCar","parameters":{"enableHeating":true,"seat":"driver","level":1}}"#)
            #expect(warmUp.response.code == .success, "\(warmUp.response)")
            let before = rig.vehicle.state()[key]
            rig.vehicle.setFaults(FaultPlan(testCase.rules))
            let result = try await rig.perform(#"{"intent":"SetSeatSettingsInCar","parameters":{"enableHeating":true,"seat":"driver","level":2}}"#)
            if testCase.reasons.isEmpty {
                #expect(result.response.code == .success, "\(testCase.name): \(result.response)")
                #expect(rig.vehicle.state()[key] == .integer(2), "success means the vehicle holds the value")
            } else {
                #expect(result.response.code == .failure, "\(testCase.name): \(result.response)")
                #expect(result.response.reason.map(testCase.reasons.contains) == true, "\(testCase.name): \(result.response)")
                #expect(result.response.detail != nil, "a failure explains itself")
            }
            rig.vehicle.setFaults(.none)
            // A late (delayed) command still lands; wait for it before comparing.
            if case .delay = testCase.rules.first?.kind {
                let landed = await rig.time.until { rig.vehicle.state()[key] == .integer(2) }
                #expect(landed, "the delayed command applies in the end")
            }
            let after = rig.vehicle.state()[key]
            switch testCase.vehicleEnds {
            case .target: #expect(after == .integer(2), "\(testCase.name): the vehicle applied the command")
            case .unchanged: #expect(after == before, "\(testCase.name): the vehicle applied nothing")
            case .otherValue: #expect(after != .integer(2), "\(testCase.name): the vehicle applied another value: \(String(describing: after))")
            }
            await rig.expectConvergence(testCase.name)
            // Recovery: the next intent succeeds.
            let next = try await rig.perform(#"{"intent":"SetSeatSettingsInCar","parameters":{"enableHeating":true,"seat":"driver","level":3}}"#)
            #expect(next.response.code == .success, "\(testCase.name): after clearing: \(next.response)")
            #expect(rig.vehicle.state()[key] == .integer(3))
        }
    }

    /// The head unit cannot send (a transmit queue that stays full): busError at once,
    /// nothing pending, and the next intent succeeds once the bus takes frames again.
    @Test func sendFailureIsABusError() async throws {
        let rig = try await FaultRig.start(timeout: .seconds(2))
        try await stopping(rig) { rig in
            rig.port.failing.withLock { $0 = .transmitQueueFull }
            let result = try await rig.perform(#"{"intent":"SetDefrosterSettingsInCar","parameters":{"enable":true,"defroster":"rear"}}"#)
            #expect(result.response.code == .failure)
            #expect(result.response.reason == "busError", "\(result.response)")
            #expect(result.response.detail == "the CAN transmit queue is full")
            #expect(rig.port.refused.withLock { $0 } >= 1)
            #expect(rig.vehicle.state()[.defroster(.rear)] == .bool(false), "nothing reached the vehicle")
            rig.port.failing.withLock { $0 = nil }
            let next = try await rig.perform(#"{"intent":"SetDefrosterSettingsInCar","parameters":{"enable":true,"defroster":"rear"}}"#)
            #expect(next.response.code == .success, "\(next.response)")
            await rig.expectConvergence("after the transmit queue drained")
        }
    }

    /// Issue 34: while the controller is bus-off nothing can be sent or heard. An intent
    /// ends at once with `busOff` (it does not wait for a vehicle it cannot reach, nor
    /// leave a frame behind), ListCars still answers, and intents work after the restart.
    @Test func aBusOffControllerRefusesIntentsAtOnce() async throws {
        let rig = try await FaultRig.start(timeout: .seconds(2))
        try await stopping(rig) { rig in
            rig.port.failing.withLock { $0 = .busOff(rig.port.interface) }
            let before = rig.time.clock.elapsed
            let result = try await rig.perform(#"{"intent":"SetDefrosterSettingsInCar","parameters":{"enable":true,"defroster":"rear"}}"#)
            #expect(result.response.code == .failure)
            #expect(result.response.reason == "busOff", "\(result.response)")
            #expect(result.refusal == .busOff(interface: rig.port.interface))
            #expect(result.frames.isEmpty)
            #expect(rig.time.clock.elapsed - before < rig.timeout, "answered without waiting for a confirmation")
            #expect(rig.port.refused.withLock { $0 } == 0, "not even tried")
            #expect(rig.vehicle.state()[.defroster(.rear)] == .bool(false))
            let cars = try await rig.perform(#"{"intent":"ListCars","parameters":{}}"#)
            #expect(cars.response.code == .success, "\(cars.response)")
            rig.port.failing.withLock { $0 = nil }
            let next = try await rig.perform(#"{"intent":"SetDefrosterSettingsInCar","parameters":{"enable":true,"defroster":"rear"}}"#)
            #expect(next.response.code == .success, "\(next.response)")
        }
    }

    /// A send that meets bus-off in the middle of an intent (the controller went bus-off
    /// after the intent was confirmed) says so: reason `busOff`, not a generic bus error.
    @Test func aSendThatMeetsBusOffSaysSo() {
        #expect(CommandFailure.bus(.busOff("can0")).reason == "busOff")
        #expect(CommandFailure.bus(.transmitQueueFull).reason == "busError")
    }

    /// Faults and intents mixed at random. The seed is printed; CARPLAYD_FAULT_SEED
    /// replays a run, CARPLAYD_FAULT_STEPS sets its length (default 14).
    @Test func randomMixKeepsTheInvariants() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["CARPLAYD_FAULT_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...999_999)
        let steps = environment["CARPLAYD_FAULT_STEPS"].flatMap { Int($0) } ?? 14
        print("FaultMatrixTests.randomMix: seed \(seed), \(steps) steps (replay: CARPLAYD_FAULT_SEED=\(seed))")
        var generator = SplitMix64(seed: seed)
        let rig = try await FaultRig.start(timeout: .seconds(1))
        try await stopping(rig) { rig in
            let history = await StateHistory(controller: rig.controller, initial: rig.controller.currentState)
            var tally: [String: Int] = [:]
            for step in 0..<steps {
                let intent = FaultIntent.allCases.randomElement(using: &generator)!
                let rule = Self.randomRule(for: intent, using: &generator)
                let (target, json) = intent.target(current: rig.controller.currentState[intent.key], using: &generator)
                let context = "seed \(seed) step \(step): \(rule) on \(json)"
                rig.vehicle.setFaults(FaultPlan([rule]))
                let result = try await rig.perform(json)
                tally["\(rule.kind.name) -> \(result.response.reason ?? "success")", default: 0] += 1
                if result.response.code == .success {
                    #expect(await history.eventuallyShowed(intent.key, target), "\(context): success, but no trusted status frame showed \(target)")
                    let held = rig.vehicle.state()[intent.key]
                    #expect(held.map { HeadUnit.matches($0, target) } == true, "\(context): success, but the vehicle holds \(String(describing: held))")
                    let certainFailure =
                        rule.count == nil && rule.matches(message: intent.commandMessage, keys: [intent.key])
                        && ["drop", "reject", "wrongValue"].contains(rule.kind.name)
                    #expect(!certainFailure, "\(context): success despite a fault that refuses the command")
                } else {
                    #expect(result.response.code == .failure, "\(context): \(result.response)")
                    #expect(result.response.reason.map(allowedReasons(for: rule).contains) == true, "\(context): \(result.response)")
                }
                rig.vehicle.setFaults(.none)
                if case let .delay(delay) = rule.kind { rig.time.advance(by: delay + .milliseconds(200)) }
                await rig.expectConvergence(context)
            }
            print("FaultMatrixTests.randomMix: seed \(seed): \(tally.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
            let statistics = rig.vehicle.statistics()
            #expect(statistics.commandsReceived >= 1)
        }
    }

    static func randomRule(for intent: FaultIntent, using generator: inout some RandomNumberGenerator) -> FaultRule {
        let kinds: [FaultRule.Kind] = [
            .drop, .delay(.milliseconds(50)), .delay(.milliseconds(1500)), .reject(result: nil), .wrongValue, .badCRC, .repeatCounter, .silence, .busOff,
        ]
        let kind = kinds.randomElement(using: &generator)!
        var rule = FaultRule(kind)
        // Scope: none, the intent's own property or message, or another one.
        switch Int.random(in: 0...3, using: &generator) {
        case 0: break
        case 1: rule.property = intent.key.rawValue
        case 2: rule.message = kind.isCommandFault ? intent.commandMessage : intent.statusMessage
        default: rule.property = intent == .temperature ? "seat." : "climate.temperature"
        }
        if Bool.random(using: &generator) { rule.count = Int.random(in: 1...3, using: &generator) }
        return rule
    }
}

/// Polls a condition with a generous deadline.
func eventuallyTrue(seconds: Double = 20, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
