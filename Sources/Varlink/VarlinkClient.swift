import CarplayJSON
import LinuxSupport

/// A blocking Varlink client over AF_UNIX, for command-line tools and tests.
public final class VarlinkClient {
    private let socket: FileDescriptor
    private var reader = VarlinkMessageReader()
    private var pending: [[UInt8]] = []

    public init(path: String) throws(UnixSocketError) {
        socket = try UnixSocket.connect(path: path)
    }

    deinit { socket.close() }

    /// Calls `method` and returns its reply (an error reply is thrown as VarlinkError).
    public func call(_ method: String, _ parameters: [String: JSONValue] = [:]) throws(VarlinkClientError) -> [String: JSONValue] {
        try send(VarlinkCall(method: method, parameters: parameters))
        let reply = try receive()
        if let error = reply.error { throw .remote(VarlinkError(error, reply.parameters)) }
        return reply.parameters
    }

    /// Calls with `more: true`; `body` gets each reply until the last (or until it returns false).
    public func callMore(_ method: String, _ parameters: [String: JSONValue] = [:], _ body: ([String: JSONValue]) -> Bool) throws(VarlinkClientError) {
        try send(VarlinkCall(method: method, parameters: parameters, more: true))
        while true {
            let reply = try receive()
            if let error = reply.error { throw .remote(VarlinkError(error, reply.parameters)) }
            if !body(reply.parameters) || !reply.continues { return }
        }
    }

    public func send(_ call: VarlinkCall) throws(VarlinkClientError) {
        do { try socket.writeAll(call.serialized()) } catch { throw .transport("write: \(error)") }
    }

    /// Writes raw bytes (tests of hostile input).
    public func sendRaw(_ bytes: [UInt8]) throws(VarlinkClientError) {
        do { try socket.writeAll(bytes) } catch { throw .transport("write: \(error)") }
    }

    public func receive() throws(VarlinkClientError) -> VarlinkReply {
        while pending.isEmpty {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count: Int
            do {
                // poll first: a blocked read would also wake when the server consumes our call.
                try socket.waitUntilReadable()
                count = try buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try socket.read(into: raw) } }.get()
            } catch {
                throw .transport("read: \(error)")
            }
            guard count > 0 else { throw .transport("the server closed the connection") }
            do {
                pending += try buffer.withUnsafeBytes { raw in
                    Result { () throws(VarlinkError) in try reader.append(UnsafeRawBufferPointer(rebasing: raw[0..<count])) }
                }.get()
            } catch {
                throw .transport("\(error)")
            }
        }
        do { return try VarlinkReply(parsing: pending.removeFirst()) } catch { throw .transport("\(error)") }
    }
}

public enum VarlinkClientError: Error, CustomStringConvertible {
    /// The service answered with an error.
    case remote(VarlinkError)
    /// The connection failed.
    case transport(String)

    public var description: String {
        switch self {
        case let .remote(error): error.description
        case let .transport(reason): reason
        }
    }
}
