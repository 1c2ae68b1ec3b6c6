import CarplayJSON

/// Decodes candump lines into one JSON object per frame (`carplayctl dbc decode`), as
/// cantools' `decode` would print them.
/// Immutable after init, so both halves of a block can use it at once.
public struct CandumpToJSON: Sendable {
    /// Standard IDs by value; extended ones in an open-addressing table (`extendedKeys`,
    /// a power of two at least four times the count, `UInt32.max` for empty, linear
    /// probing) whose slots hold indices into `extendedOutputs`: one multiply and
    /// usually one probe per frame, where a binary search over a big DBC mispredicts.
    ///
    /// The tables hold unmanaged references: the per-frame lookup then costs no
    /// reference counting (two atomic operations per frame on an object both cores
    /// share); `owned` keeps every output alive as long as the decoder.
    private let owned: [MessageOutput]
    private let standard: [Unmanaged<MessageOutput>?]
    private let extendedKeys: [UInt32]
    private let extendedSlots: [Int]
    private let extendedOutputs: [Unmanaged<MessageOutput>]
    private let extendedShift: UInt32
    private let choices: Bool

    public init(database: DBCDatabase, choices: Bool) {
        var standard = [Unmanaged<MessageOutput>?](repeating: nil, count: Int(CANID.maxStandard) + 1)
        var extended: [UInt32: Unmanaged<MessageOutput>] = [:]
        var owned: [MessageOutput] = []
        for message in database.messages {
            let output = MessageOutput(message)
            owned.append(output)
            if message.canID.isExtended {
                extended[message.canID.rawValue] = .passUnretained(output)
            } else {
                standard[Int(message.canID.rawValue)] = .passUnretained(output)
            }
        }
        self.owned = owned
        self.standard = standard
        var bits: UInt32 = 2
        while (1 << bits) < extended.count * 4 { bits += 1 }
        var keys = [UInt32](repeating: .max, count: 1 << bits)
        var slots = [Int](repeating: 0, count: 1 << bits)
        var outputs: [Unmanaged<MessageOutput>] = []
        for (id, output) in extended.sorted(by: { $0.key < $1.key }) {
            var slot = Self.hash(id, shift: 32 - bits)
            while keys[slot] != .max { slot = (slot + 1) & (keys.count - 1) }
            keys[slot] = id
            slots[slot] = outputs.count
            outputs.append(output)
        }
        extendedKeys = keys
        extendedSlots = slots
        extendedOutputs = outputs
        extendedShift = 32 - bits
        self.choices = choices
    }

    @inline(__always)
    private static func hash(_ id: UInt32, shift: UInt32) -> Int {
        Int((id &* 0x9E37_79B1) >> shift)  // Fibonacci hashing: the top bits of the product
    }

    @inline(__always)
    private func output(for id: CANID) -> Unmanaged<MessageOutput>? {
        guard id.isExtended else { return standard[Int(id.rawValue)] }
        var slot = Self.hash(id.rawValue, shift: extendedShift)
        while true {
            let key = extendedKeys[slot]
            if key == id.rawValue { return extendedOutputs[extendedSlots[slot]] }
            if key == .max { return nil }
            slot = (slot + 1) & (extendedKeys.count - 1)
        }
    }

    /// What `decodeLines` saw: how many lines, and whether an error names a line number
    /// (then the numbers were only right if `firstLineNumber` was).
    public struct Summary: Sendable {
        public var lines: Int
        public var numberedErrors: Bool

        public init(lines: Int, numberedErrors: Bool) {
            self.lines = lines
            self.numberedErrors = numberedErrors
        }
    }

