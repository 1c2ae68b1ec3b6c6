import CarplayJSON
import EventLoops
import Foundation
import Glibc
import LinuxSupport
import Synchronization
import TestSupport
import Testing

@testable import Varlink

/// A service with one interface: Echo returns its parameters, Count streams `more` replies.
struct EchoService: VarlinkService {
    static let gate = Atomic<Bool>(true)
    func handle(_ call: VarlinkCall, peer: PeerCredentials, replies: VarlinkReplies) async {
        switch call.member {
        case "Echo":
            var parameters = call.parameters
            parameters["uid"] = .integer(Int(peer.uid))
            replies.send(VarlinkReply(parameters: parameters))
        case "Wait":
            // Holds the call until the test opens the gate.
            while !EchoService.gate.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(5)) }
            replies.send(VarlinkReply(parameters: ["done": true]))
        case "Count":
            guard call.more else {
                replies.send(error: .expectedMore)
                return
            }
            for index in 1...3 { replies.send(VarlinkReply(parameters: ["n": .integer(index)], continues: index < 3)) }
        default:
            replies.send(error: .methodNotFound(call.method))
        }
    }
}

/// The echo service on a socket.
final class TestServer: Sendable {
    static let description = "interface org.example.echo\nmethod Echo(text: string) -> (text: string)\n"
    let running: VarlinkTestServer
    var path: String { running.path }
    var server: VarlinkServer { running.server }
    var loop: EventLoop { running.loop }

    init(maxConnections: Int? = nil) throws {
        running = try VarlinkTestServer(
            name: "varlink-test", product: "echo", interfaces: [VarlinkInterfaceDescription(name: "org.example.echo", text: Self.description)],
            service: EchoService(), maxConnections: maxConnections)
    }
}

@Suite struct VarlinkServerTests {
    @Test func callsRepliesAndIntrospection() async throws {
        let fixture = try TestServer()
        try await offThePool { try Self.callsRepliesAndIntrospection(fixture) }
    }

    static func callsRepliesAndIntrospection(_ fixture: TestServer) throws {
        let client = try VarlinkClient(path: fixture.path)
        let echoed = try client.call("org.example.echo.Echo", ["text": "hello"])
        #expect(echoed["text"] == .string("hello"))
        #expect(echoed["uid"] == .integer(Int(getuid())))
        let info = try client.call("org.varlink.service.GetInfo")
        #expect(info["interfaces"] == .array(["org.varlink.service", "org.example.echo"]))
        let description = try client.call("org.varlink.service.GetInterfaceDescription", ["interface": "org.example.echo"])
        #expect(description["description"] == .string(TestServer.description), "served verbatim")
        var counted: [JSONValue] = []
        try client.callMore("org.example.echo.Count") {
            counted.append($0["n"]!); return true
        }
        #expect(counted == [1, 2, 3])
    }

    @Test func typedErrors() async throws {
        let fixture = try TestServer()
        try await offThePool { try Self.typedErrors(fixture) }
    }

    static func typedErrors(_ fixture: TestServer) throws {
        let client = try VarlinkClient(path: fixture.path)
        #expect(throws: VarlinkClientError.self) { try client.call("org.example.nothing.Foo") }
        do {
            _ = try client.call("org.example.nothing.Foo")
        } catch let VarlinkClientError.remote(error) {
            #expect(error.name == "org.varlink.service.InterfaceNotFound")
            #expect(error.parameters["interface"] == .string("org.example.nothing"))
        }
        do {
            _ = try client.call("org.example.echo.Count")
            Issue.record("Count without more must fail")
        } catch let VarlinkClientError.remote(error) {
            #expect(error.name == "org.varlink.service.ExpectedMore")
        }
    }

    @Test func hostileInputGetsAnErrorAndOthersAreServed() async throws {
        let fixture = try TestServer()
        try await offThePool { try Self.hostileInput(fixture) }
    }

