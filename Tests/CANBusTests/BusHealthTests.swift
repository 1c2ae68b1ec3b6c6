import CANKit
import Testing

@testable import CANBus

/// Error frames as the kernel reports them (linux/can/error.h): class bits in the ID,
/// controller details in data[1].
@Suite struct BusHealthTests {
    func errorFrame(_ errorClass: UInt32, controller: UInt8 = 0) throws -> CANFrame {
        try CANFrame(id: CANID(errorClass, extended: true)!, data: [0, controller, 0, 0, 0, 0, 0, 0], isError: true)
    }

    @Test func controllerStatesFollowErrorFrames() throws {
        var health = BusHealth()
        #expect(health.state == .errorActive)
        health.apply(errorFrame: try errorFrame(0x004, controller: 0x08))  // TX warning
        #expect(health.state == .errorWarning)
        health.apply(errorFrame: try errorFrame(0x004, controller: 0x20))  // TX passive
        #expect(health.state == .errorPassive)
        health.apply(errorFrame: try errorFrame(0x040))  // bus-off
        #expect(health.state == .busOff)
        #expect(health.lastError == "bus-off")
        health.apply(errorFrame: try errorFrame(0x100))  // restarted
        #expect(health.state == .errorActive)
        #expect(health.restarts == 1)
        #expect(health.errorFrames == 4)
    }

    @Test func otherErrorClassesAreNamed() throws {
        var health = BusHealth()
        health.apply(errorFrame: try errorFrame(0x020 | 0x080))
        #expect(health.state == .errorActive)
        #expect(health.lastError == "no ACK, bus error")
        #expect(health.description.contains("1 error frames"))
    }
}
