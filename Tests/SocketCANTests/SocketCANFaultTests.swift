import CANBus
import CANKit
import EventLoops
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
/// fault (a full transmit queue, controller error frames). As the kernel does, a socket
/// opens on a link that is down (the interface exists) and reports ENETDOWN at once.
/// Each socket's descriptor is an eventfd, readable (for the port's event loop) while
/// frames wait or the link is down.
final class FakeCANLink: Sendable {
    struct State {
        var up = true
        var opensWhileDown = 0
        /// The thread (its name) that closed each socket.
        var closedOn: [String] = []
        var pending: [RawCANReception] = []
        /// Errors the next sends throw, in order (ENOBUFS: the transmit queue is full).
        var sendErrors: [Int32] = []
        var attempts = 0
        var sent: [RawCANFrame] = []
        var opened = 0
        /// The kernel filters each socket was given, by its number.
        var filters: [Int: [CANFilter]] = [:]
        /// The readiness of each socket that is open, by its number.
        var readiness: [Int: Readiness] = [:]
    }

    let state = Mutex(State())

    var opener: CANSocketOpener {
        CANSocketOpener(
            open: { [self] (_: String, _: Bool) throws(Errno) -> any CANSocketIO in
                let readiness = try Readiness()
                let number = state.withLock { state in
                    state.opened += 1
                    if !state.up {
                        state.opensWhileDown += 1
                        readiness.signal()
                    }
                    state.readiness[state.opened] = readiness
                    return state.opened
                }
                return FakeCANSocket(link: self, number: number, descriptor: readiness.descriptor)
            },
            exists: { _ in true })
    }

    func inject(canID: UInt32, data: [UInt8]) { inject([(canID, data)]) }

    /// Frames that arrive together: one receive takes them all.
    func inject(_ frames: [(canID: UInt32, data: [UInt8])]) {
        state.withLock { state in
            for (canID, data) in frames {
                state.pending.append(
                    RawCANReception(frame: RawCANFrame(canID: canID, data: data, isFD: false, fdFlags: 0), seconds: 1, microseconds: 0, dropped: 0))
            }
            for readiness in state.readiness.values { readiness.signal() }
        }
    }

    func failNextSends(_ count: Int, with error: Int32 = ENOBUFS) {
        state.withLock { $0.sendErrors += Array(repeating: error, count: count) }
    }

    func setUp(_ up: Bool) {
        state.withLock { state in
            state.up = up
            // Down: every socket reports its error (readable); up: what waits shows again.
            if !up || !state.pending.isEmpty { for readiness in state.readiness.values { readiness.signal() } }
        }
    }
}

/// One open socket on a `FakeCANLink`: throws ENETDOWN while the link is down, as the
/// kernel does after `ip link set ... down`.
struct FakeCANSocket: CANSocketIO {
    let link: FakeCANLink
    /// Which open of the link this socket is (1 = the first).
    let number: Int
    let descriptor: FileDescriptor

    func setFilters(_ filters: [CANFilter]) throws(Errno) { link.state.withLock { $0.filters[number] = filters } }

    func filters() throws(Errno) -> [CANFilter] { link.state.withLock { $0.filters[number] ?? [] } }

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

    func receive(upTo limit: Int) throws(Errno) -> [RawCANReception] {
        // What waits, never a wait (the port's event loop saw the descriptor readable).
        // Readable stays true exactly while frames wait or the link is down.
        let (up, batch) = link.state.withLock { state -> (Bool, [RawCANReception]) in
            guard state.up else { return (false, []) }
            let batch = Array(state.pending.prefix(limit))
            state.pending.removeFirst(batch.count)
            if state.pending.isEmpty { state.readiness[number]?.consume() }
            return (true, batch)
        }
        guard up else { throw Errno(ENETDOWN) }
        if batch.isEmpty { throw Errno(EAGAIN) }
        return batch
    }

