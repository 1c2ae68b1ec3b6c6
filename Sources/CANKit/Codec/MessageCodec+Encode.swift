import CarplayJSON

extension MessageCodec {
    /// Encodes physical values (or choice names) into a payload of the message's length,
    /// with cantools' strict rules: exactly the signals of the selected multiplexer path,
    /// each within its range, none too large for its bits. Unused bits are 0.
    ///
    /// Where cantools refuses a message whose signals overlap, this encodes the signals
    /// given: a signal that shares bits with another may be left out, and two given
    /// signals that share a bit are an error naming both (`overlappingSignals`).
    public func encode(_ values: [String: SignalInput]) throws(DBCEncodeError) -> [UInt8] {
        if let problem { throw .unusableMessage(message: messageName, reason: problem) }
        // Each field's input, looked up once (fields with the same name share it).
        var inputs = [SignalInputs.Slot](repeating: SignalInputs.Slot(), count: fields.count)
        for index in 0..<fields.count { inputs[index].input = values[fields[index].name] }
        return try inputs.withUnsafeBufferPointer { (inputs) throws(DBCEncodeError) in
            try encode(inputs, given: values.count) { used in
                let usedNames = Set(used.map { fields[$0].name })
                return values.keys.filter { !usedNames.contains($0) }.sorted()
            }
        }
    }

    /// Encodes inputs given by signal index, with the rules of `encode(_:)`. Inputs set
    /// once and encoded many times (a message's "no request" values) keep their
    /// validated raw values, so only the changed ones are scaled and checked again.
    public func encode(_ inputs: SignalInputs) throws(DBCEncodeError) -> [UInt8] {
        precondition(inputs.codec === self, "SignalInputs of message \(inputs.codec.messageName) encoded with the codec of \(messageName)")
        return try inputs.slots.withUnsafeBufferPointer { (slots) throws(DBCEncodeError) in
            try encode(slots, given: inputs.given) { used in
                let used = Set(used)
                return slots.indices.filter { slots[$0].input != nil && !used.contains($0) }.map { fields[$0].name }.sorted()
            }
        }
    }

    /// The index of the signal named `name` in codec order (`signalNames`), as
    /// `SignalInputs` and the visitor of `decode(_:choices:visit:)` number signals.
    public func index(ofSignal name: String) -> Int? { signalIndex[name] }

    /// The core: the inputs (and raw values known) by field index; `given` counts the
    /// inputs, `extras` names the ones the selected path does not use (for the error).
    private func encode(
        _ inputs: UnsafeBufferPointer<SignalInputs.Slot>, given: Int, extras: ([Int]) -> [String]
    ) throws(DBCEncodeError) -> [UInt8] {
        if let problem { throw .unusableMessage(message: messageName, reason: problem) }
        return try withUnsafeTemporaryAllocation(of: Int.self, capacity: fields.count) { (used) throws(DBCEncodeError) in
            var count = 0
            try gather(planNode: 0, inputs, into: used, count: &count)
            if count != given {
                let extra = extras(Array(used[..<count]))
                if !extra.isEmpty { throw .unexpectedSignals(message: messageName, signals: extra) }
            }
            if hasOverlaps, let (first, second) = collision(among: UnsafeBufferPointer(rebasing: used[..<count])) {
                throw .overlappingSignals(message: messageName, signal: fields[first].name, other: fields[second].name)
            }
            // Validate every value before writing any bit.
            return try withUnsafeTemporaryAllocation(of: RawNumber.self, capacity: count) { (raws) throws(DBCEncodeError) in
                for position in 0..<count {
                    let index = used[position]
                    if let raw = inputs[index].raw {
                        raws.initializeElement(at: position, to: raw)
                    } else {
                        raws.initializeElement(
                            at: position, to: try SignalField.rawValue(fields.baseAddress! + index, for: inputs[index].input!, message: messageName))
                    }
                }
                var payload = [UInt8](repeating: 0, count: length)
                for position in 0..<count {
                    try SignalField.place(fields.baseAddress! + used[position], raws[position], into: &payload, message: messageName)
                }
                return payload
            }
        }
    }

