import CCarplayLinux

#if canImport(Glibc)
import Glibc
#endif

/// A frame as the kernel's CAN_RAW socket carries it.
public struct RawCANFrame: Sendable, Hashable {
    /// The ID with the kernel's flag bits (extended 0x80000000, RTR 0x40000000, error 0x20000000).
    public var canID: UInt32
    public var data: [UInt8]
    public var isFD: Bool
    /// CAN FD flags: 0x01 bit-rate switch, 0x02 error-state indicator.
    public var fdFlags: UInt8

    public init(canID: UInt32, data: [UInt8], isFD: Bool, fdFlags: UInt8) {
        self.canID = canID
        self.data = data
        self.isFD = isFD
        self.fdFlags = fdFlags
    }

    public static let extendedFlag = carplay_can_eff_flag
    public static let remoteFlag = carplay_can_rtr_flag
    public static let errorFlag = carplay_can_err_flag
}

/// A received frame with the kernel's receive time and the socket's drop counter.
public struct RawCANReception: Sendable {
    public var frame: RawCANFrame
    public var seconds: Int64
    public var microseconds: Int64
    /// Frames the kernel dropped for this socket so far (SO_RXQ_OVFL).
    public var dropped: UInt32

    public init(frame: RawCANFrame, seconds: Int64, microseconds: Int64, dropped: UInt32) {
        self.frame = frame
        self.seconds = seconds
        self.microseconds = microseconds
        self.dropped = dropped
    }
}

/// A kernel receive filter: a frame passes when (its ID & mask) == (id & mask).
public struct CANFilter: Sendable, Hashable {
    public var id: UInt32
    public var mask: UInt32
    public init(id: UInt32, mask: UInt32) {
        self.id = id
        self.mask = mask
    }
}

/// A CAN_RAW socket: the calls behind the SocketCAN transport.
public struct CANSocket: Sendable {
    public let descriptor: FileDescriptor

    /// Opens and binds a raw socket on `interface`, with CAN FD frames when `fd`.
    public static func open(interface: String, fd: Bool) throws(Errno) -> CANSocket {
        let result = interface.withCString { carplay_can_open($0, fd ? 1 : 0) }
        guard result >= 0 else { throw Errno.current }
        return CANSocket(descriptor: FileDescriptor(rawValue: result))
    }

    public static func interfaceExists(_ interface: String) -> Bool {
        interface.withCString { carplay_interface_index($0) } > 0
    }

    /// Only frames matching one of the filters reach this socket (error frames still do).
    public func setFilters(_ filters: [CANFilter]) throws(Errno) {
        let ids = filters.map(\.id)
        let masks = filters.map(\.mask)
        guard carplay_can_set_filters(descriptor.rawValue, ids, masks, Int32(filters.count)) == 0 else { throw Errno.current }
    }

    /// Writes one frame; EINTR is retried, other errors (ENOBUFS, ENETDOWN) are thrown.
    public func send(_ frame: RawCANFrame) throws(Errno) {
        var out = carplay_can_frame()
        out.can_id = frame.canID
        out.len = UInt8(frame.data.count)
        out.flags = frame.fdFlags
        out.is_fd = frame.isFD ? 1 : 0
        withUnsafeMutableBytes(of: &out.data) { raw in
            for (index, byte) in frame.data.prefix(64).enumerated() { raw[index] = byte }
        }
        _ = try retryingOnInterrupt { carplay_can_send(descriptor.rawValue, &out) }
    }

    /// The most frames one `receive` takes.
    public static let batchLimit = Int(CARPLAY_CAN_BATCH_MAX)

    /// Takes the frames waiting on the socket, up to `limit`, in one recvmmsg that never
    /// blocks (`Errno.wouldBlock`: none): one syscall per wake-up of the event loop that
    /// watches the socket, however many frames it brings. EINTR is retried.
    public func receive(upTo limit: Int = CANSocket.batchLimit) throws(Errno) -> [RawCANReception] {
        let capacity = max(1, min(limit, Self.batchLimit))
        // Uninitialized: the C side fills each reception it keeps, and only those count.
        var failure: Errno?
        let batch = [carplay_can_reception](unsafeUninitializedCapacity: capacity) { buffer, count in
            do throws(Errno) {
                count = Int(try retryingOnInterrupt { carplay_can_receive_batch(descriptor.rawValue, buffer.baseAddress, Int32(capacity)) })
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return batch.map { reception in
            let frame = reception.frame
            let data = withUnsafeBytes(of: frame.data) { Array($0.prefix(Int(frame.len))) }
            return RawCANReception(
                frame: RawCANFrame(canID: frame.can_id, data: data, isFD: frame.is_fd != 0, fdFlags: frame.flags),
                seconds: reception.seconds, microseconds: reception.microseconds, dropped: reception.dropped)
        }
    }

    /// The kernel receive filters installed on this socket (CAN_RAW_FILTER, read back).
    public func filters() throws(Errno) -> [CANFilter] {
        let capacity = 4096
        var ids = [UInt32](repeating: 0, count: capacity)
        var masks = [UInt32](repeating: 0, count: capacity)
        let count = carplay_can_get_filters(descriptor.rawValue, &ids, &masks, Int32(capacity))
        guard count >= 0 else { throw Errno.current }
        return (0..<min(Int(count), capacity)).map { CANFilter(id: ids[$0], mask: masks[$0]) }
    }

    public func close() { descriptor.close() }
}
