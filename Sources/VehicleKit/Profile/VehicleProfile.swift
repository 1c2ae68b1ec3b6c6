import CANKit
import CarplayJSON

/// A vehicle: what it can do (capabilities), how its state maps onto DBC signals
/// (bindings), and the policies intents follow. Loaded and validated from
/// `VehicleProfiles/<vehicle>/` by `ProfileLoader`; every reference into the DBC is
/// checked there, so users of this type can rely on it.
public struct VehicleProfile: Sendable {
    /// The folder name, e.g. "sedan".
    public var identifier: String
    /// "Example Sedan".
    public var displayName: String
    /// Names a user may call the car (`carName` in intents), compared case-insensitively.
    public var carNames: [String]
    public var driverSide: DriverSide
    public var database: DBCDatabase

    public var climate: ClimateCapabilities?
    public var defrosters: [CarDefroster]
    public var seats: [SeatCapabilities]
    public var radio: RadioCapabilities?
    /// In the order `next` / `previous` cycle through them.
    public var audioSources: [CarAudioSource]
    /// Number of car-profile slots (`SaveProfileInCar` / `SetProfileInCar`), 0 for none.
    public var carProfileSlots: Int
    public var hasLock: Bool
    public var carSignals: [CarSignal]
    public var power: PowerCapabilities
    /// Make, model, year, colour, head unit and charging connectors (`INCar`).
    public var car: CarDescription = .none

    public var bindings: [PropertyKey: PropertyBinding]
    /// How each protected message is protected (checksum, counter), by message name;
    /// messages not listed carry neither.
    public var protection: [String: MessageProtection]
    public var acknowledgement: AcknowledgementBinding?
    /// What the profile adds to the DBC per message (cycle times, defaults), by name.
    public var messages: [String: MessageSettings]
    public var policies: Policies

    public init(
        identifier: String, displayName: String, carNames: [String], driverSide: DriverSide, database: DBCDatabase,
        climate: ClimateCapabilities?, defrosters: [CarDefroster], seats: [SeatCapabilities], radio: RadioCapabilities?,
        audioSources: [CarAudioSource], carProfileSlots: Int, hasLock: Bool, carSignals: [CarSignal], power: PowerCapabilities,
        bindings: [PropertyKey: PropertyBinding], protection: [String: MessageProtection], acknowledgement: AcknowledgementBinding?,
        messages: [String: MessageSettings] = [:], policies: Policies
    ) {
        self.identifier = identifier
        self.displayName = displayName
        self.carNames = carNames
        self.driverSide = driverSide
        self.database = database
        self.climate = climate
        self.defrosters = defrosters
        self.seats = seats
        self.radio = radio
        self.audioSources = audioSources
        self.carProfileSlots = carProfileSlots
        self.hasLock = hasLock
        self.carSignals = carSignals
        self.power = power
        self.bindings = bindings
        self.protection = protection
        self.acknowledgement = acknowledgement
        self.messages = messages
        self.policies = policies
    }

    public func seat(_ seat: CarSeat) -> SeatCapabilities? { seats.first { $0.seat == seat } }

    /// The period of a message: the profile's, else the DBC's GenMsgCycleTime.
    public func cycleTime(of message: DBCMessage) -> Duration? {
        messages[message.name]?.cycleTime ?? message.cycleTime.map { .milliseconds($0) }
    }

    /// The raw value a command signal carries when nothing requests anything: the
    /// profile's default, its "NoRequest" choice, the DBC's GenSigStartValue, or 0.
    public func defaultRaw(of signal: DBCSignal, in message: String) -> Int128 {
        messages[message]?.defaults[signal.name] ?? signal.choiceValue(named: "NoRequest") ?? signal.initialRawValue?.integralValue ?? 0
    }

    /// Whether the car reports `key` but takes no command for it (bound without a
    /// command: a read-only binding). Unbound keys are not read-only: they do not exist.
    public func isReadOnly(_ key: PropertyKey) -> Bool { bindings[key].map { $0.command == nil } ?? false }

    /// Whether the car takes a command that sets `key` to `value`: false when it is
    /// read-only, or commanded by momentary requests none of which sets that value (a
    /// car with an "auto on" request and no "auto off"). Unbound keys: true.
    public func accepts(_ key: PropertyKey, _ value: PropertyValue) -> Bool {
        guard let binding = bindings[key] else { return true }
        guard let command = binding.command else { return false }
        if case let .momentary(momentary) = command { return momentary.requests[value.description] != nil }
        return true
    }
}

/// A numeric range with the step the car accepts.
public struct SteppedRange: Sendable, Hashable {
    public var min: Double
    public var max: Double
    public var step: Double

    package init(min: Double, max: Double, step: Double) {
        self.min = min
        self.max = max
        self.step = step
    }

    public func contains(_ value: Double) -> Bool { value >= min - 1e-9 && value <= max + 1e-9 }

