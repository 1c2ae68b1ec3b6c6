import Foundation
import Glibc
import Synchronization
import Testing

@testable import LinuxSupport

/// `CANSocket.receive` never blocks. The port's reader polls, then reads; when a send on
/// the same socket took the pending ENETDOWN that woke the poll, a blocking read waited
/// for a frame that never came (the link down, the sends failing), and the simulated
/// car's reader never reopened: it fell silent for good after `ip link set down; up`.
/// A datagram socket pair stands in for a CAN_RAW socket with nothing to read.
@Suite struct CANSocketReceiveTests {
    @Test func receiveOnAnEmptySocketReturnsWouldBlock() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0, &pair) == 0)
        defer {
            close(pair[0])
            close(pair[1])
        }
        let socket = CANSocket(descriptor: FileDescriptor(rawValue: pair[0]))
        let outcome = Mutex<String?>(nil)
        let thread = Thread {
            let result: String
            do throws(Errno) {
                _ = try socket.receive()
                result = "a frame"
            } catch {
                result = error == .wouldBlock ? "wouldBlock" : "\(error)"
            }
            outcome.withLock { $0 = result }
        }
        thread.start()
        let deadline = ContinuousClock.now + .seconds(10)
        while outcome.withLock({ $0 }) == nil, ContinuousClock.now < deadline { usleep(1000) }
        let result = outcome.withLock { $0 }
        if result == nil {
            // Release the blocked reader before failing.
            shutdown(pair[0], Int32(SHUT_RDWR))
        }
        #expect(result == "wouldBlock", "receive returned \(result ?? "nothing: it blocked")")
    }
}
