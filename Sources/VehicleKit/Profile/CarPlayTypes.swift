import CarplayJSON

/// SiriKit's CarPlay-domain enumerations, spelled as SiriKit's Swift case names
/// (`INCarSeat.frontLeft` -> "frontLeft", `INCarAudioSource.sourceUSB` -> "sourceUSB").
/// These names are the JSON form carplayd writes everywhere: intent results, profiles'
/// summaries, state, the Varlink API.

/// A SiriKit enumeration by its Swift case names. Readers (intent parameters, profiles,
/// `--state`, saved car profiles, carplayctl) take a case's `aliases` as well: names
/// carplayd used before it followed Apple's spelling, so older files keep loading.
/// Nothing writes an alias.
public protocol SiriKitEnumeration: RawRepresentable, CaseIterable, Hashable, Sendable where RawValue == String, AllCases == [Self] {
    /// Other names a reader accepts for this case.
    var aliases: [String] { get }
}

extension SiriKitEnumeration {
    public var aliases: [String] { [] }

    /// The case named `name`: its SiriKit name or one of its aliases.
    public init?(name: String) {
        if let value = Self(rawValue: name) ?? Self.allCases.first(where: { $0.aliases.contains(name) }) {
            self = value
        } else {
            return nil
        }
    }

    /// SiriKit's names of every case, in SiriKit's order (what "expected one of" lists).
    public static var names: [String] { allCases.map(\.rawValue) }
}

extension JSONNode {
    /// A string naming one case of `E` (an alias too); the error lists SiriKit's names.
    public func siriKitCase<E: SiriKitEnumeration>(_: E.Type, what: String) throws(JSONContentError) -> E {
        let text = try string()
        guard let value = E(name: text) else {
            throw error("unknown \(what) \"\(text)\"; expected one of \(E.names.joined(separator: ", "))")
        }
        return value
    }
}

/// `INCarSeat`. Profiles list physical seats; the other cases name groups or roles.
public enum CarSeat: String, SiriKitEnumeration {
    case driver, passenger
    case frontLeft, frontRight, front
    case rearLeft, rearRight, rear
    case thirdRowLeft, thirdRowRight, thirdRow
    case all

    /// The physical seats a profile can list.
    public static let physical: [CarSeat] = [.frontLeft, .frontRight, .rearLeft, .rearRight, .thirdRowLeft, .thirdRowRight]

    public var isPhysical: Bool { Self.physical.contains(self) }

    /// The physical seats this value names, for a car whose driver sits on `driverSide`.
    public func physicalSeats(driverSide: DriverSide) -> [CarSeat] {
        switch self {
        case .driver: [driverSide == .left ? .frontLeft : .frontRight]
        case .passenger: [driverSide == .left ? .frontRight : .frontLeft]
        case .front: [.frontLeft, .frontRight]
        case .rear: [.rearLeft, .rearRight]
        case .thirdRow: [.thirdRowLeft, .thirdRowRight]
        case .all: Self.physical
        default: [self]
        }
    }
}

public enum DriverSide: String, Sendable, Hashable, CaseIterable { case left, right }

/// `INCarDefroster`.
public enum CarDefroster: String, SiriKitEnumeration { case front, rear, all }

/// `INCarAudioSource`. Swift imports its cases with a `source` prefix (the `i` of
/// `INCarAudioSourceiPod` keeps "Source" from being stripped as the common prefix).
/// Apple's `sourceUnknown` is not a source a client asks for.
public enum CarAudioSource: String, SiriKitEnumeration {
    case sourceCarPlay, sourceiPod, sourceRadio, sourceBluetooth, sourceAUX, sourceUSB, sourceMemoryCard, sourceOpticalDrive, sourceHardDrive

    /// The short names carplayd used before (`carPlay`, `USB`, …).
    public var aliases: [String] {
        switch self {
        case .sourceCarPlay: ["carPlay"]
        case .sourceiPod: ["iPod"]
        case .sourceRadio: ["radio"]
        case .sourceBluetooth: ["bluetooth"]
        case .sourceAUX: ["AUX"]
        case .sourceUSB: ["USB"]
        case .sourceMemoryCard: ["memoryCard"]
        case .sourceOpticalDrive: ["opticalDrive"]
        case .sourceHardDrive: ["hardDrive"]
        }
    }
}

/// `INRadioType`. Apple's spelling of the bands (the raw values are the wire's).
// swift-format-ignore: AlwaysUseLowerCamelCase
public enum RadioType: String, SiriKitEnumeration { case AM, FM, HD, satellite, DAB }

/// `INRelativeSetting`.
public enum RelativeSetting: String, SiriKitEnumeration { case lowest, lower, higher, highest }

/// `INRelativeReference`.
public enum RelativeReference: String, SiriKitEnumeration { case next, previous }

/// `INCarAirCirculationMode`.
public enum AirCirculationMode: String, SiriKitEnumeration { case freshAir, recirculateAir }

/// `INCarSignalOptions`.
public enum CarSignal: String, SiriKitEnumeration { case audible, visible }
