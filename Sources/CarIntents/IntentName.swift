/// The intents, by SiriKit's names (without the `IN` prefix and `Intent` suffix), as
/// they appear in the JSON form `{"intent": "...", ...}`: the seven of the CarPlay
/// domain (deprecated by Apple in iOS 15, without a replacement) and the five Car
/// Commands (current; ListCars since iOS 14).
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
    case listCars = "ListCars"
}
