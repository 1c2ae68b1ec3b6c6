/// SiriKit's CarPlay-domain enumerations, spelled as SiriKit's Swift case names
/// (`INCarSeat.frontLeft` -> "frontLeft"). These names are the JSON form everywhere:
/// intents, profiles, state, the Varlink API.

/// `INCarSeat`. Profiles list physical seats; the other cases name groups or roles.
public enum CarSeat: String, Sendable, Hashable, CaseIterable {
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
public enum CarDefroster: String, Sendable, Hashable, CaseIterable { case front, rear, all }

/// `INCarAudioSource`.
public enum CarAudioSource: String, Sendable, Hashable, CaseIterable {
    case carPlay, iPod, radio, bluetooth, AUX, USB, memoryCard, opticalDrive, hardDrive
}

/// `INRadioType`.
public enum RadioType: String, Sendable, Hashable, CaseIterable { case AM, FM, HD, satellite, DAB }

/// `INRelativeSetting`.
public enum RelativeSetting: String, Sendable, Hashable, CaseIterable { case lowest, lower, higher, highest }

/// `INRelativeReference`.
public enum RelativeReference: String, Sendable, Hashable, CaseIterable { case next, previous }

/// `INCarAirCirculationMode`.
public enum AirCirculationMode: String, Sendable, Hashable, CaseIterable { case freshAir, recirculateAir }

/// `INCarSignalOptions`.
public enum CarSignal: String, Sendable, Hashable, CaseIterable { case audible, visible }