    /// Decodes every line of `lines` (each ending in `\n`, the last one may not),
    /// appending the JSON lines to `out`. Line numbers in errors start after `firstLineNumber`.
    @discardableResult
    public func decodeLines(_ lines: UnsafeBufferPointer<UInt8>, firstLineNumber: Int, into out: inout OutputBuffer) -> Summary {
        var storage: [UInt8] = []
        let payload = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 64)
        defer { payload.deallocate() }
        var lineNumber = firstLineNumber
        var numberedErrors = false
        var start = 0
        while start < lines.count {
            let end = lines.newline(from: start)
            lineNumber += 1
            let line = UnsafeBufferPointer(rebasing: lines[start..<end])
            // The common `-L` line goes straight to the codec; everything else through the full reader.
            if let frame = CandumpReader.scanCompactFrame(line, payload: payload) {
                decodeFrame(id: frame.id, data: UnsafeBufferPointer(rebasing: payload[0..<frame.count]), into: &out)
            } else if decodeLine(line, number: lineNumber, storage: &storage, into: &out) {
                numberedErrors = true
            }
            start = end + 1
        }
        return Summary(lines: lineNumber - firstLineNumber, numberedErrors: numberedErrors)
    }

    /// Returns true when it wrote an error naming the line number.
    private func decodeLine(_ line: UnsafeBufferPointer<UInt8>, number: Int, storage: inout [UInt8], into out: inout OutputBuffer) -> Bool {
        let parsed: CandumpLine
        do throws(CandumpParseError) {
            parsed = try CandumpReader.parseLine(line, reusing: &storage)
        } catch {
            var text = Array("{\"line\":".utf8)
            JSONBytes.appendInteger(number, to: &text)
            text.append(contentsOf: ",\"error\":".utf8)
            JSONBytes.appendString(error.description, to: &text)
            text.append(contentsOf: "}\n".utf8)
            out.append(text)
            return true
        }
        guard case let .record(record) = parsed else { return false }
        let frame = record.frame
        if frame.isRemote || frame.isError {
            appendUnknown(frame.id.rawValue, to: &out)
            return false
        }
        frame.data.withUnsafeBufferPointer { data in decodeFrame(id: frame.id, data: data, into: &out) }
        return false
    }

    private func appendUnknown(_ id: UInt32, to out: inout OutputBuffer) {
        var text = Array("{\"id\":".utf8)
        JSONBytes.appendInteger(id, to: &text)
        text.append(contentsOf: ",\"error\":\"unknown message\"}\n".utf8)
        out.append(text)
    }

    private func decodeFrame(id: CANID, data: UnsafeBufferPointer<UInt8>, into out: inout OutputBuffer) {
        guard let handle = output(for: id) else {
            appendUnknown(id.rawValue, to: &out)
            return
        }
        // Safe: `owned` keeps the output alive for the decoder's lifetime.
        handle._withUnsafeGuaranteedRef { output in decodeFrame(id: id, data: data, output: output, into: &out) }
    }

    @inline(__always)
    private func decodeFrame(id: CANID, data: UnsafeBufferPointer<UInt8>, output: MessageOutput, into out: inout OutputBuffer) {
        let mark = out.count
        // Room for the whole object, so the writes below need no capacity checks.
        out.reserve(output.maxLength)
        output.writePrefix(to: &out)
        var first = true
        do throws(DBCDecodeError) {
            try output.fastCodec.decode(data, choices: choices) { index, value in
                if !first { out.put(0x2C) }
                first = false
                output.writeKey(index, to: &out)
                output.writeValue(value, index: index, to: &out)
            }
            out.put(0x7D)
            out.put(0x7D)
            out.put(0x0A)
        } catch {
            out.truncate(to: mark)
            var text = Array("{\"id\":".utf8)
            JSONBytes.appendInteger(id.rawValue, to: &text)
            text.append(contentsOf: ",\"name\":".utf8)
            JSONBytes.appendString(output.name, to: &text)
            text.append(contentsOf: ",\"error\":".utf8)
            JSONBytes.appendString(error.description, to: &text)
            text.append(contentsOf: "}\n".utf8)
            out.append(text)
        }
    }
}

/// The decoder's output: bytes written through a pointer. `reserve(n)` makes room for
/// `n` bytes, after which up to `n` bytes of `put`/`write…` need no further checks -- the
/// per-frame path reserves once per frame (a growable `[UInt8]` checks uniqueness and
/// capacity on every append). A value type with manual memory: whoever creates one
/// calls `deallocate()` once, and copies must not outlive that.
public struct OutputBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    public init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    public func deallocate() { base.deallocate() }

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    public mutating func removeAll() { count = 0 }

    mutating func truncate(to mark: Int) { count = mark }

    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// One byte; the room was reserved.
    @inline(__always)
    mutating func put(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    /// Bytes; the room was reserved.
    @inline(__always)
    mutating func put(_ bytes: UnsafePointer<UInt8>, count length: Int) {
        let destination = base + count
        if length >= 8, length <= 256 {
            // Prefixes, keys, names: 8-byte moves (the last one overlapping) instead of a
            // memmove call per piece.
            let source = UnsafeRawPointer(bytes)
            let target = UnsafeMutableRawPointer(destination)
            var offset = 0
            while offset + 8 < length {
                target.storeBytes(of: source.loadUnaligned(fromByteOffset: offset, as: UInt64.self), toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self), toByteOffset: length - 8, as: UInt64.self)
        } else if length < 8 {
            for index in 0..<length { destination[index] = bytes[index] }
        } else {
            destination.update(from: bytes, count: length)
        }
        count += length
    }

    /// A number by one of `JSONBytes`' writers; `JSONBytes.maxNumberLength` bytes were reserved.
    @inline(__always)
    mutating func putNumber(_ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        count += write(base + count)
    }

    /// Bytes, with a capacity check (the rare paths).
    mutating func append(_ bytes: [UInt8]) {
        reserve(bytes.count)
        bytes.withUnsafeBufferPointer { pointer in
            if let start = pointer.baseAddress { put(start, count: pointer.count) }
        }
    }
}

/// Where one signal's texts are in `MessageOutput.text`.
private struct SignalText {
    /// `"Signal":`
    var keyStart: Int
    var keyCount: Int
    /// The JSON strings of the choice names by raw value minus `choiceBase` are entries
    /// `choiceFirst ..< choiceFirst + choiceCount` of `MessageOutput.choices` (an entry
    /// of count 0: no choice); `choiceCount` is 0 when the values span more than 1024.
    var choiceBase: Int128
    var choiceFirst: Int
    var choiceCount: Int
}

