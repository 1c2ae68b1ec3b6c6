/// A VSS datatype, as the specification spells it.
public enum VSSDatatype: String, Sendable, Hashable, CaseIterable {
    case boolean, uint8, int8, uint16, uint32, float, string

    /// The range an integer datatype holds; nil for the others.
    var integerRange: ClosedRange<Int>? {
        switch self {
        case .uint8: 0...255
        case .int8: -128...127
        case .uint16: 0...65535
        case .uint32: 0...4_294_967_295
        case .boolean, .float, .string: nil
        }
    }
}

/// Whether a client may set the signal: VSS's entry types, of which carplayd serves two.
public enum VSSEntryType: String, Sendable, Hashable, CaseIterable { case sensor, actuator }

/// A value as VSS carries it.
public enum VSSValue: Sendable, Hashable, CustomStringConvertible {
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)

    public var description: String {
        switch self {
        case let .bool(value): String(value)
        case let .integer(value): String(value)
        case let .number(value): value.description
        case let .string(value): value
        }
    }

    public var doubleValue: Double? {
        switch self {
        case let .integer(value): Double(value)
        case let .number(value): value
        case .bool, .string: nil
        }
    }
}

/// How a VSS value is made from carplayd's state: the vocabulary's units and levels
/// against VSS's (metres, seconds, percent).
public enum VSSConversion: Sendable, Hashable {
    /// The value as it is (a bool, a number in the same unit).
    case identity
    /// VSS = carplayd × factor: km to m (1000), minutes to seconds (60).
    case scaled(Double)
    /// A level 1...levels as a percentage (rounded); 0 while the fan (keys[1]) reads off.
    case levelPercent(levels: Int)
    /// A seat's heating level as +percent, its cooling level as -percent (keys: heating,
    /// cooling; a seat may have one of them).
    case heatingCooling(heating: Int, cooling: Int)
    /// A level 0...levels as a percentage (a seat's massage).
    case zeroBasedPercent(levels: Int)
    /// An enumeration's case name to VSS's string.
    case names([String: String])
    /// `climate.airCirculation`: recirculated air is true.
    case recirculation
    /// `radio.frequency` (kHz on AM, MHz otherwise; keys[1] the band) in Hz.
    case radioFrequency
    /// `audio.source`, with the radio's band (keys[1]) telling which radio VSS names.
    case audioSource
}

/// One VSS signal as this car carries it: its path and VSS metadata, the carplayd
/// keys it reads (the first is the one an actuation sets) and how.
public struct VSSSignal: Sendable, Hashable {
    public let path: String
    public let datatype: VSSDatatype
    public let entryType: VSSEntryType
    public let unit: String?
    public let min: Double?
    public let max: Double?
    public let allowed: [String]?
    public let description: String
    /// True for carplayd's overlay (vss/carplayd.vspec), false for the standard catalog.
    public let overlay: Bool
    public let keys: [PropertyKey]
    public let conversion: VSSConversion
    /// The physical seat the path names (a station's or a seat's), nil for the others.
    public let seat: CarSeat?

    /// The value the state gives, nil while the car has not reported it.
    public func value(in state: VehicleState) -> VSSValue? {
        guard let first = state[keys[0]] ?? (keys.count > 1 ? state[keys[1]] : nil) else { return nil }
        switch conversion {
        case .identity:
            return typed(first)
        case let .scaled(factor):
            return first.doubleValue.map { typed(number: $0 * factor) }
        case let .levelPercent(levels):
            if case .bool(false)? = state[keys[1]] { return .integer(0) }
            guard let level = state[keys[0]]?.doubleValue, levels > 0 else { return nil }
            return .integer(Int((level * 100 / Double(levels)).rounded()))
        case let .heatingCooling(heating, cooling):
            let heat = heating > 0 ? state[keys[0]]?.doubleValue : nil
            let cool = cooling > 0 ? state[keys[1]]?.doubleValue : nil
            if let heat, heat > 0 { return .integer(Int((heat * 100 / Double(heating)).rounded())) }
            if let cool, cool > 0 { return .integer(-Int((cool * 100 / Double(cooling)).rounded())) }
            return heat != nil || cool != nil ? .integer(0) : nil
        case let .zeroBasedPercent(levels):
            guard let level = first.doubleValue, levels > 0 else { return nil }
            return .integer(Int((level * 100 / Double(levels)).rounded()))
        case let .names(names):
            guard case let .enumeration(name) = first, let vss = names[name] else { return nil }
            return .string(vss)
        case .recirculation:
            guard case let .enumeration(mode) = first else { return nil }
            return .bool(mode == AirCirculationMode.recirculateAir.rawValue)
        case .radioFrequency:
            guard let frequency = state[keys[0]]?.doubleValue, case let .enumeration(band)? = state[keys[1]] else { return nil }
            return .integer(Int((frequency * (band == RadioType.AM.rawValue ? 1e3 : 1e6)).rounded()))
        case .audioSource:
            guard case let .enumeration(source)? = state[keys[0]] else { return nil }
            if source == CarAudioSource.sourceRadio.rawValue {
                guard case let .enumeration(band)? = state[keys[1]] else { return .string("UNKNOWN") }
                return .string(VSSNames.radioSource[band] ?? "UNKNOWN")
            }
            return VSSNames.audioSource[source].map { .string($0) }
        }
    }

