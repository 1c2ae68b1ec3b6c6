extension UnsafeBufferPointer<UInt8> {
    /// The index of the first newline at or after `index` (`count` if none). Eight bytes
    /// at a time: candump lines are ~30 bytes, and a byte loop was the decoder's hot spot
    /// (libc's memchr is not reachable from this pure module).
    @inline(__always)
    public func newline(from index: Int) -> Int {
        guard index < count, let base = baseAddress else { return count }
        let raw = UnsafeRawPointer(base)
        var position = index
        while position + 8 <= count {
            // A byte that is 0x0A becomes 0 after the XOR; the lowest set bit of `zero`
            // marks the first such byte (borrows only reach the bytes after it).
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)) ^ 0x0A0A_0A0A_0A0A_0A0A
            let zero = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
            if zero != 0 { return position + zero.trailingZeroBitCount >> 3 }
            position += 8
        }
        while position < count, self[position] != 0x0A { position += 1 }
        return position
    }

    /// The index just past the first newline at or after `index` (or `count`).
    public func lineBoundary(near index: Int) -> Int {
        Swift.min(newline(from: index) + 1, count)
    }
}
