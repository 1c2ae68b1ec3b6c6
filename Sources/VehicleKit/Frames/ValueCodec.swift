import CANKit

/// One side (command or status) of a property's `ValueMapping`, resolved against its
/// signal: property value <-> the signal's decoded value or encoder input. A class: the
/// frame path reads it per signal, and a struct of four tables would be retained four times.
final class ValueCodec: Sendable {
    let kind: PropertyKind
    /// Raw value -> property value, from the mapping's table; a short table (booleans,
    /// a few cases) is searched in order instead (no hashing per decoded signal).
    let valueByRaw: [Int128: PropertyValue]
    let shortTable: [(raw: Int128, value: PropertyValue)]
    /// What a raw value outside the table reads as; nil: no state.
    let otherwise: PropertyValue?
    /// The encoder input that carries `otherwise`: the first DBC choice the table leaves
    /// out, else the smallest raw value it leaves out (the simulated car must send one).
    let otherwiseInput: SignalInput?
    /// Raw values that are no state.
    let invalid: Set<Int128>
    /// Property value -> encoder input (the first raw value of its entry).
    let inputByValue: [PropertyValue: SignalInput]
    /// The inputs of `true` and `false` (booleans: looked up without hashing).
    let trueInput: SignalInput?
    let falseInput: SignalInput?
    let linear: LinearTransform?
    /// The signal is in the car's display unit (`"unit": "display"`): the caller passes
    /// the conversion of the unit shown at the time.
    let followsDisplayUnit: Bool
    /// The signal's scale and offset: a decoded physical value's raw value.
    let scale: Double
    let offset: Double
    /// True when the mapping has a table (or `otherwise`): values are read by raw value.
    let isTabled: Bool
    /// 10^d for the d decimals the signal's scale and offset are written with: a number
    /// read straight from the signal is rounded to that precision, so that float noise
    /// (raw x 0.1 = 0.30000000000000004) never leaves a value outside its range. nil:
    /// more than 12 decimals, kept as decoded.
    let precision: Double?

    /// The property's fixed range (a percentage's): a number read within one raw step
    /// outside it is clamped (a scale of 0.108696 reads full as 100.00032 %).
    let range: ClosedRange<Double>?

