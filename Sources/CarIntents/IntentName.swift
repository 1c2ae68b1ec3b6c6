/// The eleven CarPlay-domain intents, by SiriKit's names (without the `IN` prefix
/// and `Intent` suffix), as they appear in the JSON form `{"intent": "...", ...}`.
public enum IntentName: String, Sendable, Hashable, CaseIterable {
    case setClimateSettingsInCar = "SetClimateSettingsInCar"
    case setDefrosterSettingsInCar = "SetDefrosterSettingsInCar"
    case setSeatSettingsInCar = "SetSeatSettingsInCar"
    case setAudioSourceInCar = "SetAudioSourceInCar"
    case setRadioStation = "SetRadioStation"
    case saveProfileInCar = "SaveProfileInCar"
    case setProfileInCar = "SetProfileInCar"
    case setCarLockStatus = "SetCarLockStatus"
    case getCarLockStatus = "GetCarLockStatus"
    case activateCarSignal = "ActivateCarSignal"
    case getCarPowerLevelStatus = "GetCarPowerLevelStatus"
}
