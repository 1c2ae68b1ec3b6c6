import CANKit

/// Decodes candump lines into one JSON object per frame, for `dbc decode`.
/// Immutable after init, so both halves of a block can use it at once.
struct FrameJSONDecoder: Sendable {
    private let outputs: [CANID: MessageOutput]
    private let choices: Bool

    init(database: DBCDatabase, choices: Bool) {
        var outputs: [CANID: MessageOutput] = [:]
        for message in database.messages {
            outputs[message.canID] = MessageOutput(message)
        }
        self.outputs = outputs
        self.choices = choices
    }

    /// Decodes every line of `lines` (each ending in `\n`, the last one may not),
    /// appending the JSON lines to `out`. Line numbers in errors start after `firstLineNumber`.
    func decodeLines(_ lines: UnsafeBufferPointer<UInt8>, firstLineNumber: Int, into out: inout [UInt8]) {
        var storage: [UInt8] = []
        let payload = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 64)
        defer { payload.deallocate() }
        var lineNumber = firstLineNumber
        var start = 0
        while start < lines.count {
            var end = start
            while end < lines.count, lines[end] != 0x0A { end += 1 }
            lineNumber += 1
            let line = UnsafeBufferPointer(rebasing: lines[start..<end])
            // The common `-L` line goes straight to the codec; everything else through the full reader.
            if let frame = CandumpReader.scanCompactFrame(line, payload: payload) {
                decodeFrame(id: frame.id, data: UnsafeBufferPointer(rebasing: payload[0..<frame.count]), into: &out)
            } else {
                decodeLine(line, number: lineNumber, storage: &storage, into: &out)
            }
            start = end + 1
        }
    }

    private func decodeLine(_ line: UnsafeBufferPointer<UInt8>, number: Int, storage: inout [UInt8], into out: inout [UInt8]) {
        let parsed: CandumpLine
        do throws(CandumpParseError) {
            parsed = try CandumpReader.parseLine(line, reusing: &storage)
        } catch {
            append("{\"line\":", to: &out)
            JSONBytes.appendInteger(number, to: &out)
            append(",\"error\":", to: &out)
            JSONBytes.appendString(error.description, to: &out)
            append("}\n", to: &out)
            return
        }
        guard case let .record(record) = parsed else { return }
        let frame = record.frame
        if frame.isRemote || frame.isError {
            appendUnknown(frame.id.rawValue, to: &out)
            return
        }
        frame.data.withUnsafeBufferPointer { data in decodeFrame(id: frame.id, data: data, into: &out) }
    }

    private func appendUnknown(_ id: UInt32, to out: inout [UInt8]) {
        append("{\"id\":", to: &out)
        JSONBytes.appendInteger(id, to: &out)
        append(",\"error\":\"unknown message\"}\n", to: &out)
    }

    private func decodeFrame(id: CANID, data: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        guard let output = outputs[id] else {
            appendUnknown(id.rawValue, to: &out)
            return
        }
        let mark = out.count
        output.appendPrefix(to: &out)
        var first = true
        do throws(DBCDecodeError) {
            try output.codec.decode(data, choices: choices) { index, value in
                if !first { out.append(0x2C) }
                first = false
                output.appendKey(index, to: &out)
                JSONBytes.appendValue(value, to: &out)
            }
            append("}}\n", to: &out)
        } catch {
            out.removeSubrange(mark...)
            append("{\"id\":", to: &out)
            JSONBytes.appendInteger(id.rawValue, to: &out)
            append(",\"name\":", to: &out)
            JSONBytes.appendString(output.name, to: &out)
            append(",\"error\":", to: &out)
            JSONBytes.appendString(error.description, to: &out)
            append("}\n", to: &out)
        }
    }

    @inline(__always)
    private func append(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

/// Per message: the codec and the JSON text that never changes, built once. A class
/// so the per-frame lookup hands out one reference instead of copying the codec.
///
/// @unchecked Sendable: every stored property is immutable after `init`, and the
/// bytes behind `text` are written only in `init` and freed only in `deinit`.
private final class MessageOutput: @unchecked Sendable {
    let codec: MessageCodec
    let name: String
    /// `{"id":N,"name":"…","signals":{` then `"Signal":` for every signal, back to back.
    private let text: UnsafeMutableBufferPointer<UInt8>
    private let prefixLength: Int
    private let keyRanges: [Range<Int>]

    init(_ message: DBCMessage) {
        codec = message.codec
        name = message.name
        var bytes = Array("{\"id\":".utf8)
        JSONBytes.appendInteger(message.frameID, to: &bytes)
        bytes.append(contentsOf: ",\"name\":".utf8)
        JSONBytes.appendString(message.name, to: &bytes)
        bytes.append(contentsOf: ",\"signals\":{".utf8)
        prefixLength = bytes.count
        var ranges: [Range<Int>] = []
        for index in message.signals.indices {
            let start = bytes.count
            JSONBytes.appendString(message.codec.signalName(at: index), to: &bytes)
            bytes.append(0x3A)
            ranges.append(start..<bytes.count)
        }
        keyRanges = ranges
        text = .allocate(capacity: bytes.count)
        _ = text.initialize(from: bytes)
    }

    deinit { text.deallocate() }

    @inline(__always)
    func appendPrefix(to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: text[0..<prefixLength]))
    }

    @inline(__always)
    func appendKey(_ index: Int, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: text[keyRanges[index]]))
    }
}