    /// cantools' `gather_signals`: the signals required by the selected multiplexer path,
    /// appended to `used[count...]`.
    private func gather(
        planNode: Int, _ inputs: UnsafeBufferPointer<SignalInputs.Slot>, into used: UnsafeMutableBufferPointer<Int>, count: inout Int
    ) throws(DBCEncodeError) {
        let node = plan.nodes[planNode]
        for position in node.signalStart..<(node.signalStart + node.signalCount) {
            let index = plan.signals[position]
            guard inputs[index].input != nil else {
                // A signal that shares bits with another is written only when given.
                if hasOverlaps, !overlaps[index].isEmpty { continue }
                throw .missingSignal(message: messageName, signal: fields[index].name)
            }
            // A path holds each signal once (a cycle makes the message unusable).
            precondition(count < used.count, "multiplexer path of \(messageName) longer than its signals")
            used[count] = index
            count += 1
        }
        for position in node.muxStart..<(node.muxStart + node.muxCount) {
            let mux = plan.muxes[position]
            // Only a multiplexer that overlaps another can be missing here; without it no branch is selected.
            guard let input = inputs[mux.signal].input else { throw .missingSignal(message: messageName, signal: fields[mux.signal].name) }
            var selected: Int?
            switch input {
            case let .choice(name): selected = fields[mux.signal].choicesByName[name].flatMap { Int(exactly: $0) }
            case let .integer(number): selected = Int(exactly: number)
            case let .float(number):
                if number.isFinite, abs(number) < 1e18 { selected = Int(number.rounded(.towardZero)) }
            }
            guard let selected, let branch = plan.branch(mux, selected) else {
                throw .invalidMultiplexerValue(
                    message: messageName, multiplexer: fields[mux.signal].name, value: input.description, expected: plan.expectedIDs(mux))
            }
            try gather(planNode: branch, inputs, into: used, count: &count)
        }
    }
}

extension MessageCodec {
    /// The signals that share a bit with the signal at `index` (codec order) on some
    /// multiplexer path; empty for most signals.
    public func overlappingSignals(ofSignalAt index: Int) -> [Int] { overlaps[index] }

    /// Whether any two signals of the message share a bit on some multiplexer path.
    public var hasOverlappingSignals: Bool { hasOverlaps }

    /// The path a frame takes when its multiplexers take `values` (multiplexer signal
    /// index -> value; one not given takes its lowest branch): every multiplexer's value
    /// on it, and its signals (codec order, as `encode` requires them). Nil when a given
    /// value selects no branch. A message without multiplexers has one path.
    public func path(selecting values: [Int: Int]) -> (values: [Int: Int], signals: [Int])? {
        var chosen: [Int: Int] = [:]
        var signals: [Int] = []
        func walk(_ planNode: Int) -> Bool {
            let node = plan.nodes[planNode]
            for position in node.signalStart..<(node.signalStart + node.signalCount) { signals.append(plan.signals[position]) }
            for position in node.muxStart..<(node.muxStart + node.muxCount) {
                let mux = plan.muxes[position]
                guard let id = values[mux.signal] ?? plan.expectedIDs(mux).first, let branch = plan.branch(mux, id) else { return false }
                chosen[mux.signal] = id
                guard walk(branch) else { return false }
            }
            return true
        }
        return walk(0) ? (chosen, signals) : nil
    }

    /// The first two of `signals` (codec order) that share a bit, in the order given.
    public func collision(among signals: some Collection<Int>) -> (Int, Int)? {
        guard hasOverlaps else { return nil }
        var seen = Set<Int>()
        for index in signals {
            if let other = overlaps[index].first(where: seen.contains) { return (other, index) }
            seen.insert(index)
        }
        return nil
    }
}

/// The inputs of one message by signal index (codec order, see
/// `MessageCodec.index(ofSignal:)`), for encoding it many times: each input's raw value
/// is computed when it is set, so inputs that stay (the "no request" values of a
/// command message) are not scaled and range-checked on every frame. An input that does
/// not encode keeps no raw value; `MessageCodec.encode(_:)` then reports its error.
public struct SignalInputs: Sendable {
    /// A signal's input and, when it encodes, its raw value.
    struct Slot: Sendable {
        var input: SignalInput?
        var raw: RawNumber?
    }

