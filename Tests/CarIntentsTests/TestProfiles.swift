import CANKit

@testable import CarIntents
@testable import VehicleKit

/// Profiles built in code (no DBC needed by the resolver), mirroring VehicleProfiles/README.md.
enum TestProfiles {
    static func emptyDatabase() -> DBCDatabase {
        // An empty DBC text is a valid, empty database.
        try! DBCDatabase(parsing: "")
    }

    /// Left-hand drive, two zones, seven fan levels, front+rear defrosters, FM/AM/satellite.
    static let sedan = VehicleProfile(
        identifier: "sedan", displayName: "Example Sedan", carNames: ["Sedan", "my sedan"], driverSide: .left,
        database: emptyDatabase(),
        climate: ClimateCapabilities(
            zones: [ClimateZone(id: "left", seats: [.frontLeft, .rearLeft]), ClimateZone(id: "right", seats: [.frontRight, .rearRight])],
            celsius: SteppedRange(min: 16, max: 28, step: 0.5), fahrenheit: SteppedRange(min: 61, max: 82, step: 1),
            fanSpeedLevels: 7, airConditioner: true, autoMode: true, recirculation: true, climateControl: true),
        defrosters: [.front, .rear],
        seats: [SeatCapabilities(seat: .frontLeft, heating: 3), SeatCapabilities(seat: .frontRight, heating: 3, cooling: 2, massage: 4)],
        radio: RadioCapabilities(
            bands: [
                RadioBand(type: .FM, range: SteppedRange(min: 87.5, max: 108.0, step: 0.1), unit: "MHz"),
                RadioBand(type: .AM, range: SteppedRange(min: 530, max: 1710, step: 10), unit: "kHz"),
                RadioBand(type: .satellite, range: SteppedRange(min: 1, max: 999, step: 1), unit: "channel"),
            ],
            presets: [RadioPreset(number: 1, station: RadioStation(name: "", type: .FM, frequency: 101.1))],
            stations: [
                RadioStation(name: "Jazz FM", type: .FM, frequency: 101.1),
                RadioStation(name: "Hits 1", type: .satellite, channel: 2),
                RadioStation(name: "Classic Rock", type: .FM, frequency: 95.3),
                RadioStation(name: "Classic Jazz", type: .AM, frequency: 880),
            ],
            satelliteSubscribed: true),
        audioSources: [.sourceRadio, .sourceBluetooth, .sourceUSB, .sourceAUX, .sourceCarPlay], carProfileSlots: 4, hasLock: true,
        carSignals: [.audible, .visible], power: PowerCapabilities(fuel: true, battery: false),
        bindings: [:], protection: [:], acknowledgement: nil,
        policies: Policies(
            refusedWhileCarLocked: ["SetClimateSettingsInCar", "SetSeatSettingsInCar"], confirmationTimeout: .milliseconds(500), unreachableAfterCycles: 5))

    /// Right-hand drive, three zones (no third-row zone), five fan levels and no
    /// recirculation or auto mode, front defroster only, six seats with features on four,
    /// FM/HD/DAB/satellite (not subscribed), visible signal only, electric.
    static let suv = VehicleProfile(
        identifier: "suv", displayName: "Example SUV", carNames: ["SUV"], driverSide: .right,
        database: emptyDatabase(),
        climate: ClimateCapabilities(
            zones: [
                ClimateZone(id: "driver", seats: [.frontRight]), ClimateZone(id: "passenger", seats: [.frontLeft]),
                ClimateZone(id: "rear", seats: [.rearLeft, .rearRight]),
            ],
            celsius: SteppedRange(min: 15, max: 30, step: 1), fahrenheit: SteppedRange(min: 59, max: 86, step: 1),
            fanSpeedLevels: 5, airConditioner: true, autoMode: false, recirculation: false, climateControl: true),
        defrosters: [.front],
        seats: [
            SeatCapabilities(seat: .frontLeft, heating: 3, cooling: 3), SeatCapabilities(seat: .frontRight, heating: 3, cooling: 3),
            SeatCapabilities(seat: .rearLeft, heating: 2), SeatCapabilities(seat: .rearRight, heating: 2),
        ],
        radio: RadioCapabilities(
            bands: [
                RadioBand(type: .FM, range: SteppedRange(min: 87.5, max: 108.0, step: 0.2), unit: "MHz"),
                RadioBand(type: .HD, range: SteppedRange(min: 87.5, max: 108.0, step: 0.2), unit: "MHz"),
                RadioBand(type: .DAB, range: SteppedRange(min: 1, max: 60, step: 1), unit: "channel"),
                RadioBand(type: .satellite, range: SteppedRange(min: 1, max: 999, step: 1), unit: "channel"),
            ],
            presets: [RadioPreset(number: 3, station: RadioStation(name: "Sat Hits", type: .satellite, channel: 20))],
            stations: [RadioStation(name: "Sat Hits", type: .satellite, channel: 20)],
            satelliteSubscribed: false),
        audioSources: [.sourceBluetooth, .sourceUSB, .sourceCarPlay], carProfileSlots: 2, hasLock: true,
        carSignals: [.visible], power: PowerCapabilities(fuel: false, battery: true),
        bindings: [:], protection: [:], acknowledgement: nil,
        policies: Policies(refusedWhileCarLocked: ["SetRadioStation"], confirmationTimeout: .milliseconds(500), unreachableAfterCycles: 5))

    /// No climate, radio, seats, lock, signals, profile slots or power reporting.
    static let bare = VehicleProfile(
        identifier: "bare", displayName: "Bare Car", carNames: ["Bare"], driverSide: .left, database: emptyDatabase(),
        climate: nil, defrosters: [], seats: [], radio: nil, audioSources: [], carProfileSlots: 0, hasLock: false,
        carSignals: [], power: PowerCapabilities(fuel: false, battery: false), bindings: [:], protection: [:], acknowledgement: nil,
        policies: Policies(refusedWhileCarLocked: [], confirmationTimeout: .milliseconds(500), unreachableAfterCycles: 5))
}

/// Parses the JSON form and resolves it.
func resolve(
    _ json: String, _ profile: VehicleProfile = TestProfiles.sedan, state: VehicleState = VehicleState(),
    saved: [SavedCarProfile] = []
) throws -> IntentResolution {
    IntentResolver.resolve(try Intent(parsing: json), profile: profile, state: state, savedCarProfiles: saved)
}

/// `{"intent":name,"parameters":{parameters}}`.
func request(_ name: String, _ parameters: String = "") -> String {
    #"{"intent":"\#(name)","parameters":{\#(parameters)}}"#
}
