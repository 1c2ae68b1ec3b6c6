import CANBus
import CANKit
import CarplayJSON
import Foundation
import Testing

@testable import VehicleKit
@testable import VehicleSimulator

/// A small vehicle built in the test: one E2E-protected command message, one
/// E2E-protected status message (cyclic every 100 ms, or event-only), one
/// acknowledgement message.
enum TestVehicle {
    static let commandID: UInt32 = 0x300

    static func dbc(cycleTime: Int?) -> String {
        var text = """
            VERSION ""

            NS_ :
            \tBA_DEF_
            \tBA_
            \tVAL_

            BS_:

            BU_: HeadUnit Vehicle

            BO_ 768 VehicleCommand: 8 HeadUnit
             SG_ Crc : 0|8@1+ (1,0) [0|255] "" Vehicle
             SG_ Counter : 8|4@1+ (1,0) [0|15] "" Vehicle
             SG_ TargetTemp : 16|8@1+ (0.5,0) [0|127.5] "degC" Vehicle
             SG_ FanSpeed : 24|4@1+ (1,0) [0|15] "" Vehicle
             SG_ Lock : 28|2@1+ (1,0) [0|3] "" Vehicle
             SG_ Horn : 30|2@1+ (1,0) [0|3] "" Vehicle
             SG_ SeatHeat : 32|3@1+ (1,0) [0|7] "" Vehicle

            BO_ 784 VehicleStatus: 8 Vehicle
             SG_ Crc : 0|8@1+ (1,0) [0|255] "" HeadUnit
             SG_ Counter : 8|4@1+ (1,0) [0|15] "" HeadUnit
             SG_ TargetTemp : 16|8@1+ (0.5,0) [0|127.5] "degC" HeadUnit
             SG_ FanSpeed : 24|4@1+ (1,0) [0|15] "" HeadUnit
             SG_ Lock : 28|2@1+ (1,0) [0|3] "" HeadUnit
             SG_ Horn : 30|2@1+ (1,0) [0|3] "" HeadUnit
             SG_ SeatHeat : 32|3@1+ (1,0) [0|7] "" HeadUnit
             SG_ CabinTemp : 40|8@1+ (0.5,-40) [-40|87.5] "degC" HeadUnit

            BO_ 800 CommandAck: 4 Vehicle
             SG_ AckCommandId : 0|11@1+ (1,0) [0|2047] "" HeadUnit
             SG_ AckCounter : 16|4@1+ (1,0) [0|15] "" HeadUnit
             SG_ AckResult : 24|4@1+ (1,0) [0|15] "" HeadUnit

            BA_DEF_ BO_ "GenMsgCycleTime" INT 0 10000;
            BA_DEF_DEF_ "GenMsgCycleTime" 0;

            """
        if let cycleTime { text += "BA_ \"GenMsgCycleTime\" BO_ 784 \(cycleTime);\n" }
        text += """
            VAL_ 768 TargetTemp 255 "NoRequest" ;
            VAL_ 768 FanSpeed 15 "NoRequest" ;
            VAL_ 768 Lock 0 "Unlocked" 1 "Locked" 3 "NoRequest" ;
            VAL_ 768 Horn 0 "Off" 1 "On" 3 "NoRequest" ;
            VAL_ 768 SeatHeat 7 "NoRequest" ;
            VAL_ 784 TargetTemp 255 "Invalid" ;
            VAL_ 784 Lock 0 "Unlocked" 1 "Locked" 3 "Invalid" ;
            VAL_ 784 Horn 0 "Off" 1 "On" ;
            VAL_ 800 AckResult 0 "Accepted" 1 "RejectedOutOfRange" 2 "RejectedNotAvailable" 3 "Rejected" ;

            """
        return text
    }

