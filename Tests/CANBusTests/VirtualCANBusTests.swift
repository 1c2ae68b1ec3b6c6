import CANKit
import Synchronization
import Testing

@testable import CANBus

@Suite struct VirtualCANBusTests {
    /// Frames a port received, by a receiver that keeps them.
    final class Inbox: Sendable {
        private let frames = Mutex<[CANFrame]>([])
        private let finished = Mutex(false)
        var received: [CANFrame] { frames.withLock { $0 } }
        var isFinished: Bool { finished.withLock { $0 } }
        var receiver: CANReceiver {
            CANReceiver(
                frame: { [self] received in frames.withLock { $0.append(received.frame) } },
                finished: { [self] in finished.withLock { $0 = true } })
        }
    }

    static func inbox(_ port: some CANPort) -> Inbox {
        let inbox = Inbox()
        port.startReceiving(inbox.receiver)
        return inbox
    }

    @Test func everyOtherPortReceivesEachFrameInOrder() async throws {
        let bus = VirtualCANBus(interface: "vcan9")
        let a = bus.makePort()
        let b = bus.makePort()
        let c = bus.makePort()
        let (atA, atB, atC) = (Self.inbox(a), Self.inbox(b), Self.inbox(c))
        let frame1 = try CANFrame(id: CANID(standard: 0x123), data: [1, 2])
        let frame2 = try CANFrame(id: CANID(extended: 0x1234567), data: [3])
        let sent = a.send(frame1)
        #expect(sent.frame?.interface == "vcan9")
        guard case .sent = sent else {
            Issue.record("the in-process bus sends at once: \(sent)")
            return
        }
        b.send(frame2)
        #expect(atA.received == [frame2], "not its own")
        #expect(atB.received == [frame1])
        #expect(atC.received == [frame1, frame2])
        a.close()
        #expect(atA.isFinished, "closing tells the receiver")
        #expect(!atB.isFinished)
        b.close()
        c.close()
    }

    @Test func closedPortCannotSend() throws {
        let bus = VirtualCANBus()
        let port = bus.makePort()
        port.close()
        #expect(port.send(try CANFrame(id: CANID(standard: 1), data: [])) == .failed(.closed))
        #expect(bus.portCount == 0)
    }

    /// A port hears only what is sent once it receives; a receiver runs on the sender's
    /// thread before the send returns, and may send in turn.
    @Test func theReceiverRunsBeforeSendReturns() async throws {
        let bus = VirtualCANBus(interface: "vcan7")
        let head = bus.makePort()
        let car = bus.makePort()
        let atHead = Self.inbox(head)
        let early = try CANFrame(id: CANID(standard: 0x01), data: [1])
        let command = try CANFrame(id: CANID(standard: 0x100), data: [2])
        let answer = try CANFrame(id: CANID(standard: 0x200), data: [3])
        head.send(early)  // before `car` receives: not delivered to it
        let got = Mutex<[CANFrame]>([])
        car.startReceiving(
            CANReceiver(frame: { received in
                got.withLock { $0.append(received.frame) }
                // Answer at once, as the simulated vehicle does.
                if received.frame.id == command.id { car.send(answer) }
            }))
        head.send(command)
        #expect(got.withLock { $0 } == [command], "received before the send returned, not the early frame")
        #expect(atHead.received == [answer], "the receiver's answer reached the sending port")
        head.close()
        car.close()
    }

    @Test func aStreamReceiverEndsWithThePort() async throws {
        let bus = VirtualCANBus()
        let a = bus.makePort()
        let b = bus.makePort()
        let frames = b.receivedFrames()
        let frame = try CANFrame(id: CANID(standard: 0x42), data: [4])
        a.send(frame)
        b.close()
        var received: [CANFrame] = []
        for await item in frames { received.append(item.frame) }
        #expect(received == [frame])
        a.close()
    }

    @Test func timestampsNeverGoBackwards() throws {
        let bus = VirtualCANBus(now: { CandumpTimestamp(seconds: 5, microseconds: 0) })
        let a = bus.makePort()
        let first = try #require(a.send(try CANFrame(id: CANID(standard: 1), data: [])).frame)
        let second = try #require(a.send(try CANFrame(id: CANID(standard: 2), data: [])).frame)
        #expect(first.timestamp <= second.timestamp)
        #expect(first.logLine == "(0000000005.000000) vcan0 001#")
    }
}
