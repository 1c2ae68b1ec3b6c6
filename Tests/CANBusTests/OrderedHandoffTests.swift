import CANKit
import Foundation
import Synchronization
import Testing
@testable import CANBus

@Suite struct OrderedHandoffTests {
    static func frame(_ index: Int) throws -> CANFrame { try CANFrame(id: CANID(standard: 0x400), data: [UInt8(index)]) }

    /// Frames buffered before the switch to direct delivery, and frames that arrive while
    /// they are still being handled, reach the handler in the order they were sent. The
    /// first buffered frame is held until another thread has sent 80 more (direct), so
    /// they certainly arrive mid-drain; without the hand-off they would be handled first.
    @Test func theBufferedFramesComeFirstAndNothingOvertakes() async throws {
        let bus = VirtualCANBus()
        let sender = bus.makePort()
        let port = bus.makePort()
        for index in 0..<40 { try await sender.send(Self.frame(index)) }  // in port's stream
        let handled = Mutex<[Int]>([])
        let directSent = DispatchSemaphore(value: 0)
        let handoff = OrderedHandoff { received in
            let index = Int(received.frame.data[0])
            if index == 0 { directSent.wait() }
            handled.withLock { $0.append(index) }
        }
        let stream = port.frames
        #expect(port.deliverDirectly(to: handoff.receiver(finished: {})))
        let frames = try (40..<120).map(Self.frame)
        Thread {
            for frame in frames { _ = sender.sendImmediately(frame) }
            directSent.signal()
        }.start()
        await handoff.drain(stream)
        for index in 120..<130 { try await sender.send(Self.frame(index)) }  // direct, after the switch
        #expect(handled.withLock { $0 } == Array(0..<130))
        await sender.close()
        await port.close()
    }

    @Test func withNothingBufferedFramesGoStraightThrough() async throws {
        let bus = VirtualCANBus()
        let sender = bus.makePort()
        let port = bus.makePort()
        let handled = Mutex(0)
        let finished = Mutex(false)
        let handoff = OrderedHandoff { _ in handled.withLock { $0 += 1 } }
        let stream = port.frames
        #expect(port.deliverDirectly(to: handoff.receiver(finished: { finished.withLock { $0 = true } })))
        await handoff.drain(stream)
        try await sender.send(try CANFrame(id: CANID(standard: 1), data: [1]))
        #expect(handled.withLock { $0 } == 1, "handled on the sender's thread, before send returned")
        await port.close()
        #expect(finished.withLock { $0 })
        await sender.close()
    }
}