    /// The vehicle: one climate zone "left" (16...28 °C in 0.5 steps, 7 fan levels),
    /// a lock, the horn; `seat.frontLeft.heating` is bound but the seat list is empty,
    /// so the car lacks it.
    static func profile(cycleTime: Int? = 100) throws -> VehicleProfile {
        let database = try DBCDatabase(parsing: dbc(cycleTime: cycleTime), source: "test.dbc")
        /// A setpoint and its status, both mapping `values` (property value -> choice name).
        func binding(_ signal: String, idle: Int128?, values: [String: String] = [:]) -> PropertyBinding {
            let mapping = ValueMapping(values: values.mapValues { [.choice($0)] })
            return PropertyBinding(
                command: .setpoint(SetpointCommand(signal: SignalReference(message: "VehicleCommand", signal: signal), idle: idle, values: mapping)),
                status: SignalReference(message: "VehicleStatus", signal: signal), statusValues: mapping)
        }
        return VehicleProfile(
            identifier: "test", displayName: "Test Car", carNames: ["Test"], driverSide: .left, database: database,
            climate: ClimateCapabilities(
                zones: [ClimateZone(id: "left", seats: [.frontLeft])],
                celsius: SteppedRange(min: 16, max: 28, step: 0.5), fahrenheit: SteppedRange(min: 61, max: 82, step: 1),
                fanSpeedLevels: 7, airConditioner: false, autoMode: false, recirculation: false, climateControl: false),
            defrosters: [], seats: [], radio: nil, audioSources: [], carProfileSlots: 0, hasLock: true, carSignals: [.audible],
            power: PowerCapabilities(fuel: false, battery: false),
            bindings: [
                .temperature(zone: "left"): binding("TargetTemp", idle: 255),
                .fanSpeed: binding("FanSpeed", idle: 15),
                .locked: binding("Lock", idle: 3, values: ["true": "Locked", "false": "Unlocked"]),
                .signal(.audible): binding("Horn", idle: 3, values: ["true": "On", "false": "Off"]),
                .seat(.frontLeft, .heating): binding("SeatHeat", idle: 7),
                .cabinTemperature: PropertyBinding(command: nil, status: SignalReference(message: "VehicleStatus", signal: "CabinTemp")),
            ],
            protection: [
                "VehicleCommand": MessageProtection(
                    message: "VehicleCommand", checksumSignal: "Crc", counterSignal: "Counter",
                    protection: try FrameProtection(
                        scheme: .carplaydE2E(dataID: 0x1100), checksum: PayloadField(startBit: 0, length: 8, byteOrder: .littleEndian),
                        counter: PayloadField(startBit: 8, length: 4, byteOrder: .littleEndian))),
                "VehicleStatus": MessageProtection(
                    message: "VehicleStatus", checksumSignal: "Crc", counterSignal: "Counter",
                    protection: try FrameProtection(
                        scheme: .carplaydE2E(dataID: 0x1110), checksum: PayloadField(startBit: 0, length: 8, byteOrder: .littleEndian),
                        counter: PayloadField(startBit: 8, length: 4, byteOrder: .littleEndian))),
            ],
            acknowledgement: AcknowledgementBinding(
                message: "CommandAck", commandIDSignal: "AckCommandId", counterSignal: "AckCounter", resultSignal: "AckResult",
                acceptedChoice: "Accepted"),
            policies: Policies(refusedWhileCarLocked: [], confirmationTimeout: .milliseconds(500), unreachableAfterCycles: 5))
    }
}

/// The head unit's side of the bus in a test: builds commands, reads what the vehicle sent.
struct HeadUnit {
    let frames: VehicleFrames
    var counters: [String: UInt8] = [:]
    var checkers: [String: FrameChecker] = [:]

    init(profile: VehicleProfile) { frames = VehicleFrames(profile: profile) }

    mutating func command(_ targets: [PropertyKey: PropertyValue]) throws -> CANFrame {
        let built = try frames.commandFrames(for: targets, counters: &counters)
        #expect(built.count == 1)
        return built[0]
    }

    mutating func read(_ sent: [CANFrame]) -> [VehicleFrameContent] {
        sent.map { frames.decodeFromVehicle($0, checkers: &checkers) }
    }

    /// The acknowledgements among `contents`.
    static func acks(_ contents: [VehicleFrameContent]) -> [Acknowledgement] {
        contents.compactMap { if case let .acknowledgement(ack) = $0 { ack } else { nil } }
    }

    /// The reported values of the status frames among `contents`.
    static func statuses(_ contents: [VehicleFrameContent]) -> [[PropertyKey: PropertyValue]] {
        contents.compactMap { if case let .status(_, values, _) = $0 { values } else { nil } }
    }
}