    static func hostileInput(_ fixture: TestServer) throws {
        // Malformed JSON: an error reply, and the connection still works.
        let bad = try VarlinkClient(path: fixture.path)
        try bad.sendRaw(Array("{not json".utf8) + [0])
        let reply = try bad.receive()
        #expect(reply.error == "org.varlink.service.InvalidParameter")
        #expect(try bad.call("org.example.echo.Echo", ["text": "still"])["text"] == .string("still"))
        // A call that is not an object, one without a method.
        try bad.sendRaw(Array("[1,2]".utf8) + [0] + Array("{\"parameters\":{}}".utf8) + [0])
        #expect(try bad.receive().error == "org.varlink.service.InvalidParameter")
        #expect(try bad.receive().error == "org.varlink.service.InvalidParameter")

        // A message over 1 MiB without its NUL: one error reply, then the server hangs up.
        let huge = try VarlinkClient(path: fixture.path)
        try huge.sendRaw([UInt8](repeating: 0x20, count: (1 << 20) + 10))
        #expect(try huge.receive().error == "org.varlink.service.InvalidParameter")
        #expect(throws: VarlinkClientError.self) { try huge.receive() }

        // A client that connects and sends nothing holds up no one.
        let silent = try VarlinkClient(path: fixture.path)
        let good = try VarlinkClient(path: fixture.path)
        #expect(try good.call("org.example.echo.Echo", ["text": "ok"])["text"] == .string("ok"))
        _ = silent
    }

    /// Waits (polling, generous deadline) until `condition` holds.
    static func wait(_ what: String, _ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw VarlinkTestError("not within 30 s: \(what)") }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    // Pipelined calls that take long are read only as fast as they run: the server stops
    // reading the connection (the client's writes block in the kernel) instead of
    // buffering every call; once the calls run, reading resumes and every call is answered.
    @Test func slowPipelinedCallsAreReadOnlyAsFastAsTheyRun() async throws {
        let fixture = try TestServer()
        try await offThePool { try Self.slowPipelinedCalls(fixture) }
    }

    static func slowPipelinedCalls(_ fixture: TestServer) throws {
        EchoService.gate.store(false, ordering: .releasing)
        defer { EchoService.gate.store(true, ordering: .releasing) }
        let count = 4000
        let call = VarlinkCall(method: "org.example.echo.Wait", parameters: ["pad": .string(String(repeating: "x", count: 1000))]).serialized()
        let socket = try UnixSocket.connect(path: fixture.path)
        defer { socket.close() }
        let sent = Flag()
        let pipeline = Array([[UInt8]](repeating: call, count: count).joined())
        Thread {
            try? socket.writeAll(pipeline)
            sent.set()
        }.start()
        try wait("the server paused reading") { fixture.server.readPauses.load(ordering: .relaxed) >= 1 }
        // About 4 MB offered; held: the calls below the bound plus at most one read.
        #expect(fixture.server.bufferedBytes < VarlinkServer.pendingCallLimit * call.count + 65536 + call.count)
        let sentAll = sent.isSet
        #expect(!sentAll, "the whole pipeline fit in the kernel buffers: the test proves nothing")
        EchoService.gate.store(true, ordering: .releasing)
        var reader = VarlinkMessageReader()
        var replies = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        while replies < count {
            let read = try buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try socket.read(into: raw) } }.get()
            guard read > 0 else { throw VarlinkTestError("the server closed the connection after \(replies) replies") }
            let messages = try buffer.withUnsafeBytes { raw in
                Result { () throws(VarlinkError) in try reader.append(UnsafeRawBufferPointer(rebasing: raw[0..<read])) }
            }.get()
            for message in messages {
                #expect(try VarlinkReply(parsing: message).parameters["done"] == .bool(true))
                replies += 1
            }
        }
        try wait("the client sent every call") { sent.isSet }
        try wait("the buffers drained") { fixture.server.bufferedBytes == 0 }
    }

    // Beyond maxConnections, clients wait in the listen backlog; a closing connection
    // lets the next one in.
    @Test func connectionsBeyondTheLimitWaitForAFreeSlot() async throws {
        let fixture = try TestServer(maxConnections: 2)
        try await offThePool { try Self.connectionLimit(fixture) }
    }

    static func connectionLimit(_ fixture: TestServer) throws {
        var first: VarlinkClient? = try VarlinkClient(path: fixture.path)
        let second = try VarlinkClient(path: fixture.path)
        #expect(try first?.call("org.example.echo.Echo", ["text": "1"])["text"] == .string("1"))
        #expect(try second.call("org.example.echo.Echo", ["text": "2"])["text"] == .string("2"))
        let third = try VarlinkClient(path: fixture.path)  // connected, waiting in the backlog
        try third.send(VarlinkCall(method: "org.example.echo.Echo", parameters: ["text": "3"]))
        try wait("the server paused accepting") { fixture.server.acceptPauses >= 1 }
        #expect(fixture.server.connectionCount == 2)
        first = nil  // closes the first connection: its slot goes to the third client
        #expect(first == nil)
        #expect(try third.receive().parameters["text"] == .string("3"))
        #expect(fixture.server.connectionCount <= 2)
    }
}