    func close() {
        let thread = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
        let readiness = link.state.withLock { state in
            state.closedOn.append(thread.trimmingCharacters(in: .whitespacesAndNewlines))
            return state.readiness.removeValue(forKey: number)
        }
        readiness?.close()
    }
}

/// A pipe that stands for a socket's readiness: its read end (`descriptor`) is readable
/// from `signal` until `consume`.
struct Readiness: Sendable {
    let descriptor: FileDescriptor
    private let writeEnd: Int32

    init() throws(Errno) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw Errno(errno) }
        for end in ends { _ = fcntl(end, F_SETFL, O_NONBLOCK) }
        descriptor = FileDescriptor(rawValue: ends[0])
        writeEnd = ends[1]
    }

    func signal() {
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)
    }

    func consume() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while read(descriptor.rawValue, &bytes, bytes.count) > 0 {}
    }

    func close() {
        descriptor.close()
        _ = Glibc.close(writeEnd)
    }
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

    /// ENOBUFS: the frame waits in the port's write queue (`queued`) and the reader
    /// thread sends it once the kernel takes frames again; a frame sent meanwhile goes
    /// behind it.
    @Test func aFullTransmitQueueQueuesTheFrameInOrder() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        link.failNextSends(3)
        let second = try CANFrame(id: CANID(standard: 0x301), data: [4])
        guard case .queued(let queued) = port.send(frame), queued.frame == frame else {
            Issue.record("a full kernel queue queues the frame")
            return
        }
        guard case .queued = port.send(second) else {
            Issue.record("behind a queued frame, a frame is queued too (order)")
            return
        }
        #expect(await eventually { link.state.withLock { $0.sent.count } == 2 })
        let sent = link.state.withLock { $0.sent.map(\.canID) }
        #expect(sent == [0x300, 0x301], "in the order they were sent")
        #expect(port.queuedFrames == 0)
        guard case .sent = port.send(frame) else {
            Issue.record("sent at once once the queue is empty")
            return
        }
        await port.close()
    }

    /// While the write queue is worked off, frames go on arriving (a reader thread once
    /// spun on the send's wake-up for ever and read nothing).
    @Test func framesStillArriveAfterAQueuedSend() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        let got = Mutex<[UInt32]>([])
        port.startReceiving(CANReceiver(frame: { received in got.withLock { $0.append(received.frame.id.rawValue) } }, finished: {}))
        link.failNextSends(1)
        guard case .queued = port.send(frame) else {
            Issue.record("a full kernel queue queues the frame")
            return
        }
        #expect(await eventually { link.state.withLock { $0.sent.count } == 1 })
        link.inject(canID: 0x123, data: [1])
        #expect(await eventually(2) { got.withLock { $0 } == [0x123] }, "the frame after the wake-up is read")
        await port.close()
    }

    /// A queue that stays full: the retries give up after a bounded number of tries and
    /// say so in the bus health.
    @Test func aQueueThatStaysFullIsDroppedClearlyAndRecovers() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        link.failNextSends(CANWriteQueue.maxAttempts + 1)
        guard case .queued = port.send(frame) else {
            Issue.record("queued")
            return
        }
        #expect(await eventually { port.queuedFrames == 0 })
        #expect(link.state.withLock { $0.attempts } == CANWriteQueue.maxAttempts + 1, "the send and maxAttempts tries, no more")
        #expect(link.state.withLock { $0.sent.count } == 0)
        #expect(port.health().lastError == "the CAN transmit queue stayed full: 1 queued frames dropped")
        #expect(CANBusError.transmitQueueFull.description == "the CAN transmit queue is full")
        // The kernel takes frames again: sends go out at once.
        link.state.withLock { $0.sendErrors.removeAll() }
        guard case .sent = port.send(frame) else {
            Issue.record("sent at once after recovery")
            return
        }
        #expect(link.state.withLock { $0.sent.count } == 1)
        await port.close()
    }

    @Test func theWriteQueueIsBounded() {
        var queue = CANWriteQueue()
        var taken = 0
        for _ in 0...CANWriteQueue.capacity where queue.enqueue(frame) { taken += 1 }
        #expect(taken == CANWriteQueue.capacity, "one more is refused: full")
        let first = queue.flush { _ in .full }
        #expect(first == .waiting(retryMilliseconds: 2))
        let second = queue.flush { _ in .full }
        #expect(second == .waiting(retryMilliseconds: 4), "a little later each time")
        var written = 0
        let last = queue.flush { _ in
            written += 1
            return written <= 3 ? .written : .failed("gone")
        }
        #expect(last == .dropped(count: CANWriteQueue.capacity - 3, reason: "gone"))
        #expect(queue.isEmpty)
    }

    /// The loop thread hands the receiver each frame, in order; closing the port tells
    /// the receiver.
    @Test func theLoopDeliversToTheReceiver() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        let got = Mutex<[CANFrame]>([])
        let finished = Mutex(false)
        port.startReceiving(
            CANReceiver(
                frame: { received in got.withLock { $0.append(received.frame) } },
                finished: { finished.withLock { $0 = true } }))
        link.inject(canID: 0x123, data: [7, 8])
        link.inject(canID: 0x124, data: [9])
        #expect(await eventually { got.withLock { $0.count } == 2 })
        #expect(got.withLock { $0.map(\.id.rawValue) } == [0x123, 0x124])
        #expect(got.withLock { $0.first?.data } == [7, 8])
        await port.close()
        #expect(finished.withLock { $0 })
    }

    /// What one receive brought reaches the receiver in one call (one lock, one clock
    /// read for the head unit), in bus order.
    @Test func framesThatArriveTogetherAreHandedOverTogether() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        let batches = Mutex<[[UInt32]]>([])
        port.startReceiving(
            CANReceiver(
                frame: { received in batches.withLock { $0.append([received.frame.id.rawValue]) } },
                frames: { received in batches.withLock { $0.append(received.map(\.frame.id.rawValue)) } }))
        link.inject([(0x101, [1]), (0x102, [2]), (0x103, [3])])
        #expect(await eventually { batches.withLock { $0.flatMap { $0 }.count } == 3 })
        #expect(batches.withLock { $0 } == [[0x101, 0x102, 0x103]])
        await port.close()
    }

    /// The kernel filters for the profile's IDs are on every socket the port opens: the
    /// first, and each reopen after the interface came back.
    @Test func everySocketGetsTheFilters() async throws {
        let link = FakeCANLink()
        let ids = [CANID(standard: 0x3A0), try #require(CANID(0x18DA_F110, extended: true))]
        let port = try SocketCANPort(interface: "fake0", fd: false, acceptedIDs: ids, io: link.opener)
        let expected = [
            CANFilter(id: 0x3A0, mask: 0x7FF | RawCANFrame.extendedFlag | RawCANFrame.remoteFlag),
            CANFilter(id: 0x18DA_F110 | RawCANFrame.extendedFlag, mask: 0x1FFF_FFFF | RawCANFrame.extendedFlag | RawCANFrame.remoteFlag),
        ]
        #expect(port.installedFilters() == expected)
        link.setUp(false)
        #expect(await eventually { port.health().state == .down })
        link.setUp(true)
        #expect(await eventually { port.health().state == .errorActive && link.state.withLock { $0.opened } >= 2 })
        #expect(port.installedFilters() == expected, "the reopened socket has them too")
        let (filters, opened) = link.state.withLock { ($0.filters, $0.opened) }
        for number in 1...opened { #expect(filters[number] == expected, "socket \(number)") }
        await port.close()
    }

    @Test func otherSendErrorsAreNotRetried() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        link.failNextSends(1, with: EINVAL)
        guard case .failed(.other) = port.send(frame) else {
            Issue.record("EINVAL fails the send")
            return
        }
        #expect(link.state.withLock { $0.attempts } == 1)
        #expect(port.queuedFrames == 0)
        await port.close()
    }

    @Test func errorFramesDriveTheBusHealth() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        var frames = port.receivedFrames().makeAsyncIterator()
        let errorFlag = RawCANFrame.errorFlag
        // Error-passive (controller problem, data[1] = TX passive).
        link.inject(canID: errorFlag | 0x004, data: [0, 0x20, 0, 0, 0, 0, 0, 0])
        let first = await frames.next()
        #expect(first?.frame.isError == true)
        #expect(port.health().state == .errorPassive)
        link.inject(canID: errorFlag | 0x040, data: [0, 0, 0, 0, 0, 0, 0, 0])
        _ = await frames.next()
        let busOff = port.health()
        #expect(busOff.state == .busOff)
        #expect(busOff.lastError == "bus-off")
        link.inject(canID: errorFlag | 0x100, data: [0, 0, 0, 0, 0, 0, 0, 0])
        _ = await frames.next()
        let restarted = port.health()
        #expect(restarted.state == .errorActive)
        #expect(restarted.restarts == 1)
        #expect(restarted.errorFrames == 3)
        // Ordinary frames still flow after the restart.
        link.inject(canID: 0x400, data: [1, 2])
        let data = await frames.next()
        #expect(data?.frame.id == CANID(standard: 0x400))
        #expect(data?.frame.isError == false)
        await port.close()
    }

    /// Issue 34: a controller that is bus-off takes nothing, so the port neither sends nor
    /// queues (a queued command would go out after the restart, when nobody waits for it);
    /// what waited in the queue is dropped, and sending works again after the restart.
    @Test func aBusOffControllerIsSentNothingUntilItRestarts() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        var frames = port.receivedFrames().makeAsyncIterator()
        let errorFlag = RawCANFrame.errorFlag
        // A frame waits in the port's queue: the kernel's queue stays full for now.
        link.failNextSends(1000)
        guard case .queued = port.send(frame) else {
            Issue.record("a full kernel queue queues the frame")
            return
        }
        link.inject(canID: errorFlag | 0x040, data: [0, 0, 0, 0, 0, 0, 0, 0])
        _ = await frames.next()
        #expect(port.health().state == .busOff)
        #expect(port.queuedFrames == 0, "the queued frame is dropped, not kept for after the restart")
        #expect(port.health().lastError == "bus-off: 1 queued frames dropped")
        #expect(port.send(frame) == .failed(.busOff("fake0")))
        #expect(port.queuedFrames == 0, "nothing queued while bus-off")
        link.state.withLock { $0.sendErrors.removeAll() }
        #expect(port.send(frame) == .failed(.busOff("fake0")), "still bus-off: refused without a try")
        #expect(link.state.withLock { $0.sent.isEmpty })
        link.inject(canID: errorFlag | 0x100, data: [0, 0, 0, 0, 0, 0, 0, 0])
        _ = await frames.next()
        #expect(port.health().state == .errorActive)
        guard case .sent = port.send(frame) else {
            Issue.record("sent once the controller restarted")
            return
        }
        #expect(link.state.withLock { $0.sent.map(\.canID) } == [0x300])
        await port.close()
    }

    @Test func theInterfaceGoesDownAndComesBack() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        let got = Mutex<[UInt32]>([])
        port.startReceiving(CANReceiver(frame: { received in got.withLock { $0.append(received.frame.id.rawValue) } }, finished: {}))
        link.setUp(false)
        #expect(await eventually { port.health().state == .down }, "the loop notices the link is down")
        #expect(port.send(frame) == .failed(.interfaceDown("fake0")))
        link.setUp(true)
        #expect(await eventually { port.health().state == .errorActive && port.send(frame) != .failed(.interfaceDown("fake0")) }, "reopened after backoff")
        #expect(port.health().restarts >= 1)
        #expect(link.state.withLock { $0.opened } >= 2)
        #expect(link.state.withLock { $0.sent.count } == 1)
        link.inject(canID: 0x321, data: [2])
        #expect(await eventually { got.withLock { $0 } == [0x321] }, "frames flow on the reopened socket")
        await port.close()
    }

    /// A socket opens on a link that is down and fails at once: the port must back off
    /// between such reopens, not spin (it once reopened thousands of times a second).
    @Test func aLinkThatStaysDownIsReopenedWithBackoff() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        let start = ContinuousClock.now
        link.setUp(false)
        #expect(await eventually { port.health().state == .down })
        try await Task.sleep(for: .milliseconds(400))
        let opens = link.state.withLock { $0.opensWhileDown }
        let elapsed = (ContinuousClock.now - start) / .milliseconds(1)
        // Backoff 50, 100, 200, ... 2000 ms: the reopens that fit in the time that really
        // passed (a loaded machine sleeps longer), and two to spare; a spin makes hundreds.
        var allowed = 2
        var due = 0.0
        var wait = 50.0
        while true {
            due += wait
            guard due <= elapsed else { break }
            allowed += 1
            wait = min(wait * 2, 2000)
        }
        #expect(opens <= allowed, "\(opens) reopens while down in \(Int(elapsed)) ms (at most \(allowed))")
        await port.close()
    }

    /// A send that finds the link down retires the socket; the port's loop thread closes
    /// it (only the thread that reads closes, so it never reads a reused descriptor).
    @Test func aSendThatFindsTheLinkDownHandsTheSocketToTheLoop() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        link.setUp(false)
        #expect(port.send(frame) == .failed(.interfaceDown("fake0")))
        #expect(port.health().state == .down)
        link.setUp(true)
        #expect(await eventually { port.send(frame) != .failed(.interfaceDown("fake0")) }, "reopened")
        await port.close()
        let closedOn = link.state.withLock { $0.closedOn }
        #expect(!closedOn.isEmpty && closedOn.allSatisfy { $0 == "can-fake0" }, "closed on \(closedOn)")
    }

    /// Given the loop that serves the calls (carplayd), the port reads on that loop's
    /// thread, so a frame that settles a command resumes it with no wake-up between; and
    /// closing the port leaves the loop running for its other sockets.
    @Test func aGivenLoopReadsTheSocketOnItsThread() async throws {
        let link = FakeCANLink()
        let loop = try EventLoop(name: "calls")
        defer { loop.shutdown() }
        let port = try SocketCANPort(interface: "fake0", fd: false, loop: loop, io: link.opener)
        let onLoop = Mutex<[Bool]>([])
        port.startReceiving(CANReceiver(frame: { _ in onLoop.withLock { $0.append(loop.isCurrentThread) } }, finished: {}))
        link.inject(canID: 0x123, data: [1])
        #expect(await eventually { !onLoop.withLock { $0 }.isEmpty })
        #expect(onLoop.withLock { $0 } == [true])
        await port.close()
        #expect(link.state.withLock { $0.closedOn } == ["calls"])
        let before = loop.heartbeat
        loop.poke()
        #expect(await eventually { loop.heartbeat > before }, "the loop still runs")
    }

    @Test func closeClosesTheSocket() async throws {
        let link = FakeCANLink()
        let port = try SocketCANPort(interface: "fake0", fd: false, io: link.opener)
        await port.close()
        #expect(link.state.withLock { ($0.opened, $0.closedOn.count, $0.readiness.count) } == (1, 1, 0))
        #expect(port.send(frame) == .failed(.closed))
        let finished = Mutex(false)
        port.startReceiving(CANReceiver(frame: { _ in }, finished: { finished.withLock { $0 = true } }))
        #expect(finished.withLock { $0 }, "a receiver given to a closed port hears that it is finished")
    }
}
