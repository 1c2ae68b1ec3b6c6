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
