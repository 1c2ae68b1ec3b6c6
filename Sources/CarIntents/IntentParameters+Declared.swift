import VehicleKit

// The contract of each intent's parameters, in SiriKit's order. A new parameter is a
// stored property of its struct and one line here; its resolver gives it meaning.

extension SetClimateSettingsInCarParameters: DeclaredParameters {
    public init() { self.init(enableFan: nil) }
    public static let parameters: [ParameterDeclaration<Self>] = [
        .bool("enableFan", \.enableFan),
        .bool("enableAirConditioner", \.enableAirConditioner),
        .bool("enableClimateControl", \.enableClimateControl),
        .bool("enableAutoMode", \.enableAutoMode),
        .enumeration("airCirculationMode", \.airCirculationMode, type: "CarAirCirculationMode"),
        .integer("fanSpeedIndex", \.fanSpeedIndex),
        .number("fanSpeedPercentage", \.fanSpeedPercentage, in: 0...100),
        .enumeration("relativeFanSpeedSetting", \.relativeFanSpeedSetting, type: "RelativeSetting"),
        .temperature("temperature", \.temperature),
        .enumeration("relativeTemperatureSetting", \.relativeTemperatureSetting, type: "RelativeSetting"),
        .enumeration("climateZone", \.climateZone, type: "CarSeat"),
        .string("carName", \.carName),
    ]
}

extension SetDefrosterSettingsInCarParameters: DeclaredParameters {
    public init() { self.init(enable: nil) }
    public static let parameters: [ParameterDeclaration<Self>] = [
        .bool("enable", \.enable),
        .enumeration("defroster", \.defroster, type: "CarDefroster"),
        .string("carName", \.carName),
    ]
}

extension SetSeatSettingsInCarParameters: DeclaredParameters {
    public init() { self.init(enableHeating: nil) }
    public static let parameters: [ParameterDeclaration<Self>] = [
        .bool("enableHeating", \.enableHeating),
        .bool("enableCooling", \.enableCooling),
        .bool("enableMassage", \.enableMassage),
        .enumeration("seat", \.seat, type: "CarSeat"),
        .integer("level", \.level),
        .enumeration("relativeLevelSetting", \.relativeLevelSetting, type: "RelativeSetting", aliases: ["relativeLevel"]),
        .string("carName", \.carName),
    ]
}

extension SetAudioSourceInCarParameters: DeclaredParameters {
    public init() { self.init(audioSource: nil) }
    public static let parameters: [ParameterDeclaration<Self>] = [
        .enumeration("audioSource", \.audioSource, type: "CarAudioSource"),
        .enumeration("relativeAudioSourceReference", \.relativeAudioSourceReference, type: "RelativeReference"),
    ]
}

extension SetRadioStationParameters: DeclaredParameters {
    public init() { self.init(radioType: nil) }
    public static let parameters: [ParameterDeclaration<Self>] = [
        .enumeration("radioType", \.radioType, type: "RadioType"),
        .number("frequency", \.frequency),
        .string("stationName", \.stationName),
        .channel("channel", \.channel),
        .integer("presetNumber", \.presetNumber),
    ]
}

extension SaveProfileInCarParameters: DeclaredParameters {
    public init() { self.init(profileNumber: nil) }
    public static let parameters: [ParameterDeclaration<Self>] = [
        .integer("profileNumber", \.profileNumber),
        .string("profileName", \.profileName),
    ]
}

extension SetProfileInCarParameters: DeclaredParameters {
    public init() { self.init(profileNumber: nil) }
    public static let parameters: [ParameterDeclaration<Self>] = [
        .integer("profileNumber", \.profileNumber),
        .string("profileName", \.profileName),
        .bool("isDefaultProfile", \.isDefaultProfile),
        .string("carName", \.carName),
    ]
}

extension SetCarLockStatusParameters: DeclaredParameters {
    public init() { self.init(locked: nil) }
    public static let parameters: [ParameterDeclaration<Self>] = [
        .bool("locked", \.locked),
        .string("carName", \.carName),
    ]
}

extension CarNameParameters: DeclaredParameters {
    public init() { self.init(carName: nil) }
    public static let parameters: [ParameterDeclaration<Self>] = [.string("carName", \.carName)]
}

extension ActivateCarSignalParameters: DeclaredParameters {
    public init() { self.init(carName: nil) }
    public static let parameters: [ParameterDeclaration<Self>] = [
        .string("carName", \.carName),
        .signals("signals", \.signals),
    ]
}
