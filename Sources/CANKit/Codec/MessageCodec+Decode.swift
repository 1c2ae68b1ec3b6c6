extension MessageCodec {
    /// Decodes a payload into the signals present for its multiplexer values, in
    /// cantools' order. `choices: false` gives numbers instead of choice names.
    public func decode(_ data: [UInt8], choices: Bool = true) throws(DBCDecodeError) -> [(name: String, value: SignalValue)] {
        var result: [(name: String, value: SignalValue)] = []
        result.reserveCapacity(fields.count)
        try data.withUnsafeBufferPointer { (buffer) throws(DBCDecodeError) in
            try decode(buffer, choices: choices) { index, value in result.append((fields[index].name, value)) }
        }
        return result
    }

    /// The name of the signal at `index`, as passed to the visitor of `decode(_:choices:visit:)`.
    public func signalName(at index: Int) -> String { fields[index].name }

    /// The allocation-free core: calls `visit(signalIndex, value)` for each present signal.
    /// A payload longer than the message is accepted (the excess is ignored), as in cantools.
    public func decode(
        _ data: UnsafeBufferPointer<UInt8>, choices: Bool, visit: (Int, SignalValue) -> Void
    ) throws(DBCDecodeError) {
        if let problem { throw .unusableMessage(message: messageName, reason: problem) }
        guard data.count >= length else {
            throw .wrongLength(message: messageName, actual: data.count, expected: length)
        }
        try decode(planNode: 0, data, choices: choices, visit: visit)
    }

    private func decode(
        planNode: Int, _ data: UnsafeBufferPointer<UInt8>, choices: Bool, visit: (Int, SignalValue) -> Void
    ) throws(DBCDecodeError) {
        let node = plan.nodes[planNode]
        for position in node.signalStart..<(node.signalStart + node.signalCount) {
            let index = plan.signals[position]
            visit(index, SignalField.value(fields.baseAddress! + index, in: data, choices: choices))
        }
        for position in node.muxStart..<(node.muxStart + node.muxCount) {
            let mux = plan.muxes[position]
            let selector = SignalField.value(fields.baseAddress! + mux.signal, in: data, choices: choices)
            guard let id = fields[mux.signal].multiplexerNumber(selector), let branch = plan.branch(mux, id) else {
                throw .invalidMultiplexerValue(
                    message: messageName, multiplexer: fields[mux.signal].name,
                    value: fields[mux.signal].multiplexerNumber128(selector) ?? 0, expected: plan.expectedIDs(mux))
            }
            try decode(planNode: branch, data, choices: choices, visit: visit)
        }
    }
}