final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

struct VarlinkTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Which of its loops a call runs on: carplayd reads the CAN bus on the first, so a lone
/// client must land there, and more clients spread over the rest.
@Suite struct VarlinkWorkerChoiceTests {
    struct WhichLoop: VarlinkService {
        let loops: [EventLoop]
        func handle(_ call: VarlinkCall, peer: PeerCredentials, replies: VarlinkReplies) async {
            replies.send(VarlinkReply(parameters: ["loop": .integer(loops.firstIndex { $0.isCurrentThread } ?? -1)]))
        }
    }

    @Test func aConnectionGoesToTheLoopServingTheFewestTheFirstOnATie() async throws {
        let loops = [try EventLoop(), try EventLoop()]
        let path = NSTemporaryDirectory() + "varlink-workers-\(UUID().uuidString.prefix(8)).sock"
        let server = VarlinkServer(
            listener: try UnixSocket.listen(path: path), loop: loops[0], workers: loops,
            info: VarlinkServerInfo(vendor: "test", product: "workers", version: "0", url: "https://example.org"),
            interfaces: [VarlinkInterfaceDescription(name: "org.example.which", text: "interface org.example.which\nmethod Which() -> (loop: int)\n")],
            service: WhichLoop(loops: loops))
        try server.start()
        defer {
            server.stopAccepting()
            server.closeAll()
            for loop in loops { loop.shutdown() }
            unlink(path)
        }
        let served = try await offThePool { () throws -> [Int] in
            func which(_ client: VarlinkClient) throws -> Int {
                guard case let .integer(loop)? = try client.call("org.example.which.Which")["loop"] else { return -2 }
                return loop
            }
            func closed(_ client: inout VarlinkClient?, leaving count: Int) {
                client = nil  // closes it
                var waited = 0
                while server.connectionCount > count, waited < 5000 {
                    usleep(1000)
                    waited += 1
                }
            }
            // A probe that comes and goes (carplay-bench's readiness check, a status call).
            var probe: VarlinkClient? = try VarlinkClient(path: path)
            let probed = try which(probe!)
            closed(&probe, leaving: 0)
            var client: VarlinkClient? = try VarlinkClient(path: path)
            let alone = try which(client!)
            let other = try VarlinkClient(path: path)
            let beside = try which(other)
            closed(&client, leaving: 1)
            let newcomer = try VarlinkClient(path: path)
            return [probed, alone, beside, try which(newcomer), try which(other)]
        }
        // Round-robin would have put the client after the probe on loop 1: [0, 1, 0, 1, 0].
        #expect(served == [0, 0, 1, 0, 1], "a lone client on the first loop, the next beside it, a newcomer where there is room")
    }
}