    public let codec: MessageCodec
    /// By signal index (one array: a modified copy allocates once).
    fileprivate(set) var slots: [Slot]
    /// How many inputs are set.
    public private(set) var given = 0

    /// No inputs set.
    public init(codec: MessageCodec) {
        self.codec = codec
        slots = [Slot](repeating: Slot(), count: codec.fields.count)
    }

    /// The input of the signal at `index`; nil when none is given.
    public subscript(index: Int) -> SignalInput? {
        get { slots[index].input }
        set {
            if (slots[index].input == nil) != (newValue == nil) { given += newValue == nil ? -1 : 1 }
            let raw = newValue.flatMap { try? SignalField.rawValue(codec.fields.baseAddress! + index, for: $0, message: codec.messageName) }
            slots[index] = Slot(input: newValue, raw: raw)
        }
    }
}

/// A raw value as cantools holds it before packing: an int, or a float for float signals.
enum RawNumber: Sendable {
    case integer(Int128)
    case float(Double)
}

// The encode path reads a field through a pointer to the codec's table and touches
// only the members it needs: a method on `fields[index]` would copy the whole field
// (its names and choice tables: a retain and release each) for every call.
extension SignalField {
    /// cantools' `numeric_scaled_to_raw` plus the strict range check.
    static func rawValue(_ field: UnsafePointer<SignalField>, for input: SignalInput, message: String) throws(DBCEncodeError) -> RawNumber {
        let raw: RawNumber
        switch input {
        case let .choice(name):
            guard let value = field.pointee.choicesByName[name] else {
                throw .unknownChoice(message: message, signal: field.pointee.name, choice: name, known: field.pointee.choiceNames)
            }
            return .integer(value)
        case let .integer(number):
            try requireScale(field, message: message)
            raw = try scaledToRaw(field, integer: number, message: message)
        case let .float(number):
            try requireScale(field, message: message)
            raw = try scaledToRaw(field, float: number, message: message)
        }

        // A raw value that names a choice skips the range check.
        if field.pointee.hasChoices {
            switch raw {
            case let .integer(value): if field.pointee.choicesByValue[value] != nil { return raw }
            case let .float(value):
                if value.isFinite, value.rounded(.towardZero) == value, abs(value) < 1e38, field.pointee.choicesByValue[Int128(value)] != nil { return raw }
            }
        }
        let scaled = input.doubleValue!
        let tolerance = field.pointee.scaleMagnitude * 1e-6
        if field.pointee.hasMinimum, scaled < field.pointee.minimumValue - tolerance {
            throw .belowMinimum(message: message, signal: field.pointee.name, value: input.description, minimum: field.pointee.minimum!.description)
        }
        if field.pointee.hasMaximum, scaled > field.pointee.maximumValue + tolerance {
            throw .aboveMaximum(message: message, signal: field.pointee.name, value: input.description, maximum: field.pointee.maximum!.description)
        }
        return raw
    }

    /// A factor of 0 maps every raw value to the offset: no raw value can be computed
    /// from a physical one (cantools raises ZeroDivisionError). Found by fuzzing.
    @inline(__always)
    private static func requireScale(_ field: UnsafePointer<SignalField>, message: String) throws(DBCEncodeError) {
        guard field.pointee.scaleMagnitude == 0 else { return }
        throw .unusableMessage(message: message, reason: "signal \(field.pointee.name) has a factor of 0, so no raw value gives a physical value")
    }

    private static func scaledToRaw(_ field: UnsafePointer<SignalField>, integer value: Int128, message: String) throws(DBCEncodeError) -> RawNumber {
        let conversion = field.pointee.conversion
        if field.pointee.valueType.isFloat {
            switch conversion {
            case .identity, .integer: return .integer(value)
            case let .linear(scale, offset): return .float(difference(value, offset) / scale)
            }
        }
        switch conversion {
        case .identity:
            return .integer(value)
        case let .integer(scale, offset):
            let (difference, overflow) = value.subtractingReportingOverflow(offset)
            guard !overflow else { throw .notANumber(message: message, signal: field.pointee.name, value: String(value)) }
            // Reporting overflow: Int128.min / -1 does not fit.
            let (remainder, remainderOverflow) = difference.remainderReportingOverflow(dividingBy: scale)
            if !remainderOverflow, remainder == 0 {
                let (quotient, quotientOverflow) = difference.dividedReportingOverflow(by: scale)
                if !quotientOverflow { return .integer(quotient) }
            }
            return try rounded(field, Double(int128: difference) / Double(int128: scale), input: String(value), message: message)
        case let .linear(scale, offset):
            return try rounded(field, difference(value, offset) / scale, input: String(value), message: message)
        }
    }

