import Foundation
import LinuxSupport

/// A blocking Varlink connection for one load thread: writes a pre-serialized call and
/// reads the reply into a reused buffer (no JSON decoding on the fast path, so that the
/// client costs little of the CPU the daemon needs).
final class BenchConnection {
    let socket: FileDescriptor
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    /// Bytes read beyond the last reply (none with one call in flight, kept for safety).
    private var carry: [UInt8] = []
    /// The last reply, without its NUL.
    private(set) var reply: [UInt8] = []

    init(path: String) throws(UnixSocketError) {
        socket = try UnixSocket.connect(path: path)
    }

    deinit { socket.close() }

    enum Failure: Error, CustomStringConvertible {
        case write(Errno)
        case read(Errno)
        case closed

        var description: String {
            switch self {
            case let .write(error): "write: \(error)"
            case let .read(error): "read: \(error)"
            case .closed: "carplayd closed the connection"
            }
        }
    }

    func send(_ call: [UInt8]) throws(Failure) {
        do { try socket.writeAll(call) } catch { throw .write(error) }
    }

    /// Reads one reply (up to its NUL) into `reply`.
    func receive() throws(Failure) {
        reply.removeAll(keepingCapacity: true)
        if let end = carry.firstIndex(of: 0) {
            reply.append(contentsOf: carry[..<end])
            carry.removeFirst(end + 1)
            return
        }
        reply.append(contentsOf: carry)
        carry.removeAll(keepingCapacity: true)
        while true {
            let count: Int
            do {
                try socket.waitUntilReadable()
                count = try buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try socket.read(into: raw) } }.get()
            } catch { throw .read(error) }
            guard count > 0 else { throw .closed }
            if let end = buffer[..<count].firstIndex(of: 0) {
                reply.append(contentsOf: buffer[..<end])
                if end + 1 < count { carry.append(contentsOf: buffer[(end + 1)..<count]) }
                return
            }
            reply.append(contentsOf: buffer[..<count])
        }
    }
}

/// What the fast path reads from a Handle/Perform reply: the response code (or the
/// Varlink error), and the candump timestamps of the frames.
struct ReplyFacts {
    var code: String
    /// Microseconds since the epoch of the first frame with the slot's command ID.
    var commandFrame: Int64?
    /// Microseconds since the epoch of the latest frame in the reply (the confirming status frame).
    var lastFrame: Int64?

    static func scan(_ bytes: [UInt8], commandID: UInt32) -> ReplyFacts {
        bytes.withUnsafeBufferPointer { scan($0, commandID: commandID) }
    }

    static func scan(_ b: UnsafeBufferPointer<UInt8>, commandID: UInt32) -> ReplyFacts {
        if let error = find(Array("{\"error\":\"".utf8), in: b, from: 0) {
            return ReplyFacts(code: "error:" + string(b, from: error), commandFrame: nil, lastFrame: nil)
        }
        var facts = ReplyFacts(code: "?", commandFrame: nil, lastFrame: nil)
        if let response = find(Array("\"response\":{".utf8), in: b, from: 0),
            let code = find(Array("\"code\":\"".utf8), in: b, from: response)
        {
            facts.code = string(b, from: code)
        } else if find(Array("\"ready\":true".utf8), in: b, from: 0) != nil {
            facts.code = "ready"  // Resolve: no response, no frames
        }
        guard var i = find(Array("\"frames\":[".utf8), in: b, from: 0) else { return facts }
        // Each frame: "(SECONDS.MICROS) IFACE HEXID#DATA"
        while i + 1 < b.count, b[i] == UInt8(ascii: "\""), b[i + 1] == UInt8(ascii: "(") {
            i += 2
            var seconds: Int64 = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 { seconds = seconds * 10 + Int64(b[i] - 48); i += 1 }
            i += 1  // '.'
            var micros: Int64 = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 { micros = micros * 10 + Int64(b[i] - 48); i += 1 }
            let stamp = seconds * 1_000_000 + micros
            while i < b.count, b[i] != UInt8(ascii: " ") { i += 1 }
            i += 1
            while i < b.count, b[i] != UInt8(ascii: " ") { i += 1 }
            i += 1
            var id: UInt32 = 0
            while i < b.count, let digit = hex(b[i]) { id = id << 4 | digit; i += 1 }
            if id == commandID, facts.commandFrame.map({ stamp < $0 }) ?? true { facts.commandFrame = stamp }
            if facts.lastFrame.map({ stamp > $0 }) ?? true { facts.lastFrame = stamp }
            while i < b.count, b[i] != UInt8(ascii: "\"") { i += 1 }
            i += 1  // closing quote
            if i < b.count, b[i] == UInt8(ascii: ",") { i += 1 }
        }
        return facts
    }

    private static func hex(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 48...57: UInt32(byte - 48)
        case 65...70: UInt32(byte - 55)
        case 97...102: UInt32(byte - 87)
        default: nil
        }
    }

    /// Index just after `needle`'s first occurrence at or after `start`.
    private static func find(_ needle: [UInt8], in b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard needle.count <= b.count else { return nil }
        var i = start
        let last = b.count - needle.count
        while i <= last {
            if b[i] == needle[0] {
                var j = 1
                while j < needle.count, b[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i + needle.count }
            }
            i += 1
        }
        return nil
    }

    /// The string's characters from `start` up to the next quote.
    private static func string(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> String {
        var end = start
        while end < b.count, b[end] != UInt8(ascii: "\"") { end += 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: b[start..<end]), as: UTF8.self)
    }
}

/// Microseconds since the epoch, the clock the in-process bus stamps frames with.
func wallMicros() -> Int64 {
    Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
}