    /// Clamped into the range, then snapped to the nearest step from `min`.
    public func snap(_ value: Double) -> Double {
        let clamped = Swift.min(Swift.max(value, min), max)
        guard step > 0 else { return clamped }
        let steps = ((clamped - min) / step).rounded(.toNearestOrEven)
        // Round away binary noise (0.1 steps) so 101.1 stays 101.1.
        let snapped = min + steps * step
        let decimals = 1e9
        return Swift.min((snapped * decimals).rounded() / decimals, max)
    }
}

public struct ClimateZone: Sendable, Hashable {
    /// Used in property keys: `climate.temperature.<id>`.
    public var id: String
    /// The physical seats this zone serves.
    public var seats: [CarSeat]

    public init(id: String, seats: [CarSeat]) {
        self.id = id
        self.seats = seats
    }
}

/// What the climate control can do. Each capability stands alone: a car may switch its
/// A/C or its climate without setting any temperature (no zones).
public struct ClimateCapabilities: Sendable, Hashable {
    /// The temperature zones (`climate.temperature.<id>`); empty: no temperature is set.
    public var zones: [ClimateZone]
    /// The temperature ranges; nil exactly when there are no zones.
    public var celsius: SteppedRange?
    public var fahrenheit: SteppedRange?
    /// Fan levels 1...fanSpeedLevels (0 if the fan speed cannot be set).
    public var fanSpeedLevels: Int
    public var airConditioner: Bool
    public var autoMode: Bool
    public var recirculation: Bool
    /// An on/off switch for the whole car (`climate.climateControl`).
    public var climateControl: Bool
    /// On/off switches of their own, each for some seats (`climate.climateControl.<id>`:
    /// a rear climate switch).
    public var climateControlZones: [ClimateZone]

    public init(
        zones: [ClimateZone], celsius: SteppedRange?, fahrenheit: SteppedRange?, fanSpeedLevels: Int,
        airConditioner: Bool, autoMode: Bool, recirculation: Bool, climateControl: Bool, climateControlZones: [ClimateZone] = []
    ) {
        self.zones = zones
        self.celsius = celsius
        self.fahrenheit = fahrenheit
        self.fanSpeedLevels = fanSpeedLevels
        self.airConditioner = airConditioner
        self.autoMode = autoMode
        self.recirculation = recirculation
        self.climateControl = climateControl
        self.climateControlZones = climateControlZones
    }

    /// The temperature zones serving any of these physical seats, in profile order.
    public func zones(serving seats: [CarSeat]) -> [ClimateZone] { Self.zones(zones, serving: seats) }

    /// The climate control zones serving any of these physical seats, in profile order.
    public func climateControlZones(serving seats: [CarSeat]) -> [ClimateZone] { Self.zones(climateControlZones, serving: seats) }

    private static func zones(_ zones: [ClimateZone], serving seats: [CarSeat]) -> [ClimateZone] {
        zones.filter { zone in zone.seats.contains { seats.contains($0) } }
    }

    /// The climate on/off properties that switch the climate for these physical seats:
    /// the switches of their own serving any of them, and the whole car's for the seats
    /// none serves. Without seats (no `climateZone`): the whole car's switch, else every
    /// switch of its own. Empty: nothing switches the climate there.
    public func climateControlKeys(serving seats: [CarSeat]?) -> [PropertyKey] {
        let whole: [PropertyKey] = climateControl ? [.climateControl] : []
        guard let seats else { return climateControl ? whole : climateControlZones.map { .climateControl(zone: $0.id) } }
        let own = climateControlZones(serving: seats)
        let servedByOwn = seats.allSatisfy { seat in own.contains { $0.seats.contains(seat) } }
        return own.map { .climateControl(zone: $0.id) } + (servedByOwn ? [] : whole)
    }
}

public struct SeatCapabilities: Sendable, Hashable {
    /// A physical seat (frontLeft, …, thirdRowRight).
    public var seat: CarSeat
    /// Highest level of each feature; 0 when the seat does not have it.
    public var heating: Int
    public var cooling: Int
    public var massage: Int

    public init(seat: CarSeat, heating: Int = 0, cooling: Int = 0, massage: Int = 0) {
        self.seat = seat
        self.heating = heating
        self.cooling = cooling
        self.massage = massage
    }

    public func maximum(_ feature: SeatFeature) -> Int {
        switch feature {
        case .heating: heating
        case .cooling: cooling
        case .massage: massage
        }
    }
}

public struct RadioBand: Sendable, Hashable {
    public var type: RadioType
    /// Frequencies (AM kHz, FM/HD MHz) or, for satellite and DAB, channel numbers.
    public var range: SteppedRange
    public var unit: String

    package init(type: RadioType, range: SteppedRange, unit: String) {
        self.type = type
        self.range = range
        self.unit = unit
    }

