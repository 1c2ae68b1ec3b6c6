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

extension IntentName {
    /// The codes of this intent's SiriKit response code enum
    /// (`IN<Name>IntentResponseCode`), in SiriKit's order. Every car intent has the same
    /// six; only `INSetRadioStationIntentResponseCode` adds `failureNotSubscribed`.
    /// `ready` is the confirm phase's code, `success` and the failures the handle phase's.
    public var responseCodes: [IntentResponseCode] {
        let common: [IntentResponseCode] = [.unspecified, .ready, .inProgress, .success, .failure, .failureRequiringAppLaunch]
        return self == .setRadioStation ? common + [.failureNotSubscribed] : common
    }
}
