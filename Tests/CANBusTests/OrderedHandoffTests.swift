import CANKit
import Foundation
import Synchronization
import Testing
@testable import CANBus

@Suite struct OrderedHandoffTests {
    static func frame(_ index: Int) throws -> CANFrame { try CANFrame(id: CANID(standard: 0x400), data: [UInt8(index)]) }

    /// Frames buffered before the switch to direct delivery, and frames that arrive while
    /// they are still being handled, reach the handler in the order they were sent.
    @Test func theBufferedFramesComeFirstAndNothingOvertakes() async throws {
        let bus = VirtualCANBus()
        let sender = bus.makePort()
        let port = bus.makePort()
        for index in 0..<40 { try await sender.send(Self.frame(index)) }  // in port's stream
        let handled = Mutex<[Int]>([])
        let handoff = OrderedHandoff { received in
            // Slow, so that direct frames arrive while the buffered ones are handled.
            usleep(500)
            handled.withLock { $0.append(Int(received.frame.data[0])) }
        }
        let stream = port.frames
        #expect(port.deliverDirectly(to: handoff.receiver(finished: {})))
        let sending = Task {
            for index in 40..<120 { _ = try? await sender.send(Self.frame(index)) }
        }
        await handoff.drain(stream)
        await sending.value
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
