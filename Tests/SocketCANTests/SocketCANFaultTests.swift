import CANBus
import CANKit
import Foundation
import LinuxSupport
import Synchronization
import Testing
@testable import SocketCAN

#if canImport(Glibc)
import Glibc
#endif

/// A CAN link the test controls: up or down, frames to deliver, and sends to fail.
/// Stands in for the kernel through `CANSocketOpener` where vcan cannot produce the
/// fault (a full transmit queue, controller error frames).
final class FakeCANLink: Sendable {
    struct State {
        var up = true
        var pending: [RawCANReception] = []
        /// Errors the next sends throw, in order (ENOBUFS: the transmit queue is full).
        var sendErrors: [Int32] = []
        var attempts = 0
        var sent: [RawCANFrame] = []
        var opened = 0
    }

    let state = Mutex(State())

    var opener: CANSocketOpener {
        CANSocketOpener(
            open: { [self] (_: String, _: Bool) throws(Errno) -> any CANSocketIO in
                let up = state.withLock { state -> Bool in
                    if state.up { state.opened += 1 }
                    return state.up
                }
                guard up else { throw Errno(ENETDOWN) }
                return FakeCANSocket(link: self)
            },
            exists: { [self] _ in state.withLock { $0.up } })
    }

    func inject(canID: UInt32, data: [UInt8]) {
        state.withLock {
            $0.pending.append(RawCANReception(frame: RawCANFrame(canID: canID, data: data, isFD: false, fdFlags: 0), seconds: 1, microseconds: 0, dropped: 0))
        }
    }

    func failNextSends(_ count: Int, with error: Int32 = ENOBUFS) {
        state.withLock { $0.sendErrors += Array(repeating: error, count: count) }
    }

    func setUp(_ up: Bool) { state.withLock { $0.up = up } }
}

/// One open socket on a `FakeCANLink`: throws ENETDOWN while the link is down, as the
/// kernel does after `ip link set ... down`.
struct FakeCANSocket: CANSocketIO {
    let link: FakeCANLink

    func setFilters(_ filters: [CANFilter]) throws(Errno) {}

    func send(_ frame: RawCANFrame) throws(Errno) {
        let error = link.state.withLock { state -> Int32? in
            state.attempts += 1
            guard state.up else { return ENETDOWN }
            if !state.sendErrors.isEmpty { return state.sendErrors.removeFirst() }
            state.sent.append(frame)
            return nil
        }
        if let error { throw Errno(error) }
    }

    func receive() throws(Errno) -> RawCANReception {
        let next = link.state.withLock { state -> RawCANReception? in state.pending.isEmpty ? nil : state.pending.removeFirst() }
        guard let next else { throw Errno(EAGAIN) }
        return next
    }

    func wait(wake: FileDescriptor?, timeoutMilliseconds: Int32) throws(Errno) -> CANSocket.Readiness {
        // Polls the fake link in short steps (this runs on the port's reader thread).
        var waited: Int32 = 0
        while waited < min(timeoutMilliseconds, 20) {
            let (up, ready) = link.state.withLock { ($0.up, !$0.pending.isEmpty) }
            guard up else { throw Errno(ENETDOWN) }
            if ready { return .readable }
            usleep(2000)
            waited += 2
        }
        return .timeout
    }

    func close() {}
}

/// Waits on a condition with a generous deadline (no fixed sleeps).
func eventually(_ seconds: Double = 10, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}

/// The SocketCAN port's fault handling, through its socket seam: a full transmit queue
/// (ENOBUFS), controller error frames, the interface going down and coming back.
@Suite struct SocketCANFaultTests {
    let frame = try! CANFrame(id: CANID(standard: 0x300), data: [1, 2, 3])

