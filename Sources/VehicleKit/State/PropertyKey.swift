/// The name of one piece of vehicle state, e.g. `climate.temperature.left` or
/// `seat.frontLeft.heating`. Profiles bind each key to a DBC command signal (that
/// sets it) and a status signal (that reports it). The vocabulary:
///
/// | key | kind | meaning |
/// | --- | --- | --- |
/// | `climate.temperature.<zone>` | number (°C) | target temperature of a climate zone |
/// | `climate.fan` | bool | fan on |
/// | `climate.fanSpeed` | integer 1...fanSpeedLevels (0 read where the car shows the fan off) | fan level |
/// | `climate.airConditioner` | bool | A/C on |
/// | `climate.autoMode` | bool | automatic climate |
/// | `climate.climateControl` | bool | climate system on |
/// | `climate.climateControl.<zone>` | bool | a climate control zone's own on/off (a rear climate switch) |
/// | `climate.airCirculation` | enum `AirCirculationMode` | fresh or recirculated air |
/// | `climate.cabinTemperature` | number (°C), status only | measured cabin temperature |
/// | `defroster.front`, `defroster.rear` | bool | defroster on |
/// | `seat.<seat>.heating` / `.cooling` / `.massage` | integer 0...level | 0 is off |
/// | `audio.source` | enum `CarAudioSource` | active audio source |
/// | `radio.band` | enum `RadioType` | tuner band |
/// | `radio.frequency` | number (kHz for AM, MHz otherwise) | tuned frequency |
/// | `radio.channel` | integer | satellite / DAB channel |
/// | `profile.active` | integer | active car profile slot (0 none) |
/// | `lock.locked` | bool | doors locked |
/// | `signal.audible`, `signal.visible` | bool | horn sounding / lights flashing |
/// | `power.fuelPercent`, `power.chargePercent` | number 0...100, status only | |
/// | `power.distanceRemaining` | number (km), status only | |
/// | `power.charging` | bool, status only | |
/// | `power.minutesToFull` | integer, status only | |
/// | `power.maximumDistance`, `power.distanceRemainingElectric`, `power.distanceRemainingFuel`, `power.maximumDistanceElectric`, `power.maximumDistanceFuel` | number (km), status only | ranges: now, when full, per energy |
/// | `power.minimumBatteryCapacity`, `power.currentBatteryCapacity`, `power.maximumBatteryCapacity` | number (kWh), status only | reserve, stored now, stored when full |
/// | `power.activeConnector` | enum `ChargingConnectorType` or `none`, status only | the connector plugged in |
/// | `extension.outsideTemperature` | number (°C), status only | an extension: measured outside air |
/// | `extension.autoDefog` | bool, status only | an extension: automatic defogging enabled |
/// | `extension.temperatureUnit` | `celsius` / `fahrenheit`, status only | an extension: the unit the car displays temperatures in (a mapping's `"unit": "display"` follows it) |
///
/// Extensions (`extension.*`) are what carplayd reads that no SiriKit intent carries:
/// GetState, Monitor and the dash show them, marked by their prefix, and nothing sets them.
public struct PropertyKey: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String
    /// The key's digest, made once: the state, the frame plan and every command are
    /// dictionaries by key, looked up hundreds of times per intent, and hashing the
    /// whole text each time was a tenth of carplayd's CPU per intent (docs/BENCHMARKS.md).
    /// `Hasher` still mixes it with its per-process seed.
    private let digest: UInt64

    public init(_ rawValue: String) {
        self.rawValue = rawValue
        digest = Self.fnv1a(rawValue)
    }

    public init(stringLiteral value: String) { self.init(value) }

    public static func == (lhs: PropertyKey, rhs: PropertyKey) -> Bool {
        lhs.digest == rhs.digest && lhs.rawValue == rhs.rawValue
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(digest) }

    /// 64-bit FNV-1a of the key's UTF-8. Keys are equal when their UTF-8 is (the
    /// vocabulary is ASCII; `==` checks the digest first, then the text).
    private static func fnv1a(_ text: String) -> UInt64 {
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { digest = (digest ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return digest
    }

    public var description: String { rawValue }
    public static func < (lhs: PropertyKey, rhs: PropertyKey) -> Bool { lhs.rawValue < rhs.rawValue }

    public static func temperature(zone: String) -> PropertyKey { PropertyKey("climate.temperature.\(zone)") }
    public static func climateControl(zone: String) -> PropertyKey { PropertyKey("climate.climateControl.\(zone)") }
    public static func seat(_ seat: CarSeat, _ feature: SeatFeature) -> PropertyKey { PropertyKey("seat.\(seat.rawValue).\(feature.rawValue)") }
    public static func defroster(_ defroster: CarDefroster) -> PropertyKey { PropertyKey("defroster.\(defroster.rawValue)") }
    public static func signal(_ signal: CarSignal) -> PropertyKey { PropertyKey("signal.\(signal.rawValue)") }

    public static let fan: PropertyKey = "climate.fan"
    public static let fanSpeed: PropertyKey = "climate.fanSpeed"
    public static let airConditioner: PropertyKey = "climate.airConditioner"
    public static let autoMode: PropertyKey = "climate.autoMode"
    public static let climateControl: PropertyKey = "climate.climateControl"
    public static let airCirculation: PropertyKey = "climate.airCirculation"
    public static let cabinTemperature: PropertyKey = "climate.cabinTemperature"
    public static let audioSource: PropertyKey = "audio.source"
    public static let radioBand: PropertyKey = "radio.band"
    public static let radioFrequency: PropertyKey = "radio.frequency"
    public static let radioChannel: PropertyKey = "radio.channel"
    public static let activeCarProfile: PropertyKey = "profile.active"
    public static let locked: PropertyKey = "lock.locked"
    public static let fuelPercent: PropertyKey = "power.fuelPercent"
    public static let chargePercent: PropertyKey = "power.chargePercent"
    public static let distanceRemaining: PropertyKey = "power.distanceRemaining"
    public static let charging: PropertyKey = "power.charging"
    public static let minutesToFull: PropertyKey = "power.minutesToFull"
    public static let maximumDistance: PropertyKey = "power.maximumDistance"
    public static let distanceRemainingElectric: PropertyKey = "power.distanceRemainingElectric"
    public static let distanceRemainingFuel: PropertyKey = "power.distanceRemainingFuel"
    public static let maximumDistanceElectric: PropertyKey = "power.maximumDistanceElectric"
    public static let maximumDistanceFuel: PropertyKey = "power.maximumDistanceFuel"
    public static let minimumBatteryCapacity: PropertyKey = "power.minimumBatteryCapacity"
    public static let currentBatteryCapacity: PropertyKey = "power.currentBatteryCapacity"
    public static let maximumBatteryCapacity: PropertyKey = "power.maximumBatteryCapacity"
    public static let activeConnector: PropertyKey = "power.activeConnector"
    public static let outsideTemperature: PropertyKey = "extension.outsideTemperature"
    public static let autoDefog: PropertyKey = "extension.autoDefog"
    public static let temperatureUnit: PropertyKey = "extension.temperatureUnit"
    /// The prefix of the keys no SiriKit intent carries.
    public static let extensionPrefix = "extension."
    /// `power.activeConnector`'s value when nothing is plugged in (SiriKit's `activeConnector` is then nil).
    public static let noConnector = "none"

    /// The range a number property is documented to stay in whatever the car's profile
    /// says (a percentage's 0...100); nil for numbers whose range the profile gives.
    public var fixedRange: ClosedRange<Double>? {
        self == .fuelPercent || self == .chargePercent ? 0...100 : nil
    }

    /// What values the key holds; nil for a key outside the vocabulary.
    public var kind: PropertyKind? {
        // On the hot path (every decoded and encoded signal): no splitting, no allocation
        // for the fixed names.
        switch rawValue {
        case "climate.fan", "climate.airConditioner", "climate.autoMode", "climate.climateControl",
            "defroster.front", "defroster.rear", "lock.locked", "signal.audible", "signal.visible", "power.charging", "extension.autoDefog":
            return .bool
        case "climate.fanSpeed", "radio.channel", "profile.active", "power.minutesToFull":
            return .integer
        case "climate.cabinTemperature", "radio.frequency", "power.fuelPercent", "power.chargePercent", "power.distanceRemaining",
            "power.maximumDistance", "power.distanceRemainingElectric", "power.distanceRemainingFuel", "power.maximumDistanceElectric",
            "power.maximumDistanceFuel", "power.minimumBatteryCapacity", "power.currentBatteryCapacity", "power.maximumBatteryCapacity",
            "extension.outsideTemperature":
            return .number
        case "power.activeConnector": return .enumeration(Self.connectorStates)
        case "climate.airCirculation": return .enumeration(Self.airCirculationModes)
        case "audio.source": return .enumeration(Self.audioSources)
        case "extension.temperatureUnit": return .enumeration(Self.temperatureUnits)
        case "radio.band": return .enumeration(Self.radioTypes)
        default: break
        }
        // climate.temperature.<zone>, climate.climateControl.<zone>, seat.<seat>.<feature>:
        // exactly three non-empty parts.
        let utf8 = rawValue.utf8
        let dots = utf8.indices.filter { utf8[$0] == UInt8(ascii: ".") }
        guard dots.count == 2 else { return nil }
        let first = String(rawValue[..<dots[0]])
        let second = String(rawValue[rawValue.index(after: dots[0])..<dots[1]])
        let third = String(rawValue[rawValue.index(after: dots[1])...])
        if first == "climate", second == "temperature", !third.isEmpty { return .number }
        if first == "climate", second == "climateControl", !third.isEmpty { return .bool }
        if first == "seat", let seat = CarSeat(rawValue: second), seat.isPhysical, SeatFeature(rawValue: third) != nil { return .integer }
        return nil
    }

    private static let airCirculationModes = EnumerationCases(AirCirculationMode.self)
    private static let audioSources = EnumerationCases(CarAudioSource.self)
    private static let radioTypes = EnumerationCases(RadioType.self)
    private static let temperatureUnits = EnumerationCases(names: ["celsius", "fahrenheit"])
    private static let connectorStates = EnumerationCases(names: ChargingConnectorType.allCases.map(\.rawValue) + [noConnector])

    /// Keys the vehicle reports but nobody commands.
    public var isStatusOnly: Bool {
        rawValue == "climate.cabinTemperature" || rawValue.hasPrefix("power.") || isExtension
    }

    /// A key no SiriKit intent carries (`extension.*`).
    public var isExtension: Bool { rawValue.hasPrefix(Self.extensionPrefix) }
}

public enum SeatFeature: String, Sendable, Hashable, CaseIterable { case heating, cooling, massage }

public enum PropertyKind: Sendable, Hashable {
    case bool
    case integer
    case number
    /// One of these SiriKit case names.
    case enumeration(EnumerationCases)
}

extension PropertyKind {
    /// A value's name as a profile writes it, in SiriKit's spelling: an enumeration's
    /// alias becomes its case's name; anything else is returned as it is.
    func canonicalName(_ text: String) -> String {
        if case let .enumeration(cases) = self, let name = cases.name(text) { return name }
        return text
    }
}

/// The cases of an enumeration property: SiriKit's names, which are what a value holds,
/// and the aliases a reader maps to them (`SiriKitEnumeration`).
public struct EnumerationCases: Sendable, Hashable {
    public let names: [String]
    private let aliases: [String: String]

    /// Names without aliases.
    public init(names: [String]) {
        self.names = names
        aliases = [:]
    }

    public init<E: SiriKitEnumeration>(_: E.Type) {
        names = E.names
        var aliases: [String: String] = [:]
        for value in E.allCases {
            for alias in value.aliases { aliases[alias] = value.rawValue }
        }
        self.aliases = aliases
    }

    /// The SiriKit name `text` stands for: itself, or the case it is an alias of.
    public func name(_ text: String) -> String? {
        names.contains(text) ? text : aliases[text]
    }
}

/// A state value. Enumerations hold SiriKit case names.
public enum PropertyValue: Sendable, Hashable, CustomStringConvertible {
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case enumeration(String)

    public var description: String {
        switch self {
        case let .bool(value): String(value)
        case let .integer(value): String(value)
        case let .number(value): value.description
        case let .enumeration(value): value
        }
    }

    public var doubleValue: Double? {
        switch self {
        case let .integer(value): Double(value)
        case let .number(value): value
        case let .bool(value): value ? 1 : 0
        case .enumeration: nil
        }
    }
}
