import CANKit
import Testing
@testable import CANBus

@Suite struct VirtualCANBusTests {
    @Test func everyOtherPortReceivesEachFrameInOrder() async throws {
        let bus = VirtualCANBus(interface: "vcan9")
        let a = await bus.makePort()
        let b = await bus.makePort()
        let c = await bus.makePort()
        let frame1 = try CANFrame(id: CANID(standard: 0x123), data: [1, 2])
        let frame2 = try CANFrame(id: CANID(extended: 0x1234567), data: [3])
        let sent = try await a.send(frame1)
        #expect(sent.interface == "vcan9")
        try await b.send(frame2)
        await a.close()
        await b.close()
        await c.close()
        var atA: [CANFrame] = []
        for await received in a.frames { atA.append(received.frame) }
        var atB: [CANFrame] = []
        for await received in b.frames { atB.append(received.frame) }
        var atC: [CANFrame] = []
        for await received in c.frames { atC.append(received.frame) }
        #expect(atA == [frame2])       // not its own
        #expect(atB == [frame1])
        #expect(atC == [frame1, frame2])
    }

    @Test func closedPortCannotSend() async throws {
        let bus = VirtualCANBus()
        let port = await bus.makePort()
        await port.close()
        await #expect(throws: CANBusError.closed) {
            try await port.send(try CANFrame(id: CANID(standard: 1), data: []))
        }
        #expect(await bus.portCount == 0)
    }

    @Test func sendImmediatelyDeliversInOrderWithSend() async throws {
        let bus = VirtualCANBus(interface: "vcan8")
        let a = await bus.makePort()
        let b = await bus.makePort()
        let frame1 = try CANFrame(id: CANID(standard: 0x10), data: [1])
        let frame2 = try CANFrame(id: CANID(standard: 0x20), data: [2])
        let frame3 = try CANFrame(id: CANID(standard: 0x30), data: [3])
        let immediate = try #require(a.sendImmediately(frame1), "the in-process bus sends synchronously")
        #expect(try immediate.get().frame == frame1)
        try await a.send(frame2)
        #expect(try a.sendImmediately(frame3)?.get().interface == "vcan8")
        await a.close()
        #expect(a.sendImmediately(frame1).map { result in if case .failure(.closed) = result { true } else { false } } == true)
        await b.close()
        var atB: [CANFrame] = []
        for await received in b.frames { atB.append(received.frame) }
        var atA: [CANFrame] = []
        for await received in a.frames { atA.append(received.frame) }
        #expect(atB == [frame1, frame2, frame3])
        #expect(atA.isEmpty)  // not its own
    }

    @Test func timestampsNeverGoBackwards() async throws {
        let bus = VirtualCANBus(now: { CandumpTimestamp(seconds: 5, microseconds: 0) })
        let a = await bus.makePort()
        let first = try await a.send(try CANFrame(id: CANID(standard: 1), data: []))
        let second = try await a.send(try CANFrame(id: CANID(standard: 2), data: []))
        #expect(first.timestamp <= second.timestamp)
        #expect(first.logLine == "(0000000005.000000) vcan0 001#")
    }
}
