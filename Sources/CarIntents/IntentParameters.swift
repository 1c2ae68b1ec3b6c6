import CarplayJSON
import VehicleKit

/// `INTemperature`-like: a value and its unit. JSON `{"value":21.5,"unit":"celsius"}`.
public struct Temperature: Sendable, Hashable {
    public enum Unit: String, Sendable, Hashable, CaseIterable { case celsius, fahrenheit }

    public var value: Double
    public var unit: Unit

    public init(value: Double, unit: Unit) {
        self.value = value
        self.unit = unit
    }

    public static func celsius(_ value: Double) -> Temperature { Temperature(value: value, unit: .celsius) }
    public static func fahrenheit(_ value: Double) -> Temperature { Temperature(value: value, unit: .fahrenheit) }

    public var jsonValue: JSONValue { .object(["value": .number(value), "unit": .string(unit.rawValue)]) }

    /// "21.5 °C", "70 °F".
    public var text: String { "\(formatNumber(value)) \(unit == .celsius ? "°C" : "°F")" }
}

/// `INSetClimateSettingsInCarIntent`.
public struct SetClimateSettingsInCarParameters: Sendable, Hashable {
    public var enableFan: Bool?
    public var enableAirConditioner: Bool?
    public var enableClimateControl: Bool?
    public var enableAutoMode: Bool?
    public var airCirculationMode: AirCirculationMode?
    public var fanSpeedIndex: Int?
    /// 0...100.
    public var fanSpeedPercentage: Double?
    public var relativeFanSpeedSetting: RelativeSetting?
    public var temperature: Temperature?
    public var relativeTemperatureSetting: RelativeSetting?
    public var climateZone: CarSeat?
    public var carName: String?

    public init(
        enableFan: Bool? = nil, enableAirConditioner: Bool? = nil, enableClimateControl: Bool? = nil,
        enableAutoMode: Bool? = nil, airCirculationMode: AirCirculationMode? = nil, fanSpeedIndex: Int? = nil,
        fanSpeedPercentage: Double? = nil, relativeFanSpeedSetting: RelativeSetting? = nil, temperature: Temperature? = nil,
        relativeTemperatureSetting: RelativeSetting? = nil, climateZone: CarSeat? = nil, carName: String? = nil
    ) {
        self.enableFan = enableFan
        self.enableAirConditioner = enableAirConditioner
        self.enableClimateControl = enableClimateControl
        self.enableAutoMode = enableAutoMode
        self.airCirculationMode = airCirculationMode
        self.fanSpeedIndex = fanSpeedIndex
        self.fanSpeedPercentage = fanSpeedPercentage
        self.relativeFanSpeedSetting = relativeFanSpeedSetting
        self.temperature = temperature
        self.relativeTemperatureSetting = relativeTemperatureSetting
        self.climateZone = climateZone
        self.carName = carName
    }
}

/// `INSetDefrosterSettingsInCarIntent`.
public struct SetDefrosterSettingsInCarParameters: Sendable, Hashable {
    public var enable: Bool?
    public var defroster: CarDefroster?
    public var carName: String?

    public init(enable: Bool? = nil, defroster: CarDefroster? = nil, carName: String? = nil) {
        self.enable = enable
        self.defroster = defroster
        self.carName = carName
    }
}

/// `INSetSeatSettingsInCarIntent`. SiriKit calls the relative level `relativeLevelSetting`;
/// the JSON form also accepts `relativeLevel` when parsing.
public struct SetSeatSettingsInCarParameters: Sendable, Hashable {
    public var enableHeating: Bool?
    public var enableCooling: Bool?
    public var enableMassage: Bool?
    public var seat: CarSeat?
    public var level: Int?
    public var relativeLevelSetting: RelativeSetting?
    public var carName: String?

    public init(
        enableHeating: Bool? = nil, enableCooling: Bool? = nil, enableMassage: Bool? = nil, seat: CarSeat? = nil,
        level: Int? = nil, relativeLevelSetting: RelativeSetting? = nil, carName: String? = nil
    ) {
        self.enableHeating = enableHeating
        self.enableCooling = enableCooling
        self.enableMassage = enableMassage
        self.seat = seat
        self.level = level
        self.relativeLevelSetting = relativeLevelSetting
        self.carName = carName
    }
}

/// `INSetAudioSourceInCarIntent`.
public struct SetAudioSourceInCarParameters: Sendable, Hashable {
    public var audioSource: CarAudioSource?
    public var relativeAudioSourceReference: RelativeReference?

    public init(audioSource: CarAudioSource? = nil, relativeAudioSourceReference: RelativeReference? = nil) {
        self.audioSource = audioSource
        self.relativeAudioSourceReference = relativeAudioSourceReference
    }
}

/// `INSetRadioStationIntent`. `channel` is a string as in SiriKit; the JSON form accepts
/// a string or an integer.
public struct SetRadioStationParameters: Sendable, Hashable {
    public var radioType: RadioType?
    public var frequency: Double?
    public var stationName: String?
    public var channel: String?
    public var presetNumber: Int?

    public init(radioType: RadioType? = nil, frequency: Double? = nil, stationName: String? = nil, channel: String? = nil, presetNumber: Int? = nil) {
        self.radioType = radioType
        self.frequency = frequency
        self.stationName = stationName
        self.channel = channel
        self.presetNumber = presetNumber
    }
}

/// `INSaveProfileInCarIntent`.
public struct SaveProfileInCarParameters: Sendable, Hashable {
    public var profileNumber: Int?
    public var profileName: String?

    public init(profileNumber: Int? = nil, profileName: String? = nil) {
        self.profileNumber = profileNumber
        self.profileName = profileName
    }
}

/// `INSetProfileInCarIntent`.
public struct SetProfileInCarParameters: Sendable, Hashable {
    public var profileNumber: Int?
    public var profileName: String?
    public var isDefaultProfile: Bool?
    public var carName: String?

    public init(profileNumber: Int? = nil, profileName: String? = nil, isDefaultProfile: Bool? = nil, carName: String? = nil) {
        self.profileNumber = profileNumber
        self.profileName = profileName
        self.isDefaultProfile = isDefaultProfile
        self.carName = carName
    }
}

/// `INSetCarLockStatusIntent`.
public struct SetCarLockStatusParameters: Sendable, Hashable {
    public var locked: Bool?
    public var carName: String?

    public init(locked: Bool? = nil, carName: String? = nil) {
        self.locked = locked
        self.carName = carName
    }
}

/// `INGetCarLockStatusIntent`, `INGetCarPowerLevelStatusIntent`: only the car's name.
public struct CarNameParameters: Sendable, Hashable {
    public var carName: String?

    public init(carName: String? = nil) { self.carName = carName }
}

/// `INActivateCarSignalIntent`. `signals` is SiriKit's option set as a JSON array.
public struct ActivateCarSignalParameters: Sendable, Hashable {
    public var carName: String?
    public var signals: [CarSignal]?

    public init(carName: String? = nil, signals: [CarSignal]? = nil) {
        self.carName = carName
        self.signals = signals
    }
}

/// Numbers in messages: "28", "21.5", "101.1".
func formatNumber(_ value: Double) -> String {
    if value.rounded() == value, abs(value) < 1e15 { return String(Int(value)) }
    return value.description
}
