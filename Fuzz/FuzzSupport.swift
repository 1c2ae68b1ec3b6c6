// Shared by every fuzz target (compiled into each one by Fuzz/build.sh).

/// The fuzzer's input as an array.
func fuzzBytes(_ start: UnsafeRawPointer, _ count: Int) -> [UInt8] {
    Array(UnsafeRawBufferPointer(start: start, count: count))
}

/// A property every input must keep; a violation is a crash libFuzzer records.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz property violated: \(message())") }
}

/// Reads the input front to back for targets that take structured input: bytes run out
/// as zeros, so every input is usable.
struct FuzzInput {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func uint32() -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 { value = value << 8 | UInt32(byte()) }
        return value
    }

    /// Up to `count` bytes (fewer at the end).
    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, position + count)
        defer { position = max(position, end) }
        return position < end ? Array(bytes[position..<end]) : []
    }

    /// The rest of the input.
    mutating func rest() -> [UInt8] { take(bytes.count) }
}

#if canImport(Foundation)
import Foundation

/// Bytes of a base64 fixture (Fuzz/build.sh embeds files that way).
func fixtureBytes(_ base64: String) -> [UInt8] {
    guard let data = Data(base64Encoded: base64) else { fatalError("a fixture is not base64") }
    return Array(data)
}
#endif