    @Test func aFullTransmitQueueIsRetriedAFewTimes() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        defer { Task { await port.close() } }
        link.failNextSends(3)
        try await port.send(frame)
        let (attempts, sent) = link.state.withLock { ($0.attempts, $0.sent.count) }
        #expect(attempts == 4, "three ENOBUFS, then the frame went out")
        #expect(sent == 1)
    }

    @Test func aQueueThatStaysFullFailsClearlyAndRecovers() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        defer { Task { await port.close() } }
        link.failNextSends(SocketCANPort.transmitRetries + 5)
        await #expect(throws: CANBusError.transmitQueueFull) { try await port.send(frame) }
        // Bounded: the first attempt plus `transmitRetries` retries, no more.
        #expect(link.state.withLock { $0.attempts } == SocketCANPort.transmitRetries + 1)
        #expect(CANBusError.transmitQueueFull.description == "the CAN transmit queue is full")
        // The queue drains: later sends go out again.
        link.state.withLock { $0.sendErrors.removeAll() }
        try await port.send(frame)
        #expect(link.state.withLock { $0.sent.count } == 1)
    }

    /// `sendImmediately` tries once: nil on a full queue (the caller then uses `send`,
    /// which retries), the frame when it went out, an error when the link is down.
    @Test func sendImmediatelyTriesOnce() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        defer { Task { await port.close() } }
        link.failNextSends(1)
        #expect(port.sendImmediately(frame) == nil, "full queue: no result, no retry")
        #expect(link.state.withLock { $0.attempts } == 1)
        #expect(try port.sendImmediately(frame)?.get().frame == frame)
        #expect(link.state.withLock { $0.sent.count } == 1)
        link.failNextSends(1, with: ENETDOWN)
        #expect(port.sendImmediately(frame).map { if case .failure(.interfaceDown("fake0")) = $0 { true } else { false } } == true)
    }

    /// With a direct receiver the reader thread hands it each frame (none reach the
    /// stream, which finishes); closing the port tells the receiver.
    @Test func directDeliveryFromTheReaderThread() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        let got = Mutex<[CANFrame]>([])
        let finished = Mutex(false)
        #expect(port.deliverDirectly(to: CANReceiver(
            frame: { received in got.withLock { $0.append(received.frame) } },
            finished: { finished.withLock { $0 = true } })))
        var early: [ReceivedFrame] = []
        for await received in port.frames { early.append(received) }
        #expect(early.isEmpty, "the stream finished once the receiver was attached")
        link.inject(canID: 0x123, data: [7, 8])
        link.inject(canID: 0x124, data: [9])
        #expect(await eventually { got.withLock { $0.count } == 2 })
        #expect(got.withLock { $0.map(\.id.rawValue) } == [0x123, 0x124])
        #expect(got.withLock { $0.first?.data } == [7, 8])
        await port.close()
        #expect(finished.withLock { $0 })
    }

    @Test func otherSendErrorsAreNotRetried() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        defer { Task { await port.close() } }
        link.failNextSends(1, with: EINVAL)
        await #expect(throws: CANBusError.self) { try await port.send(frame) }
        #expect(link.state.withLock { $0.attempts } == 1)
    }

    @Test func errorFramesDriveTheBusHealth() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        defer { Task { await port.close() } }
        var frames = port.frames.makeAsyncIterator()
        let errorFlag = RawCANFrame.errorFlag
        // Error-passive (controller problem, data[1] = TX passive).
        link.inject(canID: errorFlag | 0x004, data: [0, 0x20, 0, 0, 0, 0, 0, 0])
        let first = await frames.next()
        #expect(first?.frame.isError == true)
        #expect(await port.health().state == .errorPassive)
        link.inject(canID: errorFlag | 0x040, data: [0, 0, 0, 0, 0, 0, 0, 0])
        _ = await frames.next()
        let busOff = await port.health()
        #expect(busOff.state == .busOff)
        #expect(busOff.lastError == "bus-off")
        link.inject(canID: errorFlag | 0x100, data: [0, 0, 0, 0, 0, 0, 0, 0])
        _ = await frames.next()
        let restarted = await port.health()
        #expect(restarted.state == .errorActive)
        #expect(restarted.restarts == 1)
        #expect(restarted.errorFrames == 3)
        // Ordinary frames still flow after the restart.
        link.inject(canID: 0x400, data: [1, 2])
        let data = await frames.next()
        #expect(data?.frame.id == CANID(standard: 0x400))
        #expect(data?.frame.isError == false)
    }

    @Test func theInterfaceGoesDownAndComesBack() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        defer { Task { await port.close() } }
        link.setUp(false)
        #expect(await eventually { await port.health().state == .down }, "the reader notices the link is down")
        await #expect(throws: CANBusError.interfaceDown("fake0")) { try await port.send(frame) }
        link.setUp(true)
        #expect(await eventually { await port.health().state == .errorActive }, "reopened after backoff")
        #expect(await port.health().restarts >= 1)
        #expect(link.state.withLock { $0.opened } >= 2)
        try await port.send(frame)
        #expect(link.state.withLock { $0.sent.count } == 1)
    }

    @Test func closeStopsTheReaderThread() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        await port.close()
        await #expect(throws: CANBusError.closed) { try await port.send(frame) }
        var iterator = port.frames.makeAsyncIterator()
        #expect(await iterator.next() == nil, "the frame stream finished")
    }
}
