import CarIntents
import CarplayClient
import CarplayJSON
import Foundation
import LinuxSupport
import Synchronization
import TestSupport
import Testing
import Varlink

/// The client over a real socket: the calls it sends, and what a reply, an error reply
/// and a reply that does not fit become.
@Suite struct ClientTests {
    /// Answers each call with what `answer` gives and records the calls.
    final class Service: VarlinkService {
        let calls = Mutex<[VarlinkCall]>([])
        let answer: @Sendable (VarlinkCall) -> [VarlinkReply]
        init(_ answer: @escaping @Sendable (VarlinkCall) -> [VarlinkReply]) { self.answer = answer }

        func handle(_ call: VarlinkCall, peer: PeerCredentials, replies: VarlinkReplies) async {
            calls.withLock { $0.append(call) }
            for reply in answer(call) { replies.send(reply) }
        }
    }

    static func serve(_ answer: @escaping @Sendable (VarlinkCall) -> [VarlinkReply]) throws -> (VarlinkTestServer, Service) {
        let service = Service(answer)
        let server = try VarlinkTestServer(
            name: "client-test", product: "fake carplayd",
            interfaces: [VarlinkInterfaceDescription(name: CarplaydClient.vehicleInterface, text: "interface io.carplayd.Vehicle\n")], service: service)
        return (server, service)
    }

    @Test func aTypedCallSendsTheIntentAndDecodesTheReply() async throws {
        let (server, service) = try Self.serve { _ in
            [VarlinkReply(parameters: ["resolutions": ["locked": ["kind": "success", "value": true]], "ready": true])]
        }
        let path = server.path
        let reply = try await offThePool { try CarplaydClient(path: path).resolve(.setCarLockStatus(SetCarLockStatusParameters(locked: true))) }
        #expect(reply.ready && reply.resolutions["locked"] == .success(true))
        let call = try #require(service.calls.withLock { $0.first })
        #expect(call.method == "io.carplayd.Vehicle.Resolve")
        #expect(call.parameters == ["intent": "SetCarLockStatus", "parameters": ["locked": true]])
    }

    @Test func anErrorReplyIsTyped() async throws {
        let (server, _) = try Self.serve { _ in [VarlinkReply.error(VarlinkError("io.carplayd.Vehicle.CarLocked", ["intent": "SetRadioStation"]))] }
        let path = server.path
        let result = try await offThePool { Result { () throws(CarplaydClientError) in try CarplaydClient(path: path).getState() } }
        guard case let .failure(.refused(reply)) = result else {
            Issue.record("expected a refusal, got \(result)")
            return
        }
        #expect(reply.error == .vehicle(.carLocked(intent: "SetRadioStation")))
    }

    @Test func aReplyThatDoesNotFitNamesThePath() async throws {
        let (server, _) = try Self.serve { _ in [VarlinkReply(parameters: ["state": [:], "reachable": true])] }
        let path = server.path
        let result = try await offThePool { Result { () throws(CarplaydClientError) in try CarplaydClient(path: path).getState() } }
        guard case let .failure(.unexpectedReply(error)) = result else {
            Issue.record("expected a mismatch, got \(result)")
            return
        }
        #expect(error == JSONContentError(file: "io.carplayd.Vehicle.GetState", path: "bus", reason: "missing required key \"bus\""))
        #expect("\(CarplaydClientError.unexpectedReply(error))".contains("GetState: bus: missing"))
    }

    @Test func monitorStreamsUntilAReplyDoesNotFit() async throws {
        let (server, service) = try Self.serve { _ in
            [
                VarlinkReply(parameters: ["keys": ["lock.locked"], "state": ["lock.locked": true], "frame": "(1.0) vcan0 3F0#01"], continues: true),
                VarlinkReply(parameters: ["command": ["id": "four"]], continues: true),
                VarlinkReply(parameters: ["keys": []]),
            ]
        }
        let path = server.path
        let (seen, result) = try await offThePool { () -> ([[String]], Result<Void, CarplaydClientError>) in
            var seen: [[String]] = []
            let result = Result { () throws(CarplaydClientError) in
                try CarplaydClient(path: path).monitor(commands: true) { reply in
                    seen.append(reply.keys)
                    return true
                }
            }
            return (seen, result)
        }
        #expect(seen == [["lock.locked"]])
        guard case let .failure(.unexpectedReply(error)) = result else {
            Issue.record("expected a mismatch, got \(result)")
            return
        }
        #expect(error.path == "command.id")
        #expect(service.calls.withLock { $0.first?.parameters } == ["commands": true])
    }

    @Test func nobodyListeningCannotConnect() {
        let path = NSTemporaryDirectory() + "no-carplayd-\(UUID().uuidString.prefix(8)).sock"
        #expect {
            try CarplaydClient(path: path)
        } throws: { error in
            guard case let .cannotConnect(where_, _)? = error as? CarplaydClientError else { return false }
            return where_ == path
        }
    }
}
