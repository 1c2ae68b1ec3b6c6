extension MessageCodec {
    /// Encodes physical values (or choice names) into a payload of the message's length,
    /// with cantools' strict rules: exactly the signals of the selected multiplexer path,
    /// each within its range, none too large for its bits. Unused bits are 0.
    public func encode(_ values: [String: SignalInput]) throws(DBCEncodeError) -> [UInt8] {
        if let encodeProblem { throw .unusableMessage(message: messageName, reason: encodeProblem) }

        var used: [Int] = []
        used.reserveCapacity(values.count)
        try gather(node: root, values, into: &used)
        if used.count != values.count {
            let usedNames = Set(used.map { fields[$0].name })
            let extra = values.keys.filter { !usedNames.contains($0) }.sorted()
            if !extra.isEmpty { throw .unexpectedSignals(message: messageName, signals: extra) }
        }

        // Validate every value before writing any bit.
        var raws: [(Int, RawNumber)] = []
        raws.reserveCapacity(used.count)
        for index in used {
            let field = fields[index]
            let input = values[field.name]!
            raws.append((index, try field.rawValue(for: input, message: messageName)))
        }

        var payload = [UInt8](repeating: 0, count: length)
        for (index, raw) in raws {
            try fields[index].place(raw, into: &payload, message: messageName)
        }
        return payload
    }

    /// cantools' `gather_signals`: the signals required by the selected multiplexer path.
    private func gather(node: CodecNode, _ values: [String: SignalInput], into used: inout [Int]) throws(DBCEncodeError) {
        for index in node.signals {
            guard values[fields[index].name] != nil else {
                throw .missingSignal(message: messageName, signal: fields[index].name)
            }
            used.append(index)
        }
        for (multiplexer, branches) in node.multiplexers {
            let field = fields[multiplexer]
            let input = values[field.name]!
            var selected: Int?
            switch input {
            case let .choice(name): selected = field.choicesByName[name].flatMap { Int(exactly: $0) }
            case let .integer(number): selected = Int(exactly: number)
            case let .float(number):
                if number.isFinite, abs(number) < 1e18 { selected = Int(number.rounded(.towardZero)) }
            }
            guard let selected, let branch = branches[selected] else {
                throw .invalidMultiplexerValue(message: messageName, multiplexer: field.name, value: input.description, expected: branches.keys.sorted())
            }
            try gather(node: branch, values, into: &used)
        }
    }
}

/// A raw value as cantools holds it before packing: an int, or a float for float signals.
enum RawNumber {
    case integer(Int128)
    case float(Double)
}

extension SignalField {
    /// cantools' `numeric_scaled_to_raw` plus the strict range check.
    func rawValue(for input: SignalInput, message: String) throws(DBCEncodeError) -> RawNumber {
        let raw: RawNumber
        switch input {
        case let .choice(name):
            guard let value = choicesByName[name] else {
                throw .unknownChoice(message: message, signal: self.name, choice: name, known: choiceNames)
            }
            return .integer(value)
        case let .integer(number):
            try requireScale(message: message)
            raw = try scaledToRaw(integer: number, message: message)
        case let .float(number):
            try requireScale(message: message)
            raw = try scaledToRaw(float: number, message: message)
        }

        // A raw value that names a choice skips the range check.
        if !choicesByValue.isEmpty {
            switch raw {
            case let .integer(value): if choicesByValue[value] != nil { return raw }
            case let .float(value):
                if value.isFinite, value.rounded(.towardZero) == value, abs(value) < 1e38, choicesByValue[Int128(value)] != nil { return raw }
            }
        }
        let scaled = input.doubleValue!
        let tolerance = scaleMagnitude * 1e-6
        if let minimum, scaled < minimum.doubleValue - tolerance {
            throw .belowMinimum(message: message, signal: name, value: input.description, minimum: minimum.description)
        }
        if let maximum, scaled > maximum.doubleValue + tolerance {
            throw .aboveMaximum(message: message, signal: name, value: input.description, maximum: maximum.description)
        }
        return raw
    }

    /// A factor of 0 maps every raw value to the offset: no raw value can be computed
    /// from a physical one (cantools raises ZeroDivisionError). Found by fuzzing.
    private func requireScale(message: String) throws(DBCEncodeError) {
        guard scaleMagnitude == 0 else { return }
        throw .unusableMessage(message: message, reason: "signal \(name) has a factor of 0, so no raw value gives a physical value")
    }

    private func scaledToRaw(integer value: Int128, message: String) throws(DBCEncodeError) -> RawNumber {
        if valueType.isFloat {
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
            guard !overflow else { throw .notANumber(message: message, signal: name, value: String(value)) }
            // Reporting overflow: Int128.min / -1 does not fit.
            let (remainder, remainderOverflow) = difference.remainderReportingOverflow(dividingBy: scale)
            if !remainderOverflow, remainder == 0 {
                let (quotient, quotientOverflow) = difference.dividedReportingOverflow(by: scale)
                if !quotientOverflow { return .integer(quotient) }
            }
            return try rounded(Self.double(difference) / Self.double(scale), input: String(value), message: message)
        case let .linear(scale, offset):
            return try rounded(difference(value, offset) / scale, input: String(value), message: message)
        }
    }

