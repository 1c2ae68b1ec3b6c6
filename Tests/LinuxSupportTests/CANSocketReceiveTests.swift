import Glibc
import Testing

@testable import LinuxSupport

/// `CANSocket.receive`: one recvmmsg per wake-up of the event loop. It never waits (the
/// loop thread serves other sockets too), and it takes every frame already waiting at once. A datagram socket pair stands in for CAN_RAW:
/// its datagrams of `struct can_frame`'s 16 bytes read as classic frames.
@Suite struct CANSocketReceiveTests {
    /// A socket pair; the first end as a `CANSocket`.
    static func pair() -> (socket: CANSocket, peer: Int32, close: () -> Void) {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0, &pair) == 0)
        let (first, second) = (pair[0], pair[1])
        return (
            CANSocket(descriptor: FileDescriptor(rawValue: first)), second,
            {
                Glibc.close(first); Glibc.close(second)
            }
        )
    }

    /// `struct can_frame` as the kernel lays it out: ID (host order), length, 3 pad, 8 data.
    static func classicFrame(id: UInt32, data: [UInt8]) -> [UInt8] {
        var bytes = withUnsafeBytes(of: id) { Array($0) }
        bytes += [UInt8(data.count), 0, 0, 0]
        bytes += data + [UInt8](repeating: 0, count: 8 - data.count)
        return bytes
    }

    @Test func receiveOnAnEmptySocketReturnsWouldBlockAtOnce() throws {
        let (socket, _, close) = Self.pair()
        defer { close() }
        // A blocking socket: the call itself must not wait.
        let start = ContinuousClock.now
        #expect(throws: Errno.wouldBlock) { _ = try socket.receive() }
        #expect(ContinuousClock.now - start < .seconds(5), "returned, did not block")
    }

    @Test func framesWaitingTogetherComeInOneReceive() throws {
        let (socket, peer, close) = Self.pair()
        defer { close() }
        for (id, data) in [(UInt32(0x100), [UInt8(1)]), (0x200, [2, 3]), (0x300 | RawCANFrame.extendedFlag, [4, 5, 6])] {
            let bytes = Self.classicFrame(id: id, data: data)
            #expect(send(peer, bytes, bytes.count, 0) == 16)
        }
        let batch = try socket.receive()
        #expect(batch.map(\.frame.canID) == [0x100, 0x200, 0x300 | RawCANFrame.extendedFlag])
        #expect(batch.map(\.frame.data) == [[1], [2, 3], [4, 5, 6]])
        let two = Self.classicFrame(id: 0x7FF, data: [])
        #expect(send(peer, two, two.count, 0) == 16)
        #expect(send(peer, two, two.count, 0) == 16)
        #expect(try socket.receive(upTo: 1).count == 1, "no more than asked")
        #expect(try socket.receive(upTo: 1).count == 1)
    }
}