    private static func scaledToRaw(_ field: UnsafePointer<SignalField>, float value: Double, message: String) throws(DBCEncodeError) -> RawNumber {
        switch field.pointee.conversion {
        case .identity:
            return field.pointee.valueType.isFloat ? .float(value) : try rounded(field, value, input: PythonFloat.repr(value), message: message)
        case .integer:
            // offsetValue and scaleValue: Double(offset) and Double(scale), computed once.
            let difference = value - field.pointee.offsetValue
            let scale = field.pointee.scaleValue
            let (quotient, remainder) = PythonFloat.divmod(difference, scale)
            return try rounded(field, remainder == 0 ? quotient : difference / scale, input: PythonFloat.repr(value), message: message)
        case let .linear(scale, _):
            let raw = (value - field.pointee.offsetValue) / scale
            return field.pointee.valueType.isFloat ? .float(raw) : try rounded(field, raw, input: PythonFloat.repr(value), message: message)
        }
    }

    /// `scaled - offset` as Python computes it: exact for int - int, float otherwise.
    @inline(__always)
    private static func difference(_ value: Int128, _ offset: DBCNumber) -> Double {
        if case let .integer(integerOffset) = offset {
            let (difference, overflow) = value.subtractingReportingOverflow(integerOffset)
            if !overflow { return Double(int128: difference) }
        }
        return Double(int128: value) - offset.doubleValue
    }

    /// `input` (the value as the error shows it) is formatted only for the error.
    @inline(__always)
    private static func rounded(
        _ field: UnsafePointer<SignalField>, _ value: Double, input: @autoclosure () -> String, message: String
    ) throws(DBCEncodeError) -> RawNumber {
        guard let integer = Int128(pythonRounding: value) else {
            throw .notANumber(message: message, signal: field.pointee.name, value: input())
        }
        return .integer(integer)
    }

    /// ORs the shifted field into its bytes, least significant byte at the field's end.
    @inline(__always)
    private static func write<T: FixedWidthInteger & UnsignedInteger>(
        _ shifted: T, bigEndian: Bool, firstByte: Int, lastByte: Int, into payload: inout [UInt8]
    ) {
        var accumulator = shifted
        if bigEndian {
            var byte = lastByte
            while byte >= firstByte {
                payload[byte] |= UInt8(truncatingIfNeeded: accumulator)
                accumulator >>= 8
                byte -= 1
            }
        } else {
            for byte in firstByte...lastByte {
                payload[byte] |= UInt8(truncatingIfNeeded: accumulator)
                accumulator >>= 8
            }
        }
    }

