import Synchronization

/// The bytes all connections of a server hold in memory, for `totalBufferLimit`.
final class VarlinkBufferBudget: Sendable {
    private let bytes = Atomic<Int>(0)
    var total: Int { bytes.load(ordering: .relaxed) }
    func add(_ delta: Int) { bytes.add(delta, ordering: .relaxed) }
}

/// The buffer the connections of one loop read into: one per loop thread, not one per
/// connection (thousands of idle connections must not hold 64 KiB each).
///
/// `@unchecked Sendable`: only its loop's thread touches `bytes` (connections read in
/// `handle(_:)`, which their loop calls on its one thread), and the bytes are copied out
/// by the message reader before the next read.
final class VarlinkReadScratch: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer

    init(size: Int = 65536) {
        bytes = .allocate(byteCount: size, alignment: 16)
    }

    deinit { bytes.deallocate() }
}