    private func scaledToRaw(float value: Double, message: String) throws(DBCEncodeError) -> RawNumber {
        switch conversion {
        case .identity:
            return valueType.isFloat ? .float(value) : try rounded(value, input: PythonFloat.repr(value), message: message)
        case let .integer(scale, offset):
            let difference = value - Double(offset)
            let (quotient, remainder) = PythonFloat.divmod(difference, Double(scale))
            return try rounded(remainder == 0 ? quotient : difference / Double(scale), input: PythonFloat.repr(value), message: message)
        case let .linear(scale, offset):
            let raw = (value - offset.doubleValue) / scale
            return valueType.isFloat ? .float(raw) : try rounded(raw, input: PythonFloat.repr(value), message: message)
        }
    }

    /// `scaled - offset` as Python computes it: exact for int - int, float otherwise.
    private func difference(_ value: Int128, _ offset: DBCNumber) -> Double {
        if case let .integer(integerOffset) = offset {
            let (difference, overflow) = value.subtractingReportingOverflow(integerOffset)
            if !overflow { return Self.double(difference) }
        }
        return Self.double(value) - offset.doubleValue
    }

    /// `input` (the value as the error shows it) is formatted only for the error.
    private func rounded(_ value: Double, input: @autoclosure () -> String, message: String) throws(DBCEncodeError) -> RawNumber {
        guard let integer = Int128(pythonRounding: value) else {
            throw .notANumber(message: message, signal: name, value: input())
        }
        return .integer(integer)
    }

    /// `Double(value)` without the generic 128-bit conversion for values that fit 64 bits.
    @inline(__always)
    private static func double(_ value: Int128) -> Double {
        if let small = Int64(exactly: value) { return Double(small) }
        return Double(value)
    }

    /// ORs the shifted field into its bytes, least significant byte at the field's end.
    @inline(__always)
    private func write<T: FixedWidthInteger & UnsignedInteger>(_ shifted: T, into payload: inout [UInt8]) {
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
    func place(_ raw: RawNumber, into payload: inout [UInt8], message: String) throws(DBCEncodeError) {
        let bits: UInt64
        switch valueType {
        case let .integer(signed):
            let value: Int128
            switch raw {
            case let .integer(integer): value = integer
            case let .float(real):
                guard let integer = Int128(pythonRounding: real) else { throw .notANumber(message: message, signal: name, value: PythonFloat.repr(real)) }
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
                throw .rawValueOutOfRange(message: message, signal: name, value: String(value), raw: String(value), bits: length, signed: signed)
            }
            bits = UInt64(truncatingIfNeeded: value) & mask
        case .float32:
            let real: Double
            switch raw {
            case let .integer(integer): real = Double(integer)
            case let .float(value): real = value
            }
            let single = Float(real)
            guard single.isFinite || !real.isFinite else {
                throw .rawValueOutOfRange(message: message, signal: name, value: PythonFloat.repr(real), raw: PythonFloat.repr(real), bits: 32, signed: true)
            }
            bits = UInt64(single.bitPattern)
        case .float64:
            switch raw {
            case let .integer(integer): bits = Double(integer).bitPattern
            case let .float(value): bits = value.bitPattern
            }
        }
        if lastByte - firstByte < 8 {
            write(bits << UInt64(shift), into: &payload)
        } else {
            // Nine bytes: a 64-bit field that does not start on a byte boundary.
            write(UInt128(bits) << UInt128(shift), into: &payload)
        }
    }
}

extension MessageCodec {
    /// The physical input that encodes to `raw` for `signal` (a choice name when the raw
    /// value has one), e.g. to fill a signal with its "no request" raw value.
    public func input(forRaw raw: Int128, signal: String) -> SignalInput? {
        guard let index = signalIndex[signal] else { return nil }
        let field = fields[index]
        if let name = field.choicesByValue[raw] { return .choice(name) }
        switch field.conversion {
        case .identity: return field.valueType.isFloat ? .float(Double(raw)) : .integer(raw)
        case let .integer(scale, offset):
            // Huge factors and offsets: Python's integers do not overflow; the float is the closest input.
            let (product, overflow) = raw.multipliedReportingOverflow(by: scale)
            let (sum, overflow2) = product.addingReportingOverflow(offset)
            if overflow || overflow2 { return .float(Double(raw) * Double(scale) + Double(offset)) }
            return .integer(sum)
        case let .linear(scale, _): return .float(Double(raw) * scale + field.offsetValue)
        }
    }

    /// What the signal reports after carrying `value`: encoded to raw (rounded as
    /// cantools rounds) and decoded back. Nil when the value cannot be encoded.
    public func roundTrip(_ value: SignalInput, signal: String, choices: Bool = true) -> SignalValue? {
        guard let index = signalIndex[signal] else { return nil }
        let field = fields[index]
        guard let raw = try? field.rawValue(for: value, message: messageName) else { return nil }
        var payload = [UInt8](repeating: 0, count: max(length, field.lastByte + 1))
        guard (try? field.place(raw, into: &payload, message: messageName)) != nil else { return nil }
        return payload.withUnsafeBufferPointer { field.value(in: $0, choices: choices) }
    }

    /// The names of the message's signals, in codec order.
    public var signalNames: [String] { fields.map(\.name) }
}
