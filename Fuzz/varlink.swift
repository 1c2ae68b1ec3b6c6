// Fuzz target: the Varlink message reader and parser (`VarlinkMessageReader`,
// `VarlinkCall(parsing:)`, `VarlinkReply(parsing:)`, over CarplayJSON).
//
// Input: byte 0 picks the reader's size limit (1 MiB, as the server uses, or a small
// one so the limit is reached often), byte 1 the chunk size the stream arrives in; the
// rest is the byte stream a client sends.
// Properties: the reader returns exactly the NUL-separated messages of the stream, in
// order, and throws only when a message (or the unterminated rest) exceeds the limit;
// every message parses as a call or fails with a typed error; a parsed call serializes
// to a message that parses back to the same call.
import CarplayJSON
import Varlink

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(fuzzBytes(start, count))
    let limitChoice = input.byte()
    let limit = limitChoice < 128 ? VarlinkMessageReader.defaultLimit : Int(limitChoice) - 100
    let chunk = Int(input.byte()) + 1
    let stream = input.rest()

    var reader = VarlinkMessageReader(limit: limit)
    var messages: [[UInt8]] = []
    var consumed = 0
    var failure: VarlinkError?
    while consumed < stream.count, failure == nil {
        let end = min(stream.count, consumed + chunk)
        let piece = stream[consumed..<end]
        let result = piece.withUnsafeBytes { raw in
            Result { () throws(VarlinkError) in try reader.append(raw) }
        }
        switch result {
        case let .success(got): messages.append(contentsOf: got)
        case let .failure(error): failure = error
        }
        consumed = end
    }

    // The reference split of what was delivered.
    let delivered = stream[0..<consumed]
    var expected: [[UInt8]] = []
    var current: [UInt8] = []
    var expectedFailure = false
    for (offset, byte) in delivered.enumerated() {
        if byte == 0 {
            expected.append(current)
            current = []
        } else {
            current.append(byte)
        }
        // The reader checks at the end of each chunk.
        if (offset + 1) % chunk == 0 || offset + 1 == delivered.count {
            if current.count > limit || expected.contains(where: { $0.count > limit }) { expectedFailure = true }
        }
    }
    if let failure {
        require(expectedFailure, "the reader failed without an oversized message: \(failure)")
        require(failure.name == "org.varlink.service.InvalidParameter", "unexpected error \(failure.name)")
    } else {
        require(!expectedFailure, "an oversized message passed the reader")
        require(messages == expected, "the reader split \(messages.count) messages, expected \(expected.count)")
        require(reader.pendingCount == current.count, "pending \(reader.pendingCount), expected \(current.count)")
    }

    for message in messages.prefix(32) {
        _ = try? VarlinkReply(parsing: message)
        do {
            let call = try VarlinkCall(parsing: message)
            _ = (call.interface, call.member)
            let bytes = call.serialized()
            require(bytes.last == 0, "a serialized call without its NUL")
            let again = try VarlinkCall(parsing: Array(bytes.dropLast()))
            require(
                again.method == call.method && again.oneway == call.oneway && again.more == call.more
                    && again.upgrade == call.upgrade && close(.object(again.parameters), .object(call.parameters)),
                "a call does not survive serialization: \(call) vs \(again)")
            _ = VarlinkReply(parameters: call.parameters).serialized()
        } catch {
            require(!error.name.isEmpty, "an error without a name")
            _ = VarlinkReply.error(error).serialized()
        }
    }
    return 0
}

/// Equal, numbers exactly: CarplayJSON writes a double as its shortest round-tripping
/// text (Python's repr) and reads it back with the standard library's correctly rounded
/// conversion. (Foundation's JSONSerialization, which the project once used, was one or
/// two units in the last place off near 2^63; this target found that.)
func close(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case let (.number(x), .number(y)):
        return x == y
    case let (.array(x), .array(y)):
        return x.count == y.count && zip(x, y).allSatisfy { close($0, $1) }
    case let (.object(x), .object(y)):
        return x.count == y.count && x.allSatisfy { key, value in y[key].map { close(value, $0) } ?? false }
    default:
        return a == b
    }
}