    /// Writes the raw value's bits; a value that does not fit is an error, never truncated.
    static func place(_ field: UnsafePointer<SignalField>, _ raw: RawNumber, into payload: inout [UInt8], message: String) throws(DBCEncodeError) {
        let bits: UInt64
        let length = field.pointee.length
        let mask = field.pointee.mask
        switch field.pointee.valueType {
        case let .integer(signed):
            let value: Int128
            switch raw {
            case let .integer(integer): value = integer
            case let .float(real):
                guard let integer = Int128(pythonRounding: real) else {
                    throw .notANumber(message: message, signal: field.pointee.name, value: PythonFloat.repr(real))
                }
                value = integer
            }
            let fits: Bool
            if signed {
                let limit = Int128(1) << Int128(length - 1)
                fits = value >= -limit && value < limit
            } else {
                fits = value >= 0 && value <= Int128(mask)
            }
            guard fits else {
                throw .rawValueOutOfRange(message: message, signal: field.pointee.name, value: String(value), raw: String(value), bits: length, signed: signed)
            }
            bits = UInt64(truncatingIfNeeded: value) & mask
        case .float32:
            let real: Double
            switch raw {
            case let .integer(integer): real = Double(int128: integer)
            case let .float(value): real = value
            }
            let single = Float(real)
            guard single.isFinite || !real.isFinite else {
                throw .rawValueOutOfRange(
                    message: message, signal: field.pointee.name, value: PythonFloat.repr(real), raw: PythonFloat.repr(real), bits: 32, signed: true)
            }
            bits = UInt64(single.bitPattern)
        case .float64:
            switch raw {
            case let .integer(integer): bits = Double(int128: integer).bitPattern
            case let .float(value): bits = value.bitPattern
            }
        }
        let (bigEndian, firstByte, lastByte, shift) = (field.pointee.bigEndian, field.pointee.firstByte, field.pointee.lastByte, field.pointee.shift)
        if lastByte - firstByte < 8 {
            write(bits << UInt64(shift), bigEndian: bigEndian, firstByte: firstByte, lastByte: lastByte, into: &payload)
        } else {
            // Nine bytes: a 64-bit field that does not start on a byte boundary.
            write(UInt128(bits) << UInt128(shift), bigEndian: bigEndian, firstByte: firstByte, lastByte: lastByte, into: &payload)
        }
    }
}

extension MessageCodec {
    /// The physical input that encodes to `raw` for `signal` (a choice name when the raw
    /// value has one), e.g. to fill a signal with its "no request" raw value.
    public func input(forRaw raw: Int128, signal: String) -> SignalInput? {
        signalIndex[signal].map { input(forRaw: raw, signalAt: $0) }
    }

    /// `input(forRaw:signal:)` for the signal at `index` (codec order).
    public func input(forRaw raw: Int128, signalAt index: Int) -> SignalInput {
        let field = fields.baseAddress! + index
        if let name = field.pointee.choicesByValue[raw] { return .choice(name) }
        switch field.pointee.conversion {
        case .identity: return field.pointee.valueType.isFloat ? .float(Double(int128: raw)) : .integer(raw)
        case let .integer(scale, offset):
            // Huge factors and offsets: Python's integers do not overflow; the float is the closest input.
            let (product, overflow) = raw.multipliedReportingOverflow(by: scale)
            let (sum, overflow2) = product.addingReportingOverflow(offset)
            if overflow || overflow2 { return .float(Double(int128: raw) * Double(int128: scale) + Double(int128: offset)) }
            return .integer(sum)
        case let .linear(scale, _): return .float(Double(int128: raw) * scale + field.pointee.offsetValue)
        }
    }

    /// What the signal reports after carrying `value`: encoded to raw (rounded as
    /// cantools rounds) and decoded back. Nil when the value cannot be encoded.
    public func roundTrip(_ value: SignalInput, signal: String, choices: Bool = true) -> SignalValue? {
        signalIndex[signal].flatMap { roundTrip(value, signalAt: $0, choices: choices) }
    }

    /// `roundTrip(_:signal:choices:)` for the signal at `index` (codec order).
    public func roundTrip(_ value: SignalInput, signalAt index: Int, choices: Bool = true) -> SignalValue? {
        try? carried(value, signalAt: index, choices: choices)
    }

    /// `roundTrip(_:signalAt:choices:)`, or why the signal cannot carry `value` (its range,
    /// its bits, its choices). The signal alone: the message's other signals, and whether
    /// they overlap it, play no part.
    public func carried(_ value: SignalInput, signalAt index: Int, choices: Bool = true) throws(DBCEncodeError) -> SignalValue {
        let field = fields.baseAddress! + index
        let raw = try SignalField.rawValue(field, for: value, message: messageName)
        var payload = [UInt8](repeating: 0, count: max(length, field.pointee.lastByte + 1))
        try SignalField.place(field, raw, into: &payload, message: messageName)
        return payload.withUnsafeBufferPointer { SignalField.value(field, in: $0, choices: choices) }
    }

    /// The names of the message's signals, in codec order.
    public var signalNames: [String] { fields.map(\.name) }
}