/// Per message: the codec and the JSON text that never changes, built once. A class
/// so the per-frame lookup hands out one reference instead of copying the codec.
///
/// @unchecked Sendable: every stored property is immutable after `init`, and the
/// memory behind `text`, `signals` and `choices` is written only in `init` and freed
/// only in `deinit`.
private final class MessageOutput: @unchecked Sendable {
    let codec: MessageCodec
    /// `codec` without reference counting on the per-frame path (`codec` owns it).
    unowned(unsafe) let fastCodec: MessageCodec
    let name: String
    /// The most bytes one decoded frame of this message writes.
    let maxLength: Int
    /// `{"id":N,"name":"…","signals":{`, then `"Signal":` for every signal back to back,
    /// then the JSON strings of the choice names.
    private let text: UnsafeMutablePointer<UInt8>
    private let prefixLength: Int
    private let signals: UnsafeMutablePointer<SignalText>
    private let choices: UnsafeMutablePointer<(start: Int, count: Int)>

    init(_ message: DBCMessage) {
        codec = message.codec
        fastCodec = message.codec
        name = message.name
        var bytes = Array("{\"id\":".utf8)
        JSONBytes.appendInteger(message.frameID, to: &bytes)
        bytes.append(contentsOf: ",\"name\":".utf8)
        JSONBytes.appendString(message.name, to: &bytes)
        bytes.append(contentsOf: ",\"signals\":{".utf8)
        prefixLength = bytes.count
        var signalTexts: [SignalText] = []
        var choiceEntries: [(start: Int, count: Int)] = []
        var longest = JSONBytes.maxNumberLength
        for (index, signal) in message.signals.enumerated() {
            let keyStart = bytes.count
            JSONBytes.appendString(message.codec.signalName(at: index), to: &bytes)
            bytes.append(0x3A)
            var entry = SignalText(keyStart: keyStart, keyCount: bytes.count - keyStart, choiceBase: 0, choiceFirst: choiceEntries.count, choiceCount: 0)
            // The last name of a duplicated value wins, as in the codec (and cantools).
            var byValue: [Int128: String] = [:]
            for choice in signal.choices { byValue[choice.value] = choice.name }
            if let low = byValue.keys.min(), let high = byValue.keys.max(), high - low < 1024 {
                entry.choiceBase = low
                entry.choiceCount = Int(high - low) + 1
                choiceEntries.append(contentsOf: [(start: Int, count: Int)](repeating: (start: 0, count: 0), count: entry.choiceCount))
                for (value, choiceName) in byValue {
                    let start = bytes.count
                    JSONBytes.appendString(choiceName, to: &bytes)
                    choiceEntries[entry.choiceFirst + Int(value - low)] = (start, bytes.count - start)
                    longest = max(longest, bytes.count - start)
                }
            } else {
                // Escaped at decode time: at most 6 bytes a byte, plus the quotes.
                for choice in signal.choices { longest = max(longest, choice.name.utf8.count * 6 + 2) }
            }
            signalTexts.append(entry)
        }
        maxLength = prefixLength + signalTexts.reduce(0) { $0 + $1.keyCount + 1 + longest } + 3
        signals = .allocate(capacity: max(signalTexts.count, 1))
        signals.initialize(from: signalTexts, count: signalTexts.count)
        choices = .allocate(capacity: max(choiceEntries.count, 1))
        choices.initialize(from: choiceEntries, count: choiceEntries.count)
        text = .allocate(capacity: max(bytes.count, 1))
        text.initialize(from: bytes, count: bytes.count)
    }

    deinit {
        text.deallocate()
        signals.deallocate()
        choices.deallocate()
    }

    @inline(__always)
    func writePrefix(to out: inout OutputBuffer) {
        out.put(text, count: prefixLength)
    }

    @inline(__always)
    func writeKey(_ index: Int, to out: inout OutputBuffer) {
        out.put(text + signals[index].keyStart, count: signals[index].keyCount)
    }

    @inline(__always)
    func writeValue(_ value: SignalValue, index: Int, to out: inout OutputBuffer) {
        switch value {
        case let .integer(number):
            out.putNumber { JSONBytes.writeInteger(number, to: $0) }
        case let .float(number):
            out.putNumber { JSONBytes.writeDouble(number, to: $0) }
        case let .choice(choiceName, raw):
            let signal = signals[index]
            let offset = raw &- signal.choiceBase
            if offset >= 0, offset < signal.choiceCount {
                let entry = choices[signal.choiceFirst + Int(offset)]
                if entry.count > 0 {
                    out.put(text + entry.start, count: entry.count)
                    return
                }
            }
            var escaped: [UInt8] = []
            JSONBytes.appendString(choiceName, to: &escaped)
            out.append(escaped)
        }
    }
}