    /// The value fits the datatype, the range and the allowed values.
    public func check(_ value: VSSValue) throws(VSSActuationError) {
        switch (datatype, value) {
        case (.boolean, .bool), (.string, .string): break
        case (.float, .integer), (.float, .number): break
        case let (integer, .integer(number)) where integer.integerRange != nil:
            if let range = integer.integerRange, !range.contains(number) {
                throw .invalidValue("\(number) is outside \(integer.rawValue)'s \(range.lowerBound)...\(range.upperBound)")
            }
        default:
            throw .invalidValue("expected \(datatype.rawValue), found \(value.kindName)")
        }
        if let number = value.doubleValue {
            if let min, number < min { throw .invalidValue("\(value) is below the minimum \(Int(min))") }
            if let max, number > max { throw .invalidValue("\(value) is above the maximum \(Int(max))") }
        }
        if case let .string(text) = value, let allowed, !allowed.contains(text) {
            throw .invalidValue("expected one of \(allowed.joined(separator: ", ")), found \"\(text)\"")
        }
    }

    /// A number in the signal's datatype: integers rounded.
    private func typed(number: Double) -> VSSValue {
        datatype.integerRange != nil ? .integer(Int(number.rounded())) : .number(number)
    }

    private func typed(_ value: PropertyValue) -> VSSValue? {
        switch value {
        case let .bool(flag): .bool(flag)
        case let .enumeration(name): .string(name)
        case .integer, .number: value.doubleValue.map { typed(number: $0) }
        }
    }
}

/// Why a VSS target cannot be set (io.carplayd.VSS's NotActuatable and InvalidValue).
public enum VSSActuationError: Error, Sendable, Equatable {
    /// A sensor, or an actuator the car's profile only reads.
    case notActuatable(String)
    /// The value does not fit the signal, or is one the car cannot carry out.
    case invalidValue(String)
}

extension VSSValue {
    public var kindName: String {
        switch self {
        case .bool: "a boolean"
        case .integer: "an integer"
        case .number: "a number"
        case .string: "a string"
        }
    }
}

/// VSS's names for carplayd's enumeration cases.
public enum VSSNames {
    /// CarAudioSource -> Played.Source; the radio is named by its band (`radioSource`).
    /// CARPLAY, IPOD and MEMORY_CARD are the overlay's additions to VSS's allowed values.
    public static let audioSource: [String: String] = [
        "sourceCarPlay": "CARPLAY", "sourceiPod": "IPOD", "sourceBluetooth": "BLUETOOTH", "sourceAUX": "AUX", "sourceUSB": "USB",
        "sourceMemoryCard": "MEMORY_CARD", "sourceOpticalDrive": "CD", "sourceHardDrive": "DISK",
    ]
    /// RadioType -> Played.Source while the radio plays.
    public static let radioSource: [String: String] = ["AM": "AM", "FM": "FM", "HD": "FM", "DAB": "DAB", "satellite": "SIRIUS_XM"]
    /// RadioType -> the overlay's Radio.Band.
    public static let radioBand: [String: String] = ["AM": "AM", "FM": "FM", "HD": "HD", "satellite": "SATELLITE", "DAB": "DAB"]
    /// ChargingConnectorType (and `none`) -> the overlay's Charging.ActiveConnector.
    public static let connector: [String: String] = [
        "none": "NONE", "j1772": "J1772", "ccs1": "CCS1", "ccs2": "CCS2", "chaDeMo": "CHADEMO", "gbtAC": "GBT_AC", "gbtDC": "GBT_DC",
        "tesla": "TESLA", "mennekes": "MENNEKES",
    ]
    /// `extension.temperatureUnit` -> HMI.TemperatureUnit.
    public static let temperatureUnit: [String: String] = ["celsius": "C", "fahrenheit": "F"]

    /// Played.Source's allowed values: VSS 5.1's and the overlay's.
    public static let playedSources = [
        "UNKNOWN", "SIRIUS_XM", "AM", "FM", "DAB", "TV", "CD", "DVD", "AUX", "USB", "DISK", "BLUETOOTH", "INTERNET", "VOICE", "BEEP", "CARPLAY",
        "IPOD", "MEMORY_CARD",
    ]
}
