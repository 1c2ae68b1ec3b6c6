import CarplayJSON
import Foundation
import Glibc
import LinuxSupport
import Testing
@testable import Varlink

/// A service with one interface: Echo returns its parameters, Count streams `more` replies.
struct EchoService: VarlinkService {
    func handle(_ call: VarlinkCall, peer: PeerCredentials, replies: VarlinkReplies) async {
        switch call.member {
        case "Echo":
            var parameters = call.parameters
            parameters["uid"] = .integer(Int(peer.uid))
            replies.send(VarlinkReply(parameters: parameters))
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

/// @unchecked Sendable: immutable after init; the server and loop are thread-safe.
final class TestServer: @unchecked Sendable {
    let path = NSTemporaryDirectory() + "varlink-test-\(UUID().uuidString.prefix(8)).sock"
    let loop: EventLoop
    let server: VarlinkServer
    static let description = "interface org.example.echo\nmethod Echo(text: string) -> (text: string)\n"

    init() throws {
        loop = try EventLoop()
        let listener = try UnixSocket.listen(path: path)
        server = VarlinkServer(
            listener: listener, loop: loop, info: VarlinkServerInfo(vendor: "test", product: "echo", version: "1", url: "https://example.org"),
            interfaces: [VarlinkInterfaceDescription(name: "org.example.echo", text: Self.description)], service: EchoService())
        try server.start()
    }

    deinit {
        server.stopAccepting()
        server.closeAll()
        loop.shutdown()
        unlink(path)
    }
}

/// Runs blocking client code on a thread of its own: the server's connection tasks need
/// the cooperative pool (two threads on a two-core machine), which a blocked test would hold.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
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
        try client.callMore("org.example.echo.Count") { counted.append($0["n"]!); return true }
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
}
