import EventLoops
import Foundation
import Glibc
import LinuxSupport
import Varlink

/// A Varlink server on a temporary socket with its own event loop, for tests that
/// talk to a service through a real socket. Stops and removes the socket on deinit.
/// @unchecked Sendable: immutable after init; the server and loop are thread-safe.
public final class VarlinkTestServer: @unchecked Sendable {
    public let path: String
    public let loop: EventLoop
    public let server: VarlinkServer

    public init(name: String, product: String, interfaces: [VarlinkInterfaceDescription], service: any VarlinkService, maxConnections: Int? = nil) throws {
        path = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString.prefix(8)).sock"
        loop = try EventLoop()
        let listener = try UnixSocket.listen(path: path)
        server = VarlinkServer(
            listener: listener, loop: loop, info: VarlinkServerInfo(vendor: "test", product: product, version: "0", url: "https://example.org"),
            interfaces: interfaces, service: service, maxConnections: maxConnections)
        try server.start()
    }

    deinit {
        server.stopAccepting()
        server.closeAll()
        loop.shutdown()
        unlink(path)
    }
}