private let temperature = PropertyKey.temperature(zone: "left")

/// The default state with the cabin already at the target: no dynamics, no extra frames.
private func settled(_ profile: VehicleProfile) -> VehicleState {
    var state = VehicleSimulation.defaultState(for: profile)
    state[.cabinTemperature] = state[temperature]
    return state
}

@Suite struct SimulationTests {
    // MARK: - Commands

    @Test func defaultStateIsPlausible() throws {
        let state = VehicleSimulation.defaultState(for: try TestVehicle.profile())
        #expect(state[temperature] == .number(21))
        #expect(state[.fanSpeed] == .integer(3))
        #expect(state[.locked] == .bool(false))
        #expect(state[.signal(.audible)] == .bool(false))
        #expect(state[.seat(.frontLeft, .heating)] == .integer(0))
        #expect(state[.cabinTemperature] == .number(24))
        #expect(state[.fuelPercent] == nil, "only bound properties")
    }

    @Test func acceptedCommandIsAcknowledgedAndReportedAtOnce() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile)
        var head = HeadUnit(profile: profile)
        let sent = car.receive(try head.command([temperature: .number(22.5), .fanSpeed: .integer(5)]), at: .milliseconds(10))
        let contents = head.read(sent)
        #expect(contents.count == 2)
        let ack = try #require(HeadUnit.acks(contents).first)
        #expect(ack.accepted && ack.result == "Accepted")
        #expect(ack.commandFrameID == TestVehicle.commandID && ack.counter == 0)
        let status = try #require(HeadUnit.statuses(contents).first)
        #expect(status[temperature] == .number(22.5))
        #expect(status[.fanSpeed] == .integer(5))
        #expect(car.state[temperature] == .number(22.5))
        #expect(car.statistics.commandsApplied == 1)
        #expect(car.log.last?.kind == .applied)
    }

    @Test func commandForTheCurrentValueIsReportedAtOnceToo() throws {
        // Event-only status: without a status frame for the command, the head unit would
        // never see the value confirmed.
        let profile = try TestVehicle.profile(cycleTime: nil)
        var car = VehicleSimulation(profile: profile)
        var head = HeadUnit(profile: profile)
        _ = car.tick(at: .zero)
        let current = try #require(car.state[temperature])
        let contents = head.read(car.receive(try head.command([temperature: current]), at: .milliseconds(10)))
        #expect(HeadUnit.acks(contents).first?.accepted == true)
        let status = try #require(HeadUnit.statuses(contents).first, "a status frame for the unchanged value")
        #expect(status[temperature] == current)
    }

    @Test func outOfRangeRejectsTheWholeFrame() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile)
        var head = HeadUnit(profile: profile)
        // The temperature alone would be fine; the fan level is not.
        let contents = head.read(car.receive(try head.command([temperature: .number(23), .fanSpeed: .integer(9)]), at: .zero))
        let ack = try #require(HeadUnit.acks(contents).first)
        #expect(!ack.accepted && ack.result == "RejectedOutOfRange")
        #expect(HeadUnit.statuses(contents).isEmpty)
        #expect(car.state[temperature] == .number(21))
        #expect(car.state[.fanSpeed] == .integer(3))

        let hot = head.read(car.receive(try head.command([temperature: .number(30)]), at: .zero))
        #expect(HeadUnit.acks(hot).first?.result == "RejectedOutOfRange")
        #expect(car.state[temperature] == .number(21))
        #expect(car.statistics.commandsRejected == 2 && car.statistics.commandsApplied == 0)
    }

    @Test func featureTheCarLacksIsNotAvailable() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile)
        var head = HeadUnit(profile: profile)
        let contents = head.read(car.receive(try head.command([.seat(.frontLeft, .heating): .integer(2)]), at: .zero))
        #expect(HeadUnit.acks(contents).first?.result == "RejectedNotAvailable")
        #expect(car.state[.seat(.frontLeft, .heating)] == .integer(0))
    }

    @Test func rejectionChoiceFallsBack() throws {
        let car = VehicleSimulation(profile: try TestVehicle.profile())
        #expect(car.resultChoice(for: .notSubscribed) == "RejectedNotAvailable")
        #expect(car.resultChoice(for: .injected(nil)) == "Rejected")
        #expect(car.resultChoice(for: .injected("RejectedOutOfRange")) == "RejectedOutOfRange")
    }

    @Test func badCRCCommandIsIgnored() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile)
        var head = HeadUnit(profile: profile)
        var frame = try head.command([temperature: .number(25)])
        frame.data[0] ^= 0x01
        #expect(car.receive(frame, at: .zero).isEmpty)
        #expect(car.state[temperature] == .number(21))
        #expect(car.statistics.untrustedFrames == 1 && car.statistics.commandsReceived == 0)
        #expect(car.log.last?.kind == .e2eError)
    }

    @Test func replayedFrameIsIgnored() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile)
        var head = HeadUnit(profile: profile)
        let first = try head.command([temperature: .number(22)])
        let second = try head.command([temperature: .number(23)])
        #expect(!car.receive(first, at: .zero).isEmpty)
        #expect(!car.receive(second, at: .milliseconds(10)).isEmpty)
        #expect(car.receive(second, at: .milliseconds(20)).isEmpty, "same counter: repeated")
        #expect(car.receive(first, at: .milliseconds(30)).isEmpty, "older counter: out of sequence")
        #expect(car.state[temperature] == .number(23))
        #expect(car.statistics.commandsApplied == 2 && car.statistics.untrustedFrames == 2)
    }

    /// Limits of capabilities the test DBC does not carry (radio, audio, profiles),
    /// checked on decoded commands directly.
    @Test func radioAudioAndProfileLimits() throws {
        var profile = try TestVehicle.profile()
        profile.radio = RadioCapabilities(
            bands: [
                RadioBand(type: .FM, range: SteppedRange(min: 87.5, max: 108, step: 0.1), unit: "MHz"),
                RadioBand(type: .AM, range: SteppedRange(min: 530, max: 1710, step: 10), unit: "kHz"),
                RadioBand(type: .satellite, range: SteppedRange(min: 1, max: 999, step: 1), unit: "channel"),
            ],
            presets: [], stations: [RadioStation(name: "Jazz", type: .FM, frequency: 101.1)], satelliteSubscribed: false)
        profile.audioSources = [.sourceRadio, .sourceBluetooth]
        profile.carProfileSlots = 4
        var state = VehicleSimulation.defaultState(for: profile)
        state[.radioBand] = .enumeration("FM")
        state[.radioFrequency] = .number(101.1)
        let car = VehicleSimulation(profile: profile, state: state)
        func verdict(_ changes: [PropertyKey: PropertyValue]) -> RejectionReason? {
            let command = HeadUnitCommand(message: "VehicleCommand", id: CANID(standard: 0x300), counter: 0, changes: changes, unreadable: [])
            switch car.validate(command) {
            case .success: return nil
            case let .failure(violation): return violation.reason
            }
        }
        #expect(verdict([.radioFrequency: .number(101.3)]) == nil)
        #expect(verdict([.radioFrequency: .number(1000)]) == .outOfRange, "the current band is FM")
        #expect(verdict([.radioBand: .enumeration("AM"), .radioFrequency: .number(1000)]) == nil, "the band of the same command")
        #expect(verdict([.radioBand: .enumeration("AM"), .radioFrequency: .number(101.1)]) == .outOfRange)
        #expect(verdict([.radioChannel: .integer(5)]) == .notAvailable, "FM tunes by frequency")
        #expect(verdict([.radioBand: .enumeration("satellite")]) == .notSubscribed)
        #expect(verdict([.radioBand: .enumeration("DAB")]) == .notAvailable)
        #expect(verdict([.audioSource: .enumeration("sourceUSB")]) == .notAvailable)
        #expect(verdict([.audioSource: .enumeration("sourceBluetooth")]) == nil)
        #expect(verdict([.activeCarProfile: .integer(4)]) == nil)
        #expect(verdict([.activeCarProfile: .integer(5)]) == .outOfRange)
        #expect(verdict([.locked: .bool(true), .signal(.visible): .bool(true)]) == .notAvailable, "no lights signal")
        #expect(verdict([PropertyKey.temperature(zone: "right"): .number(21)]) == .notAvailable)

        #expect(car.wrongValue(for: .audioSource, .enumeration("sourceBluetooth")) == .enumeration("sourceRadio"), "next case the car has, wrapping")
        #expect(car.wrongValue(for: .radioBand, .enumeration("FM")) == .enumeration("AM"))
        #expect(car.wrongValue(for: .radioFrequency, .number(108)) == .number(107.9))
        #expect(car.wrongValue(for: .activeCarProfile, .integer(0)) == .integer(1))
        #expect(car.state[.radioChannel] == nil, "not bound in this test vehicle")
    }

    // MARK: - Time

    @Test func cyclicStatusAtTheCycleTime() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile)
        var head = HeadUnit(profile: profile)
        #expect(car.nextDeadline == .zero)
        #expect(car.tick(at: .zero).count == 1)
        #expect(car.nextDeadline == .milliseconds(100))
        #expect(car.tick(at: .milliseconds(50)).isEmpty)
        let at100 = car.tick(at: .milliseconds(100))
        #expect(at100.count == 1)
        #expect(car.tick(at: .milliseconds(250)).count == 1, "the 200 ms frame, late")
        #expect(car.nextDeadline == .milliseconds(300))
        #expect(car.tick(at: .milliseconds(300)).count == 1)
        // Consecutive alive counters: the head unit trusts every one.
        let contents = head.read(at100)
        #expect(HeadUnit.statuses(contents).first?[temperature] == .number(21))
        #expect(car.statistics.framesSent == 4)
    }

    @Test func cabinTemperatureMovesTowardTheTarget() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile)
        var head = HeadUnit(profile: profile)
        _ = car.tick(at: .zero)
        _ = car.tick(at: .seconds(1))
        #expect(car.state[.cabinTemperature] == .number(23.5))
        let contents = head.read(car.tick(at: .seconds(2)))
        #expect(HeadUnit.statuses(contents).first?[.cabinTemperature] == .number(23))
        _ = car.tick(at: .seconds(10))
        #expect(car.state[.cabinTemperature] == .number(21))
        // A warmer target: the cabin follows upwards.
        _ = car.receive(try head.command([temperature: .number(22)]), at: .seconds(10))
        _ = car.tick(at: .seconds(11))
        #expect(car.state[.cabinTemperature] == .number(21.5))
    }

    @Test func eventOnlyCabinTemperatureAsksForPhysicsTicksUntilSettled() throws {
        let profile = try TestVehicle.profile(cycleTime: nil)
        var car = VehicleSimulation(profile: profile)
        _ = car.tick(at: .zero)
        // The default cabin (24) is away from the target (21): a tick a second.
        #expect(car.nextDeadline == .seconds(1))
        _ = car.tick(at: .seconds(10))
        #expect(car.state[.cabinTemperature] == .number(21))
        #expect(car.nextDeadline == nil, "settled: no ticks needed")
        var cyclic = VehicleSimulation(profile: try TestVehicle.profile())
        _ = cyclic.tick(at: .zero)
        #expect(cyclic.nextDeadline == .milliseconds(100), "a cyclic status carries the cabin: only its cycle")
    }

    @Test func logLimitZeroKeepsNoLog() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile)
        car.logLimit = 0
        var head = HeadUnit(profile: profile)
        let sent = car.receive(try head.command([temperature: .number(22.5)]), at: .milliseconds(10))
        #expect(HeadUnit.acks(head.read(sent)).first?.accepted == true)
        #expect(car.state[temperature] == .number(22.5))
        #expect(car.log.isEmpty)
        #expect(car.drainLog().isEmpty)
    }

    @Test func signalIsMomentary() throws {
        let profile = try TestVehicle.profile(cycleTime: nil)
        var car = VehicleSimulation(profile: profile, state: settled(profile))
        var head = HeadUnit(profile: profile)
        #expect(car.tick(at: .zero).count == 1, "event-only status goes out once at start")
        let on = head.read(car.receive(try head.command([.signal(.audible): .bool(true)]), at: .seconds(1)))
        #expect(HeadUnit.acks(on).first?.accepted == true)
        #expect(HeadUnit.statuses(on).first?[.signal(.audible)] == .bool(true))
        #expect(car.nextDeadline == .seconds(3))
        #expect(car.tick(at: .milliseconds(2900)).isEmpty)
        #expect(car.state[.signal(.audible)] == .bool(true))
        let off = head.read(car.tick(at: .seconds(3)))
        #expect(off.count == 1)
        #expect(HeadUnit.statuses(off).first?[.signal(.audible)] == .bool(false))
        #expect(car.state[.signal(.audible)] == .bool(false))
        #expect(car.nextDeadline == nil)
    }

    // MARK: - Faults

    @Test func dropFault() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile, faults: FaultPlan([.drop(property: "climate.")]))
        var head = HeadUnit(profile: profile)
        #expect(car.receive(try head.command([temperature: .number(25)]), at: .zero).isEmpty)
        #expect(car.state[temperature] == .number(21))
        #expect(car.statistics.commandsDropped == 1)
        // Out of the rule's scope: applied.
        let lock = head.read(car.receive(try head.command([.locked: .bool(true)]), at: .zero))
        #expect(HeadUnit.acks(lock).first?.accepted == true)
        #expect(car.state[.locked] == .bool(true))
    }

    @Test func delayFault() throws {
        let profile = try TestVehicle.profile(cycleTime: nil)
        var car = VehicleSimulation(profile: profile, state: settled(profile), faults: FaultPlan([.delay(.milliseconds(300))]))
        var head = HeadUnit(profile: profile)
        _ = head.read(car.tick(at: .zero))
        #expect(car.receive(try head.command([temperature: .number(25)]), at: .seconds(1)).isEmpty)
        #expect(car.state[temperature] == .number(21))
        #expect(car.nextDeadline == .milliseconds(1300))
        #expect(car.tick(at: .milliseconds(1200)).isEmpty)
        let released = head.read(car.tick(at: .milliseconds(1300)))
        #expect(HeadUnit.acks(released).first?.accepted == true)
        #expect(HeadUnit.statuses(released).first?[temperature] == .number(25))
        #expect(car.state[temperature] == .number(25))
        #expect(car.statistics.commandsDelayed == 1 && car.statistics.commandsApplied == 1)
    }

    @Test func rejectFault() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile, faults: FaultPlan([.reject()]))
        var head = HeadUnit(profile: profile)
        let contents = head.read(car.receive(try head.command([temperature: .number(25)]), at: .zero))
        let ack = try #require(HeadUnit.acks(contents).first)
        #expect(!ack.accepted && ack.result == "Rejected")
        #expect(HeadUnit.statuses(contents).isEmpty)
        #expect(car.state[temperature] == .number(21))
    }

    @Test func wrongValueFault() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile, faults: FaultPlan([FaultRule(.wrongValue)]))
        var head = HeadUnit(profile: profile)
        let contents = head.read(car.receive(try head.command([temperature: .number(22), .fanSpeed: .integer(7)]), at: .zero))
        #expect(HeadUnit.acks(contents).first?.accepted == true, "the car believes it did it")
        let status = try #require(HeadUnit.statuses(contents).first)
        #expect(status[temperature] == .number(22.5))
        #expect(status[.fanSpeed] == .integer(6), "one level off, within 1...7")
        let lock = head.read(car.receive(try head.command([.locked: .bool(true)]), at: .zero))
        #expect(HeadUnit.acks(lock).first?.accepted == true)
        #expect(car.state[.locked] == .bool(false))
        #expect(car.statistics.wrongValuesApplied == 3)
        #expect(car.log.contains { $0.kind == .wrongValue && $0.detail.contains("commanded 22.0, applied 22.5") })
    }

    @Test func badCRCFault() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile, faults: FaultPlan([FaultRule(.badCRC)]))
        var head = HeadUnit(profile: profile)
        #expect(head.read(car.tick(at: .zero)) == [.e2eError(message: "VehicleStatus", status: .wrongCRC)])
        // Acknowledgements are left alone unless the rule names them.
        let contents = head.read(car.receive(try head.command([temperature: .number(25)]), at: .milliseconds(10)))
        #expect(HeadUnit.acks(contents).first?.accepted == true)
        #expect(car.statistics.framesCorrupted == 2)
    }

    @Test func repeatCounterFault() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile, faults: FaultPlan([FaultRule(.repeatCounter)]))
        var head = HeadUnit(profile: profile)
        #expect(HeadUnit.statuses(head.read(car.tick(at: .zero))).count == 1, "nothing to repeat yet")
        #expect(head.read(car.tick(at: .milliseconds(100))) == [.e2eError(message: "VehicleStatus", status: .repeated)])
        car.setFaults(.none)
        #expect(HeadUnit.statuses(head.read(car.tick(at: .milliseconds(200)))).count == 1, "in sequence again")
    }

    @Test func silenceFault() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile, faults: FaultPlan([FaultRule(.silence)]))
        var head = HeadUnit(profile: profile)
        #expect(car.tick(at: .zero).isEmpty)
        #expect(car.receive(try head.command([temperature: .number(25)]), at: .milliseconds(10)).isEmpty)
        #expect(car.tick(at: .milliseconds(100)).isEmpty)
        #expect(car.statistics.framesSent == 0 && car.statistics.framesSuppressed == 4)
    }

    @Test func countLimitedFaultExpires() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile, faults: FaultPlan([.drop(count: 1)]))
        var head = HeadUnit(profile: profile)
        #expect(car.receive(try head.command([temperature: .number(25)]), at: .zero).isEmpty)
        #expect(car.faults.isEmpty)
        let contents = head.read(car.receive(try head.command([temperature: .number(25)]), at: .milliseconds(10)))
        #expect(HeadUnit.acks(contents).first?.accepted == true)
        #expect(car.state[temperature] == .number(25))
    }

    @Test func timeWindowedFault() throws {
        let profile = try TestVehicle.profile()
        var car = VehicleSimulation(profile: profile, faults: FaultPlan([FaultRule(.silence, from: .seconds(1), until: .seconds(2))]))
        #expect(car.tick(at: .zero).count == 1)
        #expect(car.tick(at: .seconds(1)).isEmpty)
        #expect(car.tick(at: .milliseconds(1900)).isEmpty)
        #expect(car.tick(at: .seconds(2)).count == 1)
    }

    @Test func faultPlanJSON() throws {
        let json = #"""
            {"rules":[{"kind":"delay","ms":250,"property":"climate.","count":2},
                      {"kind":"reject","result":"RejectedBusy","message":"VehicleCommand","fromMs":1000,"untilMs":5000},
                      {"kind":"silence"},{"kind":"busOff"}]}
            """#
        let plan = try FaultPlan(parsing: json, source: "test")
        #expect(plan.rules[0] == .delay(.milliseconds(250), property: "climate.", count: 2))
        #expect(plan.rules[1] == FaultRule(.reject(result: "RejectedBusy"), message: "VehicleCommand", from: .seconds(1), until: .seconds(5)))
        #expect(plan.rules[3].kind == .busOff)
        let again = try FaultPlan(parsing: plan.jsonValue.serialized(), source: "test")
        #expect(again == plan)
        #expect(
            throws: JSONContentError(
                file: "test", path: "rules[0].kind",
                reason: #"unknown fault kind "explode" (drop, delay, reject, wrongValue, badCRC, repeatCounter, silence, busOff)"#)
        ) {
            try FaultPlan(parsing: #"{"rules":[{"kind":"explode"}]}"#, source: "test")
        }
    }

    // MARK: - On a bus

    @Test(.timeLimit(.minutes(1))) func nodeOnVirtualBus() async throws {
        let profile = try TestVehicle.profile()
        let bus = VirtualCANBus()
        let vehiclePort = bus.makePort()
        let headPort = bus.makePort()
        let headFrames = headPort.receivedFrames()
        let node = SimulatedVehicleNode(simulation: VehicleSimulation(profile: profile), port: vehiclePort)
        let running = node.start()

        var head = HeadUnit(profile: profile)
        let command = try head.command([temperature: .number(26)])
        let frames = head.frames
        let confirmed = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                var checkers: [String: FrameChecker] = [:]
                var acknowledged = false
                var sent = false
                for await received in headFrames {
                    // The vehicle's first frame: it runs and receives, so the command can go.
                    if !sent {
                        headPort.send(command)
                        sent = true
                    }
                    switch frames.decodeFromVehicle(received.frame, checkers: &checkers) {
                    case let .acknowledgement(ack) where ack.accepted && ack.commandFrameID == TestVehicle.commandID:
                        acknowledged = true
                    case let .status(_, values, _) where acknowledged && values[temperature] == .number(26):
                        return true
                    default:
                        continue
                    }
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(3))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(confirmed, "ack and status within 3 s")
        #expect(node.state()[temperature] == .number(26))
        #expect(node.statistics().commandsApplied == 1)
        #expect(node.drainLog().contains { $0.kind == .applied })

        running.cancel()
        await running.value
        headPort.close()
        vehiclePort.close()
    }

    @Test(.timeLimit(.minutes(1))) func nodeStopsWhenThePortCloses() async throws {
        let bus = VirtualCANBus()
        let port = bus.makePort()
        let node = SimulatedVehicleNode(simulation: VehicleSimulation(profile: try TestVehicle.profile()), port: port)
        let running = node.start()
        // Cyclic status while running (waited for, not timed: a loaded machine is slow).
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while node.statistics().framesSent < 2, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(node.statistics().framesSent >= 2, "cyclic status while running")
        port.close()
        await running.value
    }
}

/// Found by FaultMatrixTests.randomMix: a wrongValue fault on a radio command that sets
/// band and frequency switched the band (FM -> AM) and kept an FM frequency, a state no
/// status frame can express, so the head unit could never converge on it.
@Suite struct WrongValueRadioTests {
    @Test func aWrongBandGetsATuningValidInIt() throws {
        let folder = ProfileFixture.repositoryRoot.appendingPathComponent("VehicleProfiles/sedan").path
        let profile = try ProfileLoader.load(directory: folder) { FileManager.default.contents(atPath: $0).map { Array($0) } }
        var car = VehicleSimulation(profile: profile, faults: FaultPlan([FaultRule(.wrongValue)]))
        var head = HeadUnit(profile: profile)
        let contents = head.read(car.receive(try head.command([.radioBand: .enumeration("FM"), .radioFrequency: .number(100.0)]), at: .zero))
        #expect(HeadUnit.acks(contents).first?.accepted == true)
        #expect(car.state[.radioBand] == .enumeration("AM"))
        let am = try #require(profile.radio?.band(.AM))
        let frequency = try #require(car.state[.radioFrequency]?.doubleValue)
        #expect(am.range.contains(frequency), "an AM frequency, not \(frequency)")
        // What the vehicle reports is what it holds.
        let status = try #require(HeadUnit.statuses(contents).first { $0[.radioFrequency] != nil })
        #expect(status[.radioFrequency]?.doubleValue == frequency)
    }
}

extension WrongValueRadioTests {
    /// Also found by the random mix: on AM, a wrongValue fault on "FM 92.9" stepped the
    /// frequency within the AM range (no step possible) and so applied it unchanged.
    @Test func aWrongFrequencyStepsWithinTheCommandedBand() throws {
        let folder = ProfileFixture.repositoryRoot.appendingPathComponent("VehicleProfiles/sedan").path
        let profile = try ProfileLoader.load(directory: folder) { FileManager.default.contents(atPath: $0).map { Array($0) } }
        var state = VehicleSimulation.defaultState(for: profile)
        state[.radioBand] = .enumeration("AM")
        state[.radioFrequency] = .number(880)
        var car = VehicleSimulation(profile: profile, state: state, faults: FaultPlan([FaultRule(.wrongValue, property: "radio.frequency")]))
        var head = HeadUnit(profile: profile)
        _ = head.read(car.receive(try head.command([.radioBand: .enumeration("FM"), .radioFrequency: .number(92.9)]), at: .zero))
        #expect(car.state[.radioBand] == .enumeration("FM"))
        let frequency = try #require(car.state[.radioFrequency]?.doubleValue)
        #expect(abs(frequency - 92.9) > 0.05 && profile.radio!.band(.FM)!.range.contains(frequency), "a wrong FM frequency, not \(frequency)")
    }
}
