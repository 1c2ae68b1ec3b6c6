import CANKit
import Synchronization
import Testing
@testable import CANBus

@Suite struct VirtualCANBusTests {
    @Test func everyOtherPortReceivesEachFrameInOrder() async throws {
        let bus = VirtualCANBus(interface: "vcan9")
        let a = bus.makePort()
        let b = bus.makePort()
        let c = bus.makePort()
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
        let port = bus.makePort()
        await port.close()
        await #expect(throws: CANBusError.closed) {
            try await port.send(try CANFrame(id: CANID(standard: 1), data: []))
        }
        #expect(await bus.portCount == 0)
    }

    @Test func sendImmediatelyDeliversInOrderWithSend() async throws {
        let bus = VirtualCANBus(interface: "vcan8")
        let a = bus.makePort()
        let b = bus.makePort()
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

    /// A port that delivers directly gets each frame on the sender's thread before the
    /// send returns; frames that arrived before it attached stay in its stream, which
    /// then finishes; a receiver may send in turn; closing tells it.
    @Test func directDeliveryRunsTheReceiverBeforeSendReturns() async throws {
        let bus = VirtualCANBus(interface: "vcan7")
        let head = bus.makePort()
        let car = bus.makePort()
        let early = try CANFrame(id: CANID(standard: 0x01), data: [1])
        let command = try CANFrame(id: CANID(standard: 0x100), data: [2])
        let answer = try CANFrame(id: CANID(standard: 0x200), data: [3])
        _ = head.sendImmediately(early)  // before `car` attaches: stays in its stream
        let got = Mutex<[CANFrame]>([])
        let finished = Mutex(false)
        let attached = car.deliverDirectly(to: CANReceiver(
            frame: { received in
                got.withLock { $0.append(received.frame) }
                // Answer at once, as the simulated vehicle does.
                if received.frame.id == command.id { _ = car.sendImmediately(answer) }
            },
            finished: { finished.withLock { $0 = true } }))
        #expect(attached)
        var before: [CANFrame] = []
        for await received in car.frames { before.append(received.frame) }
        #expect(before == [early], "earlier frames stay in the stream, which finishes")
        #expect(car.deliverDirectly(to: CANReceiver(frame: { _ in })) == false, "once per port")
        _ = try #require(head.sendImmediately(command)).get()
        #expect(got.withLock { $0 } == [command], "received before the send returned")
        await head.close()
        var atHead: [CANFrame] = []
        for await received in head.frames { atHead.append(received.frame) }
        #expect(atHead == [answer], "the receiver's answer reached the sending port")
        #expect(finished.withLock { $0 } == false)
        await car.close()
        #expect(finished.withLock { $0 }, "closing the port tells the receiver")
    }

    @Test func timestampsNeverGoBackwards() async throws {
        let bus = VirtualCANBus(now: { CandumpTimestamp(seconds: 5, microseconds: 0) })
        let a = bus.makePort()
        let first = try await a.send(try CANFrame(id: CANID(standard: 1), data: []))
        let second = try await a.send(try CANFrame(id: CANID(standard: 2), data: []))
        #expect(first.timestamp <= second.timestamp)
        #expect(first.logLine == "(0000000005.000000) vcan0 001#")
    }
}
