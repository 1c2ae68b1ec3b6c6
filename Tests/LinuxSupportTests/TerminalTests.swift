import Glibc
import Testing

@testable import LinuxSupport

/// The dash's terminal calls off a terminal (on one: IntegrationTests/daemon/test_dash.py
/// in tmux, which also sees raw mode restored).
@Suite struct TerminalTests {
    @Test func aPipeIsNoTerminal() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            Issue.record("pipe: \(Errno.current)")
            return
        }
        defer { close(ends[0]); close(ends[1]) }
        let end = FileDescriptor(rawValue: ends[0])
        #expect(!Terminal.isTerminal(end))
        #expect(Terminal.size(of: end) == nil)
        #expect(throws: Errno(ENOTTY)) { try RawTerminalMode(end) }
    }
}
