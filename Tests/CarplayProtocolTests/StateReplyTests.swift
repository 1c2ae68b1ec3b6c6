import CANBus
import CANKit
import CarIntents
import CarplayJSON
import Testing

@testable import CarplayProtocol

/// A reply the daemon writes reads back as the same value: one description both ways.
@Suite struct StateReplyTests {
    @Test func getStateRoundTrips() throws {
        var health = BusHealth()
        health.state = .errorPassive
        health.droppedFrames = 3
        health.lastError = "ACK missing"
        let written = GetStateReply(
            state: ["climate.temperature.left": .number(21.5), "lock.locked": .bool(true)], reachable: true,
            bus: BusStatus(interface: "vcan0", kind: "socketcan", untrustedFrames: 2, health: health),
            unreadable: ["power.fuelPercent": "raw 255 maps to nothing"])
        let read = try GetStateReply(written.json)
        #expect(read.state == written.state && read.reachable && read.unreadable == written.unreadable)
        #expect(read.bus == written.bus)
        // Nothing unreadable: the member is absent, as the interface says.
        let whole = GetStateReply(state: [:], reachable: false, bus: written.bus, unreadable: [:])
        #expect(whole.json["unreadable"] == nil)
    }

    @Test func getBusTrafficRoundTrips() throws {
        let written = GetBusTrafficReply(
            messages: [
                .init(id: CANID(standard: 0x400), name: "ClimateStatus", received: 70, untrusted: 3, sent: 0, lastFrame: "(1.0) vcan0 400#01"),
                .init(id: CANID(extended: 0x18FE_F100), name: nil, received: 1, untrusted: 0, sent: 0, lastFrame: nil),
            ], uptime: 7.5)
        let read = try GetBusTrafficReply(written.json)
        #expect(read.messages == written.messages && read.uptime == 7.5)
    }

    @Test func aMemberOfTheWrongTypeNamesItsPath() {
        #expect(throws: JSONContentError.self) { try GetStateReply(["state": .object([:]), "reachable": .string("yes"), "bus": .object([:])]) }
    }
}

/// Monitor's two kinds of reply read back as written.
@Suite struct MonitorReplyTests {
    @Test func aChangeAndACommandRoundTrip() throws {
        let change = MonitorReply(keys: ["lock.locked"], state: ["lock.locked": .bool(true)], frame: "(1.000000) vcan0 430#01")
        let readChange = try MonitorReply(change.json)
        #expect(readChange.keys == ["lock.locked"] && readChange.state == change.state && readChange.frame == change.frame && readChange.command == nil)
        let failed = MonitorReply.Command(
            id: 7, intent: .setCarLockStatus, targets: ["lock.locked": .bool(true)], status: .failed, reason: "timeout", detail: "no status")
        let readCommand = try MonitorReply(MonitorReply(command: failed).json)
        #expect(readCommand.command == failed && readCommand.keys.isEmpty && readCommand.frame == nil)
        // Only `command` is present in a command's reply, as the interface says.
        #expect(Set(MonitorReply(command: failed).json.keys) == ["command"])
    }
}
