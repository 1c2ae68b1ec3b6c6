import LinuxSupport
import Testing

@testable import EventLoops

#if canImport(Glibc)
import Glibc
#endif

/// The loop's wake eventfd is edge-triggered and never read: each write must still wake
/// the loop once, and an unread counter must not keep waking it.
@Suite struct EventLoopWakeTests {
    @Test func everyPokeIsOneWakeUpAndTheUnreadCounterDoesNotSpin() throws {
        let loop = try EventLoop()
        defer { loop.shutdown() }
        for count in UInt64(1)...5 {
            loop.poke()
            var waited = 0
            while loop.heartbeat < count, waited < 10_000 {
                usleep(1000)
                waited += 1
            }
            #expect(loop.heartbeat == count, "poke \(count) woke the loop once")
        }
        usleep(100_000)
        #expect(loop.heartbeat == 5, "no wake-up without a poke (a level-triggered unread eventfd would spin)")
    }
}
