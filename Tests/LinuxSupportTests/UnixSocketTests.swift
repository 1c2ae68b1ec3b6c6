import EventLoops
import Foundation
import Glibc
import Synchronization
import Testing

@testable import LinuxSupport

@Suite struct UnixSocketTests {
    func temporaryPath() -> String {
        NSTemporaryDirectory() + "carplayd-test-\(UUID().uuidString.prefix(8)).sock"
    }

    /// Both ends of one connection (the listener and its path are gone already).
    func connectedPair() throws -> (client: FileDescriptor, server: FileDescriptor) {
        let path = temporaryPath()
        defer { unlink(path) }
        let listener = try UnixSocket.listen(path: path)
        defer { listener.close() }
        let client = try UnixSocket.connect(path: path)
        guard let server = try UnixSocket.accept(listener) else {
            client.close()
            throw Errno(EAGAIN)
        }
        return (client, server)
    }

    @Test func listenConnectAcceptWithPeerCredentialsAndMode() throws {
        let path = temporaryPath()
        defer { unlink(path) }
        let listener = try UnixSocket.listen(path: path, mode: 0o660)
        defer { listener.close() }
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        let client = try UnixSocket.connect(path: path)
        defer { client.close() }
        let server = try #require(try UnixSocket.accept(listener))
        defer { server.close() }
        let credentials = try UnixSocket.peerCredentials(server)
        #expect(credentials.uid == getuid())
        #expect(credentials.pid == getpid())
        #expect(try UnixSocket.accept(listener) == nil, "nothing else pending")
    }

    @Test func staleSocketIsReplacedLiveOneIsNot() throws {
        let path = temporaryPath()
        defer { unlink(path) }
        // A socket file nobody listens on (a crashed daemon's).
        let stale = try UnixSocket.listen(path: path)
        stale.close()
        #expect(access(path, F_OK) == 0)
        let live = try UnixSocket.listen(path: path)
        defer { live.close() }
        #expect(throws: UnixSocketError.self) { try UnixSocket.listen(path: path) }
    }

    @Test func waitUntilReadableReturnsOnDataAndOnHangUp() throws {
        let (client, server) = try connectedPair()
        defer { client.close() }
        // The reply comes from another thread while the client waits in poll.
        let writer = Thread {
            usleep(20_000)
            try? server.writeAll("reply\0")
        }
        writer.start()
        try client.waitUntilReadable()
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try buffer.withUnsafeMutableBytes { raw in try client.read(into: raw) }
        #expect(Array(buffer[0..<count]) == Array("reply\0".utf8))
        // A closed peer counts as readable: the read then says end of file.
        server.close()
        try client.waitUntilReadable()
        #expect(try buffer.withUnsafeMutableBytes { raw in try client.read(into: raw) } == 0)
    }

    @Test func eventLoopReportsReadableData() async throws {
        let (client, server) = try connectedPair()
        defer { client.close() }
        defer { server.close() }
        let loop = try EventLoop()
        defer { loop.shutdown() }
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        try loop.register(server, events: .readable) { _ in
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = buffer.withUnsafeMutableBytes { try? server.readAvailable(into: $0) } ?? nil
            if let count, count > 0 { continuation.yield(Array(buffer[0..<count])) }
        }
        try client.writeAll(Array("ping".utf8))
        var iterator = stream.makeAsyncIterator()
        let received = await iterator.next()
        #expect(received == Array("ping".utf8))
        loop.deregister(server)
    }

    /// A task that prefers the loop runs its jobs on the loop thread, before and after
    /// suspending (resumed from another thread); once the loop is shut down its jobs run
    /// on the global executor instead of being lost.
    @Test func eventLoopRunsTasksThatPreferIt() async throws {
        let loop = try EventLoop()
        let onLoop = await Task(executorPreference: loop) { () async -> [Bool] in
            var seen = [loop.isCurrentThread]
            try? await Task.sleep(for: .milliseconds(5))  // resumed by a timer thread
            seen.append(loop.isCurrentThread)
            await Task.yield()
            seen.append(loop.isCurrentThread)
            return seen
        }.value
        #expect(onLoop == [true, true, true])
        #expect(!loop.isCurrentThread)
        loop.shutdown()
        // Wait until the loop thread stopped: its jobs then run elsewhere.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while clock.now < deadline {
            let finished = await Task(executorPreference: loop) { () async -> Bool in !loop.isCurrentThread }.value
            if finished { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let after = await Task(executorPreference: loop) { () async -> Int in
            try? await Task.sleep(for: .milliseconds(1))
            return 42
        }.value
        #expect(after == 42, "a task preferring a stopped loop still completes")
    }
}

@Suite struct SystemdEnvironmentTests {
    @Test func listenFDsCountOnlyForOurPID() {
        #expect(SystemdActivation.passedCount(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "1"], pid: 42) == 1)
        #expect(SystemdActivation.passedCount(environment: ["LISTEN_PID": "41", "LISTEN_FDS": "1"], pid: 42) == 0)
        #expect(SystemdActivation.passedCount(environment: ["LISTEN_FDS": "1"], pid: 42) == 0)
        #expect(SystemdActivation.passedCount(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "x"], pid: 42) == 0)
        #expect(SystemdActivation.passedCount(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "0"], pid: 42) == 0)
        #expect(SystemdActivation.passedCount(environment: [:], pid: 42) == 0)
    }

    @Test func noListenedDescriptorsWithoutSystemd() {
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_PID")
        #expect(SystemdActivation.listenedDescriptors().isEmpty)
    }

    @Test func watchdogTimeoutFromEnvironment() {
        #expect(SystemdNotifier.watchdogTimeout(environment: ["WATCHDOG_USEC": "10000000"], pid: 7) == .seconds(10))
        #expect(SystemdNotifier.watchdogTimeout(environment: ["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "7"], pid: 7) == .seconds(10))
        #expect(SystemdNotifier.watchdogTimeout(environment: ["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "8"], pid: 7) == nil)
        #expect(SystemdNotifier.watchdogTimeout(environment: [:], pid: 7) == nil)
        #expect(SystemdNotifier.watchdogTimeout(environment: ["WATCHDOG_USEC": "0"], pid: 7) == nil)
    }

    @Test func journalWantedUnderSystemdOnly() {
        #expect(SystemdJournal.isWanted(environment: ["JOURNAL_STREAM": "8:1234"]))
        #expect(SystemdJournal.isWanted(environment: ["INVOCATION_ID": "abc"]))
        #expect(!SystemdJournal.isWanted(environment: ["HOME": "/root"]))
    }
}