extension SignalField {
    /// The physical value, exactly as cantools computes it.
    ///
    /// Static, on a pointer: it reads the members it needs in place. A method called on
    /// `fields[index]` made the compiler copy the whole field (240 bytes, a memcpy per
    /// decoded signal: ~7% of `carplayctl dbc decode`).
    @inline(__always)
    static func value(_ field: UnsafePointer<SignalField>, in data: UnsafeBufferPointer<UInt8>, choices: Bool) -> SignalValue {
        let bits = rawBits(field, in: data)
        let valueType = field.pointee.valueType
        switch valueType {
        case let .integer(signed):
            let length = field.pointee.length
            // Everything but unsigned 64-bit fields fits Int64: the fast, common path.
            guard signed || length < 64 else { return field.pointee.integerValue(Int128(bits), choices: choices) }
            var raw = Int64(bitPattern: bits)
            if signed, length < 64, bits & (UInt64(1) << UInt64(length - 1)) != 0 {
                raw = raw &- Int64(bitPattern: UInt64(1) << UInt64(length))  // wraps correctly for 63 bits
            }
            if choices, !field.pointee.choicesByValue.isEmpty, let name = choiceName(field, raw) {
                return .choice(name, raw: Int128(raw))
            }
            switch field.pointee.conversion {
            case .identity:
                return .integer(Int128(raw))
            case let .integer(scale, offset):
                if let scale64 = Int64(exactly: scale), let offset64 = Int64(exactly: offset) {
                    let (product, overflow) = raw.multipliedReportingOverflow(by: scale64)
                    let (sum, overflow2) = product.addingReportingOverflow(offset64)
                    if !overflow, !overflow2 { return .integer(Int128(sum)) }
                }
                return field.pointee.integerValue(Int128(raw), choices: false)
            case let .linear(scale, _):
                return .float(Double(raw) * scale + field.pointee.offsetValue)
            }
        case .float32, .float64:
            let raw = valueType == .float32 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits)
            // cantools looks choices up by int(raw); a NaN or infinity has none.
            if choices, !field.pointee.choicesByValue.isEmpty, raw.isFinite, abs(raw) < 1e38, let name = field.pointee.choicesByValue[Int128(raw)] {
                return .choice(name, raw: Int128(raw))
            }
            switch field.pointee.conversion {
            case .identity, .integer:
                return .float(raw)
            case let .linear(scale, _):
                return .float(raw * scale + field.pointee.offsetValue)
            }
        }
    }

    /// The field's bits, right-aligned.
    @inline(__always)
    static func rawBits(_ field: UnsafePointer<SignalField>, in data: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let first = field.pointee.firstByte
        let last = field.pointee.lastByte
        let shift = field.pointee.shift
        let mask = field.pointee.mask
        let bigEndian = field.pointee.bigEndian
        if last - first < 8 {
            return (assemble(UInt64.self, data, first, last, bigEndian) >> UInt64(shift)) & mask
        }
        // Nine bytes: a 64-bit field that does not start on a byte boundary.
        return UInt64(truncatingIfNeeded: assemble(UInt128.self, data, first, last, bigEndian) >> UInt128(shift)) & mask
    }

    @inline(__always)
    private static func assemble<T: FixedWidthInteger & UnsignedInteger>(
        _: T.Type, _ data: UnsafeBufferPointer<UInt8>, _ firstByte: Int, _ lastByte: Int, _ bigEndian: Bool
    ) -> T {
        var accumulator: T = 0
        if bigEndian {
            for byte in firstByte...lastByte { accumulator = accumulator << 8 | T(data[byte]) }
        } else {
            var byte = lastByte
            while byte >= firstByte {
                accumulator = accumulator << 8 | T(data[byte])
                byte -= 1
            }
        }
        return accumulator
    }

    /// The choice named for an integer raw value, if any.
    @inline(__always)
    static func choiceName(_ field: UnsafePointer<SignalField>, _ raw: Int64) -> String? {
        if !field.pointee.denseChoices.isEmpty {
            let (offset, overflow) = raw.subtractingReportingOverflow(field.pointee.denseChoiceBase)
            guard !overflow, offset >= 0, offset < field.pointee.denseChoices.count else { return nil }
            return field.pointee.denseChoices[Int(offset)]
        }
        return field.pointee.choicesBySmallValue[raw] ?? (field.pointee.hasWideChoices ? field.pointee.choicesByValue[Int128(raw)] : nil)
    }

    /// The general (slow) path, for raw values that need 128-bit arithmetic.
    private func integerValue(_ raw: Int128, choices: Bool) -> SignalValue {
        if choices, !choicesByValue.isEmpty, let name = choicesByValue[raw] { return .choice(name, raw: raw) }
        switch conversion {
        case .identity:
            return .integer(raw)
        case let .integer(scale, offset):
            let (product, overflow) = raw.multipliedReportingOverflow(by: scale)
            let (sum, overflow2) = product.addingReportingOverflow(offset)
            if overflow || overflow2 { return .float(Double(int128: raw) * Double(int128: scale) + Double(int128: offset)) }
            return .integer(sum)
        case let .linear(scale, _):
            return .float(Double(int128: raw) * scale + offsetValue)
        }
    }

    /// cantools' `_get_mux_number`: a choice by its name, a number by `int()`.
    @inline(__always)
    func multiplexerNumber128(_ value: SignalValue) -> Int128? {
        switch value {
        case let .choice(name, _): return choicesByName[name]
        case let .integer(number): return number
        case let .float(number):
            guard number.isFinite, abs(number) < 1e38 else { return nil }
            return Int128(number.rounded(.towardZero))
        }
    }

    @inline(__always)
    func multiplexerNumber(_ value: SignalValue) -> Int? {
        if case let .integer(number) = value { return Int(exactly: number) }
        return multiplexerNumber128(value).flatMap { Int(exactly: $0) }
    }
}
