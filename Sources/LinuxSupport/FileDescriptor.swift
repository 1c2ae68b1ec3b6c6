#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A raw file descriptor with the two calls the tools need; EINTR is retried below.
public struct FileDescriptor: Sendable, Hashable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let standardInput = FileDescriptor(rawValue: 0)
    public static let standardOutput = FileDescriptor(rawValue: 1)
    public static let standardError = FileDescriptor(rawValue: 2)

    /// Reads up to `buffer.count` bytes; 0 at end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try retryingOnInterrupt { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Blocks until the descriptor has data to read (or is closed or failed).
    ///
    /// Why not just a blocking `read`: a thread blocked in `read` on a Unix stream socket
    /// is also woken when the peer *consumes* what this side wrote (the kernel wakes every
    /// waiter on the socket for write space), then goes back to sleep: a wasted context
    /// switch per request/reply. `poll` for POLLIN filters that wake-up out.
    public func waitUntilReadable() throws(Errno) {
        var entry = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
        _ = try retryingOnInterrupt { Glibc.poll(&entry, 1, -1) }
    }

    /// Writes all of `bytes`, looping over short writes.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            let written = try retryingOnInterrupt { Glibc.write(rawValue, bytes.baseAddress! + offset, bytes.count - offset) }
            offset += written
        }
    }

    public func writeAll(_ bytes: [UInt8]) throws(Errno) {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(Errno) in try writeAll(raw) } }
        try result.get()
    }

    public func writeAll(_ text: String) throws(Errno) {
        try writeAll(Array(text.utf8))
    }

    /// Reads the whole file at `path`.
    public static func readFile(atPath path: String) throws(Errno) -> [UInt8] {
        let descriptor = try retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC) }
        defer { _ = Glibc.close(descriptor) }
        let file = FileDescriptor(rawValue: descriptor)
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = try chunk.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try file.read(into: raw) } }.get()
            if count == 0 { break }
            result.append(contentsOf: chunk[0..<count])
        }
        return result
    }
}

/// Reads a descriptor line by line in large chunks, handing out each line's bytes
/// without copying (the buffer is valid only during the callback).
public struct LineReader {
    private let descriptor: FileDescriptor
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var finished = false

    public init(_ descriptor: FileDescriptor, chunkSize: Int = 1 << 20) {
        self.descriptor = descriptor
        self.buffer = [UInt8](repeating: 0, count: chunkSize)
    }

    /// Calls `body` with each line (without its newline) until end of file.
    public mutating func forEachLine<E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> Void) throws {
        while true {
            // Hand out every complete line in the buffer.
            let consumed: Int = try buffer.withUnsafeBufferPointer { pointer in
                var lineStart = start
                var index = start
                while index < end {
                    if pointer[index] == 0x0A {
                        try body(UnsafeBufferPointer(rebasing: pointer[lineStart..<index]))
                        lineStart = index + 1
                    }
                    index += 1
                }
                return lineStart
            }
            start = consumed
            if finished {
                if start < end {
                    let last = Array(buffer[start..<end])
                    try last.withUnsafeBufferPointer { try body($0) }
                }
                return
            }
            // Keep the partial line, grow if one line fills the buffer, then read more.
            if start > 0 {
                buffer.withUnsafeMutableBufferPointer { pointer in
                    _ = memmove(pointer.baseAddress!, pointer.baseAddress! + start, end - start)
                }
                end -= start
                start = 0
            }
            if end == buffer.count { buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count)) }
            let readCount = try buffer.withUnsafeMutableBytes { raw in
                try descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[end...]))
            }
            if readCount == 0 { finished = true } else { end += readCount }
        }
    }
}

/// Collects output and writes it in large blocks.
public struct BufferedWriter {
    private let descriptor: FileDescriptor
    public var buffer: [UInt8]

    public init(_ descriptor: FileDescriptor, capacity: Int = 1 << 16) {
        self.descriptor = descriptor
        self.buffer = []
        buffer.reserveCapacity(capacity + 4096)
    }

    public mutating func flush() throws(Errno) {
        guard !buffer.isEmpty else { return }
        try descriptor.writeAll(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Reads a descriptor in large blocks that each end at a line boundary (the last
/// block may end without a newline), for tools that process many lines at once.
public struct BlockReader {
    private let descriptor: FileDescriptor
    private var buffer: [UInt8]
    private var end = 0

    public init(_ descriptor: FileDescriptor, blockSize: Int = 1 << 22) {
        self.descriptor = descriptor
        self.buffer = [UInt8](repeating: 0, count: blockSize)
    }

    /// Calls `body` with each block of whole lines until end of file.
    public mutating func forEachBlock<E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> Void) throws {
        var finished = false
        while !finished {
            if end == buffer.count { buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count)) }
            let readCount = try buffer.withUnsafeMutableBytes { raw in
                try descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[end...]))
            }
            if readCount == 0 { finished = true }
            end += readCount
            // Hand out everything up to the last newline (everything, at end of file).
            var cut = end
            if !finished {
                while cut > 0, buffer[cut - 1] != 0x0A { cut -= 1 }
                if cut == 0 { continue }  // one line longer than the buffer: read more
            }
            try buffer.withUnsafeBufferPointer { pointer in
                try body(UnsafeBufferPointer(rebasing: pointer[0..<cut]))
            }
            let rest = end - cut
            if rest > 0 {
                buffer.withUnsafeMutableBufferPointer { pointer in
                    _ = memmove(pointer.baseAddress!, pointer.baseAddress! + cut, rest)
                }
            }
            end = rest
        }
    }
}

/// A heap buffer that concurrent workers write at distinct indices.
///
/// @unchecked Sendable: the caller guarantees that no two threads touch the same
/// element and that the buffer outlives the workers (DispatchQueue.concurrentPerform
/// returns only after all of them finished).
public struct UnsafeSendableBuffer<Element>: @unchecked Sendable {
    public let buffer: UnsafeMutableBufferPointer<Element>
    private let owned: Bool

    /// Allocates `count` elements; `Element` must have a default (e.g. arrays start empty).
    public init(count: Int) where Element == [UInt8] {
        buffer = .allocate(capacity: count)
        buffer.initialize(repeating: [])
        owned = true
    }

    /// Allocates `count` copies of `value`.
    public init(count: Int, repeating value: Element) {
        buffer = .allocate(capacity: count)
        buffer.initialize(repeating: value)
        owned = true
    }

    /// Allocates a copy of `elements`.
    public init(_ elements: [Element]) {
        buffer = .allocate(capacity: elements.count)
        _ = buffer.initialize(from: elements)
        owned = true
    }

    /// Shares read-only bytes owned by someone else for the duration of a call.
    public init(borrowing bytes: UnsafeBufferPointer<Element>) {
        buffer = UnsafeMutableBufferPointer(mutating: bytes)
        owned = false
    }

    public func deallocate() {
        guard owned else { return }
        _ = buffer.deinitialize()
        buffer.deallocate()
    }
}
