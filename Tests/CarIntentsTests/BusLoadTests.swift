import CANKit
import Testing
import VehicleKit
import VehicleSimulator

/// The rest of a real car's bus (`carplay-ecu --bus-load`): every DBC message that
/// neither end of the profile sends, each at its period.
@Suite struct BusLoadTests {
    @Test func theLoadIsEveryOtherMessageAtItsCycleTime() throws {
        let profile = try ShippedProfiles.load("hyundai-mcan")
        let load = BusLoad(profile: profile)
        let frames = VehicleFrames(profile: profile)
        let names = Set(load.messages.map(\.name))
        #expect(names.isDisjoint(with: frames.statusMessages.keys), "the simulated vehicle sends its status messages")
        #expect(names.isDisjoint(with: frames.commandMessages), "carplayd sends the commands")
        #expect(load.messages.count + frames.statusMessages.count + frames.commandMessages.count <= profile.database.messages.count)
        #expect(load.messages.count > 20, "a real car's DBC: \(load.messages.count) more messages")
        for message in load.messages {
            let dbc = try #require(profile.database.message(named: message.name))
            #expect(message.period == (profile.cycleTime(of: dbc) ?? BusLoad.defaultPeriod), "\(message.name)")
            #expect(message.frame.id == dbc.canID && message.frame.data.count == dbc.length)
        }
    }

    /// Over one second each message goes out once per period; a sender that stalled
    /// skips what it missed instead of bursting it.
    @Test func theScheduleSendsEachMessageOncePerPeriod() throws {
        let load = BusLoad(profile: try ShippedProfiles.load("gm-global-a-lowspeed"))
        var schedule = load.schedule()
        var sent: [CANID: Int] = [:]
        var now = Duration.zero
        while now < .seconds(1) {
            for frame in schedule.frames(at: now) { sent[frame.id, default: 0] += 1 }
            now += .milliseconds(1)
        }
        for message in load.messages {
            let expected = Int((Duration.seconds(1) / message.period).rounded(.up))
            #expect(abs((sent[message.frame.id] ?? 0) - expected) <= 1, "\(message.name): \(sent[message.frame.id] ?? 0) frames, period \(message.period)")
        }
        let total = sent.values.reduce(0, +)
        #expect(abs(Double(total) - load.framesPerSecond) <= Double(load.messages.count), "\(total) frames in 1 s, \(load.framesPerSecond)/s planned")
        // Ten seconds late: each message once, not ten seconds' worth.
        #expect(schedule.frames(at: .seconds(11)).count == load.messages.count)
        #expect((schedule.nextDue ?? .zero) > .seconds(11))
    }
}

/// vcan has no bit rate; `--bitrate` keeps the load one the car's real bus could carry.
@Suite struct BusLoadBitrateTests {
    /// The worst-case lengths of classic frames, stuff bits and intermission included
    /// (the 135 and 160 bits of an 8-byte standard and extended frame in CAN literature).
    @Test func aFrameTakesItsWorstCaseBitsOnTheWire() throws {
        #expect(BusLoad.bitsOnWire(try CANFrame(id: CANID(standard: 0x123), data: [UInt8](repeating: 0, count: 8))) == 135)
        #expect(BusLoad.bitsOnWire(try CANFrame(id: CANID(extended: 0x1234_5678), data: [UInt8](repeating: 0, count: 8))) == 160)
        #expect(BusLoad.bitsOnWire(try CANFrame(id: CANID(standard: 0x123), data: [])) == 55)
        let fd = try CANFrame(id: CANID(standard: 0x123), data: [UInt8](repeating: 0, count: 64), kind: .fd(bitRateSwitch: false, errorStateIndicator: false))
        #expect(BusLoad.bitsOnWire(fd) > 8 * 64 + 55, "an FD frame's payload and its longer CRC")
    }

    /// GM's low-speed bus (33.3 kbit/s) gives no cycle times: 100 ms for each of its
    /// hundreds of messages would be many times what it carries. Fitted, every guessed
    /// period is lengthened by one factor, to half of the bus.
    @Test func guessedPeriodsAreLengthenedToHalfOfASlowBus() throws {
        let profile = try ShippedProfiles.load("gm-global-a-lowspeed")
        let load = BusLoad(profile: profile)
        for message in load.messages {
            let dbc = try #require(profile.database.message(named: message.name))
            #expect(message.periodIsAssumed == (profile.cycleTime(of: dbc) == nil), "\(message.name)")
        }
        #expect(load.share(ofBitrate: 33_333) > 2, "as planned: \(load.share(ofBitrate: 33_333))")
        let fitted = load.fitted(toBitrate: 33_333)
        let share = fitted.share(ofBitrate: 33_333)
        #expect(share <= BusLoad.targetShare && share > BusLoad.targetShare * 0.95, "fitted: \(share)")
        #expect(fitted.messages.map(\.name) == load.messages.map(\.name))
        let periods = Set(fitted.messages.filter(\.periodIsAssumed).map(\.period))
        #expect(periods.count == 1 && periods.first! > BusLoad.defaultPeriod, "one lengthened period: \(periods)")
    }

    /// A load that fits is sent as planned.
    @Test func aLoadThatFitsIsKept() throws {
        let load = BusLoad(profile: try ShippedProfiles.load("gm-global-a-lowspeed"))
        let bitrate = Int((load.share(ofBitrate: 1) / BusLoad.targetShare).rounded(.up))
        #expect(load.fitted(toBitrate: bitrate).messages == load.messages)
        #expect(load.fitted(toBitrate: bitrate - 1000).messages != load.messages)
    }
}