    init(kind: PropertyKind, mapping: ValueMapping, signal: DBCSignal, codec: MessageCodec, range: ClosedRange<Double>? = nil) {
        self.kind = kind
        self.range = range
        var valueByRaw: [Int128: PropertyValue] = [:]
        var inputByValue: [PropertyValue: SignalInput] = [:]
        // Sorted: of two values naming one raw value, the same one reads it every time.
        for text in mapping.values.keys.sorted() {
            guard let value = Self.value(text, kind: kind) else { continue }
            for (position, name) in (mapping.values[text] ?? []).enumerated() {
                guard let raw = Self.raw(name, signal: signal) else { continue }
                if valueByRaw[raw] == nil { valueByRaw[raw] = value }
                if position == 0, let input = codec.input(forRaw: raw, signal: signal.name) { inputByValue[value] = input }
            }
        }
        self.shortTable = valueByRaw.count <= 8 ? valueByRaw.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } : []
        self.valueByRaw = valueByRaw.count <= 8 ? [:] : valueByRaw
        self.inputByValue = inputByValue
        self.trueInput = inputByValue[.bool(true)]
        self.falseInput = inputByValue[.bool(false)]
        self.otherwise = mapping.otherwise.flatMap { Self.value($0, kind: kind) }
        self.invalid = Set(mapping.invalid.compactMap { Self.raw($0, signal: signal) })
        let taken = Set(valueByRaw.keys).union(invalid)
        let unmapped =
            signal.choices.map(\.value).filter { !taken.contains($0) }.min()
            ?? (0..<(Int128(1) << min(signal.length, 16))).first { !taken.contains($0) }
        self.otherwiseInput = otherwise == nil ? nil : unmapped.flatMap { codec.input(forRaw: $0, signal: signal.name) }
        self.linear = mapping.linear
        self.followsDisplayUnit = mapping.followsDisplayUnit
        self.scale = signal.scale.doubleValue
        self.offset = signal.offset.doubleValue
        self.isTabled = !valueByRaw.isEmpty || otherwise != nil
        let decimals = max(Self.decimals(of: signal.scale.doubleValue), Self.decimals(of: signal.offset.doubleValue))
        self.precision = decimals <= 12 ? Self.powersOfTen[decimals] : nil
    }

    private static let powersOfTen: [Double] = (0...12).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    /// The decimals `value` is written with, shortest form: 0.4 -> 1, 1e-05 -> 5, 100.0 -> 0.
    static func decimals(of value: Double) -> Int {
        guard value.isFinite else { return 0 }
        let text = "\(value)"
        var mantissa = Substring(text)
        var exponent = 0
        if let marker = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<marker]
            exponent = Int(text[text.index(after: marker)...]) ?? 0
        }
        let fraction = mantissa.split(separator: ".", omittingEmptySubsequences: false).dropFirst().first ?? ""
        return max(0, (fraction == "0" ? 0 : fraction.count) - exponent)
    }

    /// A property value written as text in a profile ("true", "recirculateAir", "2").
    static func value(_ text: String, kind: PropertyKind) -> PropertyValue? {
        switch kind {
        case .bool: text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil
        case let .enumeration(cases): cases.name(text).map { .enumeration($0) }
        case .integer: Int(text).map { .integer($0) }
        case .number: Double(text).map { .number($0) }
        }
    }

    /// The raw value a profile's name stands for in `signal`; nil for an unknown choice.
    static func raw(_ name: RawValueName, signal: DBCSignal) -> Int128? {
        switch name {
        case let .choice(choice): signal.choiceValue(named: choice)
        case let .raw(raw): raw
        }
    }

    /// The raw value behind a decoded value: a choice's, else (physical - offset) / scale.
    static func raw(of value: SignalValue, scale: Double, offset: Double) -> Int128? {
        switch value {
        case let .choice(_, raw): return raw
        case let .integer(number) where scale == 1 && offset == 0: return number
        default:
            let raw = ((value.doubleValue - offset) / scale).rounded()
            guard raw.isFinite, abs(raw) < 1e30 else { return nil }
            return Int128(raw)
        }
    }

    func raw(of value: SignalValue) -> Int128? { Self.raw(of: value, scale: scale, offset: offset) }

    /// The property value a decoded signal value stands for; nil for values that are no
    /// state (a "NoRequest" / "Invalid" choice, a raw value the table does not map).
    func value(_ decoded: SignalValue, converting override: LinearTransform? = nil) -> PropertyValue? {
        if !invalid.isEmpty, let raw = raw(of: decoded), invalid.contains(raw) { return nil }
        if isTabled {
            guard let raw = raw(of: decoded) else { return otherwise }
            if let value = lookUp(raw) ?? otherwise { return value }
            // A level or number the table leaves out reads as itself.
            switch kind {
            case .integer, .number: break
            case .bool, .enumeration: return nil
            }
        }
        return plain(decoded, linear: override ?? linear)
    }

    private func lookUp(_ raw: Int128) -> PropertyValue? {
        if valueByRaw.isEmpty {
            for entry in shortTable where entry.raw == raw { return entry.value }
            return nil
        }
        return valueByRaw[raw]
    }

    private func plain(_ decoded: SignalValue, linear: LinearTransform?) -> PropertyValue? {
        if case .choice = decoded { return nil }
        switch kind {
        case .bool: return .bool(decoded.doubleValue != 0)
        case .enumeration: return nil
        case .integer:
            let number = linear?.property(fromSignal: decoded.doubleValue) ?? decoded.doubleValue
            guard number.isFinite, abs(number) < 1e15 else { return nil }
            return .integer(Int(number.rounded()))
        case .number:
            if let linear { return .number(clamped(Self.withoutNoise(linear.property(fromSignal: decoded.doubleValue)))) }
            guard let precision else { return .number(clamped(decoded.doubleValue)) }
            return .number(clamped((decoded.doubleValue * precision).rounded() / precision))
        }
    }

    /// A number through a linear mapping rounded to 9 decimals: the grid in property units
    /// is rarely a short decimal (°F to °C: 5/9), and 9 decimals are below any signal's
    /// resolution, so only the float noise of the conversion goes (71 °F: 21.666666667 °C,
    /// not 21.666666666666664).
    static func withoutNoise(_ number: Double) -> Double {
        guard number.isFinite, abs(number) < 1e6 else { return number }
        return (number * 1e9).rounded() / 1e9
    }

    private func clamped(_ number: Double) -> Double {
        guard let range, !range.contains(number) else { return number }
        let step = abs(scale)
        if number < range.lowerBound, range.lowerBound - number <= step { return range.lowerBound }
        if number > range.upperBound, number - range.upperBound <= step { return range.upperBound }
        return number
    }

    /// True when only `otherwise` carries `value` (no raw value of the table does): a
    /// status signal another property also carries is then left to that property.
    func carriesOnlyThroughOtherwise(_ value: PropertyValue) -> Bool {
        guard otherwiseInput != nil, value == otherwise else { return false }
        switch value {
        case let .bool(flag): return (flag ? trueInput : falseInput) == nil
        default: return inputByValue[value] == nil
        }
    }

    /// The encoder input that carries `value`; nil when the mapping has no raw value for it.
    func input(_ value: PropertyValue, converting override: LinearTransform? = nil) -> SignalInput? {
        let linear = override ?? self.linear
        switch value {
        case let .bool(flag):
            if let input = flag ? trueInput : falseInput { return input }
            guard isTabled else { return .integer(flag ? 1 : 0) }
            return value == otherwise ? otherwiseInput : nil
        case .enumeration:
            return inputByValue[value] ?? (value == otherwise ? otherwiseInput : nil)
        case let .integer(number):
            if !inputByValue.isEmpty, let input = inputByValue[value] { return input }
            if let linear { return .float(linear.signal(fromProperty: Double(number))) }
            return .integer(Int128(number))
        case let .number(number):
            // A sentinel or a named raw value ("min": ["LO"]) is sent as itself.
            if !inputByValue.isEmpty, let input = inputByValue[value] { return input }
            return .float(linear?.signal(fromProperty: number) ?? number)
        }
    }
}