    /// Satellite and DAB tune by channel, the others by frequency.
    public var tunesByChannel: Bool { type == .satellite || type == .DAB }
}

/// A named station (like AppIntentVocabulary) or a preset: a band and a frequency or channel.
public struct RadioStation: Sendable, Hashable {
    public var name: String
    public var type: RadioType
    public var frequency: Double?
    public var channel: Int?

    public init(name: String, type: RadioType, frequency: Double? = nil, channel: Int? = nil) {
        self.name = name
        self.type = type
        self.frequency = frequency
        self.channel = channel
    }
}

public struct RadioPreset: Sendable, Hashable {
    public var number: Int
    public var station: RadioStation

    package init(number: Int, station: RadioStation) {
        self.number = number
        self.station = station
    }
}

public struct RadioCapabilities: Sendable, Hashable {
    public var bands: [RadioBand]
    public var presets: [RadioPreset]
    public var stations: [RadioStation]
    /// False when satellite radio needs a subscription the car does not have
    /// (`SetRadioStation` then answers `failureNotSubscribed`).
    public var satelliteSubscribed: Bool

    package init(bands: [RadioBand], presets: [RadioPreset], stations: [RadioStation], satelliteSubscribed: Bool) {
        self.bands = bands
        self.presets = presets
        self.stations = stations
        self.satelliteSubscribed = satelliteSubscribed
    }

    public func band(_ type: RadioType) -> RadioBand? { bands.first { $0.type == type } }
}

/// What the car runs on, and the static facts of its power level that a car need not
/// send on its bus (the profile's `power` section, VehicleProfiles/README.md).
public struct PowerCapabilities: Sendable, Hashable {
    public var fuel: Bool
    public var battery: Bool
    /// Energy stored when full, kWh: `maximumBatteryCapacity` when no status signal
    /// reports it, and the simulated battery's size.
    public var batteryCapacityKWh: Double?
    /// The reserve at which the car counts as empty, kWh (`minimumBatteryCapacity` likewise).
    public var minimumBatteryCapacityKWh: Double?
    /// Electric consumption, kWh per 100 km (the simulated car's; a real car's varies).
    public var consumptionKWhPer100Km: Double?
    public var fuelTankLiters: Double?
    /// Fuel consumption, litres per 100 km (the simulated car's).
    public var fuelConsumptionLitersPer100Km: Double?
    /// SiriKit's `consumptionFormulaArguments` / `chargingFormulaArguments`: the car
    /// maker's EV-routing model (Apple Maps'), passed on as the profile gives them.
    public var consumptionFormulaArguments: [String: JSONValue]?
    public var chargingFormulaArguments: [String: JSONValue]?

    public init(fuel: Bool, battery: Bool) {
        self.fuel = fuel
        self.battery = battery
    }
}

public struct Policies: Sendable, Hashable {
    /// carplayd's own car-state policy: intent names (e.g. "SetProfileInCar") refused
    /// while the *car* reads locked. Not SiriKit's "restricted while locked", which is
    /// about the caller's device and is the daemon's configuration (docs/CONFIGURATION.md).
    public var refusedWhileCarLocked: Set<String>
    /// How long a command may take to show in the status frames.
    public var confirmationTimeout: Duration
    /// The vehicle counts as unreachable after this many cycle times without a status frame.
    public var unreachableAfterCycles: Int
}

/// A signal of a message of the profile's DBC (checked to exist when loading).
public struct SignalReference: Sendable, Hashable {
    public var message: String
    public var signal: String
}

/// The protection of one message: the scheme, and the signals its checksum and
/// counter are (nil: the scheme has none).
public struct MessageProtection: Sendable, Hashable {
    public var message: String
    public var checksumSignal: String?
    public var counterSignal: String?
    public var protection: FrameProtection

    /// Whether `signal` is the checksum or the counter.
    public func isProtectionSignal(_ signal: String) -> Bool { signal == checksumSignal || signal == counterSignal }
}

/// The vehicle's answer to each command frame: which command (by frame ID), which
/// alive counter, and the result (a DBC choice; `acceptedChoice` means applied).
public struct AcknowledgementBinding: Sendable, Hashable {
    public var message: String
    public var commandIDSignal: String
    public var counterSignal: String
    public var resultSignal: String
    public var acceptedChoice: String
}

/// Frequency units of radio bands and signals.
public enum FrequencyUnit {
    /// kHz per unit; nil for units that are not frequencies ("channel").
    public static func kilohertz(_ unit: String) -> Double? {
        switch unit {
        case "kHz": 1
        case "MHz": 1000
        default: nil
        }
    }

    /// What a value in `from` is multiplied by to be in `to` (1 when either is not a frequency unit).
    public static func factor(from: String, to: String) -> Double {
        guard let source = kilohertz(from), let target = kilohertz(to) else { return 1 }
        return source / target
    }
}
