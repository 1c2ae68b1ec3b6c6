import CANKit
import Foundation
import TestSupport
import Testing

@testable import VehicleKit

/// The shipped profiles, read into memory; broken copies are loaded through a
/// `readFile` closure over a dictionary.
struct ProfileFixture {
    static var repositoryRoot: URL { TestPaths.repositoryRoot }

    let vehicle: String
    var json: String
    var dbc: String
    /// The DBC's file name, as `json` names it.
    let dbcName: String

    init(_ vehicle: String) throws {
        self.vehicle = vehicle
        let folder = Self.repositoryRoot.appendingPathComponent("VehicleProfiles/\(vehicle)")
        json = try String(contentsOf: folder.appendingPathComponent("profile.json"), encoding: .utf8)
        dbc = try String(contentsOf: folder.appendingPathComponent("\(vehicle).dbc"), encoding: .utf8)
        dbcName = "\(vehicle).dbc"
    }

    /// A test profile of Tests/Fixtures (`dbc`: the path its profile.json names).
    init(fixture vehicle: String, dbc dbcName: String) throws {
        self.vehicle = vehicle
        let folder = TestPaths.repository("Tests/Fixtures/\(vehicle)")
        json = try String(contentsOf: folder.appendingPathComponent("profile.json"), encoding: .utf8)
        dbc = try String(contentsOf: folder.appendingPathComponent(dbcName), encoding: .utf8)
        self.dbcName = dbcName
    }

    var files: [String: [UInt8]] {
        ["\(vehicle)/profile.json": Array(json.utf8), "\(vehicle)/\(dbcName)": Array(dbc.utf8)]
    }

    func load() throws(ProfileError) -> VehicleProfile {
        let files = self.files
        return try ProfileLoader.load(directory: vehicle) { files[$0] }
    }

    /// Replaces the first occurrence; the text must contain it (else the test fails).
    mutating func json(_ old: String, _ new: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        json = try Self.replace(json, old, new, sourceLocation: sourceLocation)
    }

    mutating func dbc(_ old: String, _ new: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        dbc = try Self.replace(dbc, old, new, sourceLocation: sourceLocation)
    }

    static func replace(_ text: String, _ old: String, _ new: String, sourceLocation: SourceLocation) throws -> String {
        let range = try #require(text.range(of: old), "fixture text not found: \(old)", sourceLocation: sourceLocation)
        return text.replacingCharacters(in: range, with: new)
    }

    /// Loading must fail at exactly `path` with a reason containing every fragment.
    func expectError(path: String, _ fragments: String..., sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let profile = try load()
            Issue.record("expected a ProfileError at \(path), but \(profile.identifier) loaded", sourceLocation: sourceLocation)
        } catch {
            #expect(error.file == "\(vehicle)/profile.json", sourceLocation: sourceLocation)
            #expect(error.path == path, "\(error)", sourceLocation: sourceLocation)
            for fragment in fragments {
                #expect(error.reason.contains(fragment), "reason lacks \"\(fragment)\": \(error)", sourceLocation: sourceLocation)
            }
        }
    }
}

@Suite struct ShippedProfileTests {
    @Test func sedanLoads() throws {
        let profile = try ProfileFixture("sedan").load()
        #expect(profile.identifier == "sedan")
        #expect(profile.displayName == "Example Sedan")
        #expect(profile.database.warnings.isEmpty, "\(profile.database.warnings)")
        let climate = try #require(profile.climate)
        #expect(climate.zones == [ClimateZone(id: "left", seats: [.frontLeft, .rearLeft]), ClimateZone(id: "right", seats: [.frontRight, .rearRight])])
        #expect(climate.celsius == SteppedRange(min: 16, max: 28, step: 0.5))
        #expect(climate.fahrenheit == SteppedRange(min: 61, max: 82, step: 1))
        #expect(climate.fanSpeedLevels == 7)
        #expect(profile.defrosters == [.front, .rear])
        #expect(profile.seats.filter { $0.heating == 3 }.map(\.seat) == [.frontLeft, .frontRight])
        #expect(profile.seats.allSatisfy { $0.cooling == 0 && $0.massage == 0 })
        let radio = try #require(profile.radio)
        #expect(radio.bands.map(\.type) == [.FM, .AM])
        #expect(radio.presets.count == 6)
        #expect(profile.audioSources == [.sourceRadio, .sourceBluetooth, .sourceUSB, .sourceAUX, .sourceCarPlay])
        #expect(profile.carProfileSlots == 3)
        #expect(profile.hasLock)
        #expect(profile.carSignals == [.audible, .visible])
        #expect(profile.power == PowerCapabilities(fuel: true, battery: false))
        // The shipped cars refuse nothing while locked (SiriKit's restriction is the caller's device).
        #expect(profile.policies.refusedWhileCarLocked.isEmpty)
        #expect(profile.policies.confirmationTimeout == .milliseconds(300))

        let messages = profile.database.messages
        #expect(messages.allSatisfy { !$0.isExtended && !$0.isFD && $0.length == 8 })
        #expect(messages.flatMap(\.signals).allSatisfy { $0.byteOrder == .littleEndian })
        #expect(
            profile.protection["ClimateCommand"]?.protection
                == (try FrameProtection(
                    scheme: .carplaydE2E(dataID: 4096), checksum: PayloadField(startBit: 0, length: 8, byteOrder: .littleEndian),
                    counter: PayloadField(startBit: 8, length: 4, byteOrder: .littleEndian))))
        guard case let .setpoint(seatHeating)? = profile.bindings[.seat(.frontLeft, .heating)]?.command else {
            Issue.record("seat heating is not a setpoint")
            return
        }
        #expect(seatHeating.idle == 15)
        #expect(profile.bindings[.locked]?.statusValues.values == ["false": [.choice("Unlocked")], "true": [.choice("Locked")]])

        let summary = ProfileSummary(profile).description
        for fragment in [
            "Example Sedan (sedan)", "10 messages (11-bit IDs, 0 CAN FD)", "Intel byte order", "bound properties: 22",
            "climate zones: 2: left (frontLeft, rearLeft); right (frontRight, rearRight)", "seats: 4: frontLeft (heating 3)",
            "radio bands: 2: FM 87.5...108 MHz step 0.1; AM 530...1710 kHz step 10", "audio sources: 5", "profile slots: 3",
            "confirmation timeout 300 ms",
        ] {
            #expect(summary.contains(fragment), "summary lacks \(fragment):\n\(summary)")
        }
    }

    @Test func suvLoads() throws {
        let profile = try ProfileFixture("suv").load()
        #expect(profile.database.warnings.isEmpty, "\(profile.database.warnings)")
        let climate = try #require(profile.climate)
        #expect(climate.zones.map(\.id) == ["frontLeft", "frontRight", "rear", "thirdRow"])
        #expect(climate.zones(serving: [.rearRight]).map(\.id) == ["rear"])
        #expect(climate.fanSpeedLevels == 10)
        #expect(profile.seats.map(\.seat) == CarSeat.physical)
        #expect(profile.seat(.frontLeft) == SeatCapabilities(seat: .frontLeft, heating: 3, cooling: 3, massage: 5))
        #expect(profile.seat(.rearRight) == SeatCapabilities(seat: .rearRight, heating: 3))
        let radio = try #require(profile.radio)
        #expect(radio.bands.map(\.type) == [.FM, .DAB, .satellite])
        #expect(radio.band(.satellite)?.range == SteppedRange(min: 1, max: 999, step: 1))
        #expect(!radio.satelliteSubscribed)
        #expect(profile.audioSources == [.sourceCarPlay, .sourceRadio, .sourceBluetooth, .sourceUSB, .sourceMemoryCard, .sourceHardDrive])
        #expect(profile.carProfileSlots == 6)
        #expect(profile.carSignals == [.visible])
        #expect(profile.power.fuel == false && profile.power.battery == true)
        #expect(profile.bindings[.fuelPercent] == nil)
        #expect(profile.bindings[.minutesToFull]?.command == nil)
        guard case let .setpoint(thirdRow)? = profile.bindings[.temperature(zone: "thirdRow")]?.command else {
            Issue.record("the third row's temperature is not a setpoint")
            return
        }
        #expect(thirdRow.idle == 255, "idle given as a raw number")

        let messages = profile.database.messages
        #expect(messages.allSatisfy { $0.isExtended })
        #expect(messages.flatMap(\.signals).allSatisfy { $0.byteOrder == .bigEndian })
        let status = messages.filter { $0.name.hasSuffix("Status") }
        #expect(status.count == 5)
        #expect(status.allSatisfy { $0.isFD && $0.length > 8 && $0.cycleTime != nil })
        #expect(messages.filter { $0.name.hasSuffix("Command") }.allSatisfy { !$0.isFD && $0.length == 8 })
        // Motorola: the counter's start bit 15 is the high nibble of byte 1.
        #expect(profile.protection["SeatStatus"]?.protection.counter == PayloadField(startBit: 15, length: 4, byteOrder: .bigEndian))
        #expect(profile.protection["SeatStatus"]?.protection.scheme == .carplaydE2E(dataID: 12320))

        let summary = ProfileSummary(profile).description
        for fragment in [
            "10 messages (29-bit IDs, 5 CAN FD)", "Motorola byte order", "ClimateStatus: 0x18A02010 (extended), 16 bytes, CAN FD, every 100 ms",
            "climate zones: 4", "rear (rearLeft, rearRight)", "seats: 6", "frontLeft (heating 3, cooling 3, massage 5)",
            "radio bands: 3: FM 87.9...107.9 MHz step 0.2; DAB 1...60 channel step 1; satellite 1...999 channel step 1",
            "satellite not subscribed", "audio sources: 6", "profile slots: 6", "car commands: lock, signal visible", "reported only: battery",
            "confirmation timeout 750 ms",
        ] {
            #expect(summary.contains(fragment), "summary lacks \(fragment):\n\(summary)")
        }
    }

    @Test func profilesDiffer() throws {
        let sedan = try ProfileFixture("sedan").load()
        let suv = try ProfileFixture("suv").load()
        #expect(sedan.policies.confirmationTimeout != suv.policies.confirmationTimeout)
        #expect(sedan.climate?.celsius != suv.climate?.celsius)
        #expect(sedan.climate?.fahrenheit != suv.climate?.fahrenheit)
        #expect(sedan.carSignals != suv.carSignals)
    }

    /// The sedan's one kHz signal carries FM in MHz and AM in kHz.
    @Test func sedanFrequencySignalInKilohertz() throws {
        let profile = try ProfileFixture("sedan").load()
        let binding = try #require(profile.bindings[.radioFrequency])
        let fm = try #require(profile.radio?.band(.FM))
        let am = try #require(profile.radio?.band(.AM))
        #expect(binding.signalUnit == "kHz")
        #expect(binding.signalValue(frequency: 101.1, band: fm) == 101_100)
        #expect(binding.signalValue(frequency: 1050, band: am) == 1050)
        let codec = try #require(profile.database.message(named: "AudioStatus")).codec
        let payload = try codec.encode([
            "Crc": 0, "AliveCounter": 0, "Source": "Radio", "Band": "FM", "Frequency": .float(binding.signalValue(frequency: 101.1, band: fm)),
        ])
        let decoded = try #require(try codec.decode(payload).first { $0.name == "Frequency" }).value
        #expect(binding.frequency(signalValue: decoded.doubleValue, band: fm) == 101.1)
    }

    @Test func stationNamesMatchByWords() throws {
        let radio = try #require(try ProfileFixture("sedan").load().radio)
        #expect(radio.stations(matching: "jazz").map(\.name) == ["Jazz FM", "Smooth Jazz"], "ambiguous")
        #expect(radio.stations(matching: "JAZZ fm").map(\.name) == ["Jazz FM"], "whole name wins")
        #expect(radio.stations(matching: "smooth").map(\.name) == ["Smooth Jazz"])
        #expect(radio.stations(matching: "classic").map(\.name) == ["Classic Rock", "Classic FM"])
        #expect(radio.stations(matching: "jaz").isEmpty, "whole words only")
        #expect(radio.stations(matching: "opera").isEmpty)
    }
}

@Suite struct ProfileValidationTests {
    @Test func errorDescriptionNamesFilePathAndReason() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""signal": "HeatFrontLeft", "idle""#, #""signal": "SeatHeatFL", "idle""#)
        fixture.expectError(path: #"bindings["seat.frontLeft.heating"].command.signal"#, #"no signal "SeatHeatFL" in message "SeatCommand" of sedan.dbc"#)
        #expect(
            throws: ProfileError(
                file: "sedan/profile.json", path: #"bindings["seat.frontLeft.heating"].command.signal"#,
                reason: #"no signal "SeatHeatFL" in message "SeatCommand" of sedan.dbc"#)
        ) { try fixture.load() }
        let error = ProfileError(file: "f.json", path: "p", reason: "r")
        #expect(error.description == "f.json: p: r")
    }

    @Test func unknownMessage() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#""status": {"message": "BatteryStatus", "signal": "RangeKm"}"#, #""status": {"message": "RangeStatus", "signal": "RangeKm"}"#)
        fixture.expectError(path: #"bindings["power.distanceRemaining"].status.message"#, #"no message "RangeStatus" in suv.dbc"#)
    }

    @Test func temperatureRangeBeyondSignal() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""celsius": {"min": 16, "max": 28"#, #""celsius": {"min": 16, "max": 45"#)
        fixture.expectError(
            path: "climate.temperature.celsius", "45 °C", #"signal "TargetTempLeft" of message "ClimateCommand""#, "smaller than or equal to 42")
    }

    /// A temperature the car only reports is checked too: a signal that cannot carry
    /// 12 °C (the simulated car's outside temperature) is the wrong signal, said at load
    /// rather than by every `perform`.
    @Test func reportedTemperaturesMustFitTheirSignal() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.dbc(
            #"SG_ CabinTemperature : 48|8@1+ (0.5,-40) [-40|87.5] "degC" HeadUnit"#,
            #"SG_ CabinTemperature : 48|8@1+ (0.25,0) [0|0.75] "degC" HeadUnit"#)
        fixture.expectError(
            path: #"bindings["climate.cabinTemperature"]"#, "12 °C", #"signal "CabinTemperature" of message "ClimateStatus""#, "0.75")
    }

    /// SiriKit only ever asks to activate a car signal (`ActivateCarSignal`): its setpoint
    /// may map "true" alone, false being the idle value no request may use. Any other
    /// boolean still maps both, and the error says what to write instead.
    @Test func aCarSignalSetpointMayMapTrueAlone() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(
            #""signal": "Lights", "idle": "NoRequest",\#n        "values": {"false": "Off", "true": "On"}"#,
            #""signal": "Lights", "idle": "Off",\#n        "values": {"true": "On"}"#)
        let profile = try fixture.load()
        #expect(profile.bindings[.signal(.visible)]?.command != nil)

        var fan = try ProfileFixture("sedan")
        try fan.json(
            #""signal": "Fan", "idle": "NoRequest",\#n        "values": {"false": "Off", "true": "On"}"#,
            #""signal": "Fan", "idle": "NoRequest",\#n        "values": {"true": "On"}"#)
        fan.expectError(path: #"bindings["climate.fan"].command.values"#, #"maps both "false" and "true""#, #""kind": "momentary""#)
    }

    /// Profile slot 0 ("none") is never commanded (SetProfileInCar selects 1...slots), so
    /// a slot request that idles at 0 binds; a seat level 0 is commanded ("heating off"),
    /// so its idle value must differ, and the error says what to write instead.
    @Test func onlyCommandedValuesMustDifferFromTheIdleValue() throws {
        var slots = try ProfileFixture("sedan")
        try slots.json(#""signal": "ProfileSlot", "idle": "NoRequest""#, #""signal": "ProfileSlot", "idle": 0"#)
        #expect(try slots.load().bindings[.activeCarProfile]?.command != nil)

        var seat = try ProfileFixture("sedan")
        try seat.json(#""signal": "HeatFrontLeft", "idle": "NoRequest""#, #""signal": "HeatFrontLeft", "idle": 0"#)
        seat.expectError(path: #"bindings["seat.frontLeft.heating"].command.idle"#, "heating level 0", "give no idle")
    }

    /// A seat's heating and cooling on one level signal (a mode signal beside it) loaded,
    /// then every seat command failed `unencodable` ("share one signal"). Two different
    /// settings on one command signal are refused at load, with what works today.
    @Test func twoSettingsOnOneCommandSignalAreRefused() throws {
        var suv = try ProfileFixture("suv")
        try suv.json(
            #""command": {"kind": "setpoint", "message": "SeatCommand", "signal": "VentFrontLeft", "idle": "NoRequest"}"#,
            #""command": {"kind": "setpoint", "message": "SeatCommand", "signal": "HeatFrontLeft", "idle": "NoRequest"}"#)
        suv.expectError(
            path: #"bindings["seat.frontLeft.heating"].command"#, #"signal "HeatFrontLeft" of message "SeatCommand""#,
            #"also the command signal of seat.frontLeft.cooling"#, "read-only")
        // One setting for several places (zones sharing one set point) stays allowed.
        #expect(throws: Never.self) { try ProfileFixture("sedan").load() }
    }

    @Test func temperatureStepFinerThanSignalScale() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#""celsius": {"min": 15, "max": 30, "step": 0.5}"#, #""celsius": {"min": 15, "max": 30, "step": 0.25}"#)
        fixture.expectError(path: "climate.temperature.celsius", "15.25 °C", "TargetTempFrontLeft", "scale 0.5 cannot represent it")
    }

    @Test func fanLevelsBeyondSignal() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""fanSpeedLevels": 7"#, #""fanSpeedLevels": 9"#)
        fixture.expectError(path: "climate.fanSpeedLevels", "fan level 9", #"signal "FanSpeed" of message "ClimateCommand""#)
    }

    @Test func seatLevelIsTheIdleChoice() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#""massage": 5}"#, #""massage": 15}"#)
        fixture.expectError(path: "seats[0].massage", "massage level 15", #"which is the choice "NoRequest""#)
    }

    @Test func satelliteChannelsBeyondSignal() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#""type": "satellite", "min": 1, "max": 999"#, #""type": "satellite", "min": 1, "max": 1500"#)
        fixture.expectError(path: "radio.bands[2]", "satellite channel 1500", #"signal "Channel" of message "AudioCommand""#)
    }

    @Test func profileSlotsBeyondStatusSignal() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""profileSlots": 3"#, #""profileSlots": 15"#)
        fixture.expectError(path: "profileSlots", "profile slot 15", "ProfileSlot")
    }

    @Test func zoneMappedTwice() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#"{"id": "right", "seats": ["frontRight", "rearRight"]}"#, #"{"id": "right", "seats": ["frontRight", "rearLeft"]}"#)
        fixture.expectError(path: "climate.zones[1].seats[1]", #"seat "rearLeft" mapped twice"#, #"zone "left""#)
    }

    @Test func duplicateZoneID() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#"{"id": "thirdRow","#, #"{"id": "rear","#)
        fixture.expectError(path: "climate.zones[3].id", #"duplicate zone id "rear""#)
    }

    @Test func zoneOfNonPhysicalSeat() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#"{"id": "frontLeft", "seats": ["frontLeft"]}"#, #"{"id": "frontLeft", "seats": ["driver"]}"#)
        fixture.expectError(path: "climate.zones[0].seats[0]", #""driver" is not a physical seat"#)
    }

    @Test func unknownKeyIsATypo() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""fanSpeedLevels": 7"#, #""fanSpeedLevel": 7"#)
        fixture.expectError(path: "climate.fanSpeedLevel", #"unknown key "fanSpeedLevel""#, #"did you mean "fanSpeedLevels"?"#)
    }

    @Test func unknownKeyInsideABinding() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(
            #""status": {"message": "PowerStatus", "signal": "FuelLevel"}"#, #""status": {"message": "PowerStatus", "signal": "FuelLevel", "scale": 2}"#)
        fixture.expectError(path: #"bindings["power.fuelPercent"].status.scale"#, #"unknown key "scale""#)
    }

    /// Without idle a setpoint's signal always carries a value (a frame repeats the current one).
    @Test func setpointWithoutIdle() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""signal": "TargetTempRight", "idle": "NoRequest"}"#, #""signal": "TargetTempRight"}"#)
        guard case let .setpoint(setpoint)? = try fixture.load().bindings[.temperature(zone: "right")]?.command else {
            Issue.record("the right zone's temperature is not a setpoint")
            return
        }
        #expect(setpoint.idle == nil)
    }

    @Test func idleChoiceThatDoesNotExist() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""signal": "Horn", "idle": "NoRequest""#, #""signal": "Horn", "idle": "Idle""#)
        fixture.expectError(path: #"bindings["signal.audible"].command.idle"#, #"no choice "Idle" in signal "Horn""#)
    }

    @Test func idleNumberTooWide() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#""idle": 255"#, #""idle": 256"#)
        fixture.expectError(path: #"bindings["climate.temperature.thirdRow"].command.idle"#, "raw value 256 does not fit the 8 bits")
    }

    @Test func valuesChoiceThatDoesNotExist() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""sourceAUX": "Aux""#, #""sourceAUX": "Auxiliary""#)
        fixture.expectError(
            path: #"bindings["audio.source"].command.values["sourceAUX"]"#, #"no choice "Auxiliary" in signal "Source" of message "AudioCommand""#)
    }

    @Test func valuesChoiceMissingInStatusSignal() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.dbc(#"3 "Aux" 4 "CarPlay" ;"#, #"3 "AUX" 4 "CarPlay" ;"#)
        fixture.expectError(path: #"bindings["audio.source"].status.values["sourceAUX"]"#, #"no choice "Aux" in signal "Source" of message "AudioStatus""#)
    }

    @Test func audioSourceWithoutValue() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#", "sourceCarPlay": "CarPlay"}"#, "}")
        fixture.expectError(path: #"bindings["audio.source"].command.values["sourceCarPlay"]"#, "missing: the car has sourceCarPlay")
    }

    @Test func bandWithoutValue() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#", "satellite": "SiriusXM"}"#, "}")
        fixture.expectError(path: #"bindings["radio.band"].command.values["satellite"]"#, "missing: the car has satellite")
    }

    /// Fuzz regression (profile target): a DBC range whose minimum is above its maximum,
    /// on a signal beside a bound one, trapped building the range check's neutral inputs.
    @Test func aDBCRangeUpsideDownDoesNotTrap() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.dbc(
            #"SG_ CabinTemperature : 48|8@1+ (0.5,-40) [-40|87.5] "degC" HeadUnit"#, #"SG_ CabinTemperature : 48|8@1+ (0.5,-40) [87.5|-40] "degC" HeadUnit"#)
        // The range check looks at the bound signal alone (issue 25: a status is read
        // without the encoder); the cabin temperature is range-checked, so the upside-down
        // range is refused with its reason, not trapped on.
        fixture.expectError(path: #"bindings["climate.cabinTemperature"]"#, "greater than or equal to 87.5")
    }

    @Test func crcNotByteAligned() throws {
        var fixture = try ProfileFixture("sedan")
        // The first message of sedan.dbc is ClimateCommand.
        try fixture.dbc("SG_ Crc : 0|8@1+", "SG_ Crc : 52|8@1+")
        fixture.expectError(
            path: #"messages["ClimateCommand"].protection.checksum"#,
            "`checksum` must be one whole byte (8 bits starting at a byte boundary), not 8 bits from start bit 52")
    }

    @Test func crcOfWrongWidth() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""dataID": 4112, "checksum": "Crc""#, #""dataID": 4112, "checksum": "HeatFrontLeft""#)
        fixture.expectError(
            path: #"messages["SeatCommand"].protection.checksum"#, "must be one whole byte (8 bits starting at a byte boundary), not 4 bits")
    }

    @Test func counterNotInANibble() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#""dataID": 8256, "checksum": "Crc", "counter": "AliveCounter""#, #""dataID": 8256, "checksum": "Crc", "counter": "DoorLock""#)
        fixture.expectError(
            path: #"messages["BodyCommand"].protection.counter"#, "`counter` must be one nibble (bits 0...3 or 4...7 of one byte), not 2 bits")
    }

    /// Protection is per message: a message the profile does not protect carries none.
    @Test func boundMessageWithoutProtection() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""SeatStatus": {"protection": {"scheme": "carplayd-e2e", "dataID": 4368, "checksum": "Crc", "counter": "AliveCounter"}},"#, "")
        let profile = try fixture.load()
        #expect(profile.protection["SeatStatus"] == nil && profile.protection["SeatCommand"] != nil)
    }

    @Test func statusOnlyKeyWithCommand() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(
            #""power.fuelPercent": {"status""#, #""power.fuelPercent": {"command": {"message": "BodyCommand", "signal": "Horn", "idle": "NoRequest"}, "status""#
        )
        fixture.expectError(path: #"bindings["power.fuelPercent"].command"#, "power.fuelPercent is status only")
    }

    /// A binding without a command is read-only: reported, not commandable.
    @Test func bindingWithoutCommandIsReadOnly() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(
            #"""
                  "command": {
                    "kind": "setpoint", "message": "BodyCommand", "signal": "FlashLights", "idle": "NoRequest",
                    "values": {"false": "Off", "true": "On"}
                  },

            """#, "")
        let profile = try fixture.load()
        #expect(profile.isReadOnly("signal.visible") && !profile.isReadOnly(.locked))
    }

    @Test func missingBindingForZone() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(
            #"{"id": "right", "seats": ["frontRight", "rearRight"]}"#, #"{"id": "right", "seats": ["frontRight"]}, {"id": "rear", "seats": ["rearRight"]}"#)
        fixture.expectError(path: #"bindings["climate.temperature.rear"]"#, "missing binding", #"a climate zone "rear""#)
    }

    @Test func missingBindingForSeatFeature() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#"{"seat": "rearLeft"}"#, #"{"seat": "rearLeft", "heating": 2}"#)
        fixture.expectError(path: #"bindings["seat.rearLeft.heating"]"#, "missing binding", "rearLeft with heating")
    }

    @Test func bindingForAFeatureTheSeatLacks() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(
            #""seat.rearLeft.heating": {"#,
            #""seat.rearLeft.massage": {"command": {"message": "SeatCommand", "signal": "MassageFrontLeft", "idle": "NoRequest"}, "status": {"message": "SeatStatus", "signal": "MassageFrontLeft"}}, "seat.rearLeft.heating": {"#
        )
        fixture.expectError(path: #"bindings["seat.rearLeft.massage"]"#, "no such capability", "rearLeft with massage > 0")
    }

    @Test func fuelBindingWithoutFuel() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""power": {"fuel": true, "battery": false}"#, #""power": {"fuel": false, "battery": false}"#)
        fixture.expectError(path: #"bindings["power.fuelPercent"]"#, "no such capability", "power.fuel: true")
    }

    @Test func unknownPropertyKey() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""climate.fanSpeed": {"#, #""climate.fanLevel": {"#)
        fixture.expectError(path: #"bindings["climate.fanLevel"]"#, #"unknown property key "climate.fanLevel""#)
    }

    /// Car names are speakable strings: two that are spoken alike are one name.
    @Test func carNamesSpokenAlikeAreDuplicates() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""the saloon"]"#, #""the saloon", "My-Sedan"]"#)
        fixture.expectError(path: "carNames[3]", #"duplicate car name "My-Sedan" (spoken as "my sedan")"#)
    }

    @Test func carSectionErrorsNameThePath() throws {
        for (new, path, reason) in [
            (#""color": "blue""#, "car.color", "#RRGGBB"),
            (#""year": 12026"#, "car.year", "a model year"),
            (#""chargingConnectors": [{"type": "schuko"}]"#, "car.chargingConnectors[0].type", "unknown charging connector"),
            (#""chargingConnectors": [{"type": "ccs2", "maximumPowerKW": 0}]"#, "car.chargingConnectors[0].maximumPowerKW", "greater than 0"),
        ] {
            var fixture = try ProfileFixture("sedan")
            try fixture.json(##""color": "#1F3A5F""##, new)
            fixture.expectError(path: path, reason)
        }
        let suv = try ProfileFixture("suv").load()
        #expect(suv.car.chargingConnectors == [.init(type: .ccs2, maximumPowerKilowatts: 150), .init(type: .mennekes, maximumPowerKilowatts: 11)])
    }

    @Test func refusedWhileCarLockedUnknownIntent() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(
            #""confirmationTimeoutMs": 300"#, #""refusedWhileCarLocked": ["SetAudioSourceInCar", "SetRadioStations"], "confirmationTimeoutMs": 300"#)
        fixture.expectError(path: "policies.refusedWhileCarLocked[1]", #"unknown intent "SetRadioStations""#)
    }

    /// The policy's old name still reads, as the same car-lock policy; both at once do not.
    @Test func refusedWhileCarLockedUnderItsOldName() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""confirmationTimeoutMs": 300"#, #""restrictedWhileLocked": ["SetProfileInCar"], "confirmationTimeoutMs": 300"#)
        #expect(try fixture.load().policies.refusedWhileCarLocked == ["SetProfileInCar"])
        try fixture.json(#""restrictedWhileLocked""#, #""refusedWhileCarLocked": [], "restrictedWhileLocked""#)
        fixture.expectError(path: "policies", "not both")
    }

    @Test func confirmationTimeoutMustBePositive() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#""confirmationTimeoutMs": 750"#, #""confirmationTimeoutMs": 0"#)
        fixture.expectError(path: "policies.confirmationTimeoutMs", "must be greater than 0")
    }

    /// A message the profile binds that the DBC reader set aside: the profile is refused,
    /// naming the message and where its DBC is wrong.
    @Test func aBoundMessageThatCannotBeReadRefusesTheProfile() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.dbc("BO_ 784 SeatCommand: 8 HeadUnit", "BO_ 784 SeatCommand 8 HeadUnit")
        let line = try #require(fixture.dbc.components(separatedBy: "\n").firstIndex { $0.hasPrefix("BO_ 784 ") }) + 1
        let parseError = try #require(try DBCDatabase(parsing: fixture.dbc, source: "sedan/sedan.dbc").errors.first)
        #expect(parseError.line == line)
        fixture.expectError(
            path: #"messages["SeatCommand"]"#, #"message "SeatCommand" of sedan.dbc could not be read"#, "sedan/sedan.dbc:\(line):\(parseError.column): error:",
            parseError.description)
    }

    /// A message nobody binds that cannot be read does not keep the car from loading.
    @Test func anUnboundMessageThatCannotBeReadIsOnlyReported() throws {
        var fixture = try ProfileFixture("sedan")
        fixture.dbc += "\nBO_ 1999 Stray 8 HeadUnit\n SG_ X : 0|8@1+ (1,0) [0|255] \"\" HeadUnit\n"
        let profile = try fixture.load()
        #expect(profile.database.unreadableMessages.map(\.name) == ["Stray"])
    }

    @Test func unreadableDBC() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""dbc": "sedan.dbc""#, #""dbc": "saloon.dbc""#)
        fixture.expectError(path: "dbc", #"cannot read the DBC file "sedan/saloon.dbc""#)
    }

    /// A schema 1 profile (`e2e`, binding-level `values`) is refused at `schema`, saying
    /// how to move it, before anything else in it is read.
    @Test func schema1IsRefusedWithTheWayToSchema2() throws {
        var fixture = try ProfileFixture("sedan")
        fixture.json = #"""
            {
              "schema": 1, "name": "Old Sedan", "carNames": ["Old"], "driverSide": "left", "dbc": "sedan.dbc", "lock": true,
              "policies": {"confirmationTimeoutMs": 300, "unreachableAfterCycles": 5},
              "bindings": {
                "lock.locked": {
                  "command": {"message": "BodyCommand", "signal": "Lock", "idle": "NoRequest"},
                  "status": {"message": "BodyStatus", "signal": "Lock"},
                  "values": {"false": "Unlocked", "true": "Locked"}
                }
              },
              "e2e": {"BodyCommand": {"dataID": 4144, "crc": "Crc", "counter": "AliveCounter"}},
              "acknowledgement": {"message": "CommandAck", "commandId": "AckCommandId", "counter": "AckCounter", "result": "AckResult", "accepted": "Accepted"}
            }
            """#
        #expect(
            throws: ProfileError(
                file: "sedan/profile.json", path: "schema",
                reason:
                    "schema 1 is no longer read; move the profile to schema 2 as VehicleProfiles/README.md, \"Moving from schema 1\", explains (e2e becomes messages.<name>.protection, binding values go onto command and status)"
            )
        ) { try fixture.load() }
        try fixture.json(#""schema": 1,"#, #""schema": 3,"#)
        fixture.expectError(path: "schema", "unsupported schema version 3; this loader reads schema 2")
    }

    @Test func invalidJSON() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""schema": 2,"#, #""schema": 2,,"#)
        fixture.expectError(path: "", "not valid JSON")
    }

    @Test func stationOffTheBandSteps() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#"{"name": "Classic FM", "type": "FM", "frequency": 100.9}"#, #"{"name": "Classic FM", "type": "FM", "frequency": 100.95}"#)
        fixture.expectError(path: "radio.stations[4].frequency", "100.95 MHz is not on the FM band's 0.1 MHz steps")
    }

    @Test func presetOnABandTheCarLacks() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#"{"number": 1, "name": "Morning Show", "type": "FM""#, #"{"number": 1, "name": "Morning Show", "type": "AM""#)
        fixture.expectError(path: "radio.presets[0].type", "the radio has no AM band")
    }

    @Test func stationChannelOutsideBand() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#"{"name": "Classical Digital", "type": "DAB", "channel": 12}"#, #"{"name": "Classical Digital", "type": "DAB", "channel": 75}"#)
        fixture.expectError(path: "radio.stations[3].channel", "75 channel is outside the DAB band")
    }

    @Test func duplicateStationName() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#"{"name": "Classic FM", "type": "FM""#, #"{"name": "jazz  fm", "type": "FM""#)
        fixture.expectError(path: "radio.stations[4].name", #"same name as "Jazz FM""#)
    }

    @Test func mixedFrequencyUnitsNeedSignalUnit() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#","# + "\n" + #"      "signalUnit": "kHz""#, "")
        fixture.expectError(path: #"bindings["radio.frequency"].signalUnit"#, "missing", "kHz")
    }

    @Test func acknowledgementCommandIDTooNarrow() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#""commandId": "AckCommandId""#, #""commandId": "AckResult""#)
        fixture.expectError(path: "acknowledgement.commandId", "cannot hold the command frame IDs (up to 0x18A01040)", "29 unsigned bits")
    }

    @Test func acknowledgementWithoutAcceptedChoice() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""accepted": "Accepted""#, #""accepted": "OK""#)
        fixture.expectError(path: "acknowledgement.accepted", #"no choice "OK" in signal "AckResult""#)
    }

    /// A command signal no binding writes carries its default in every frame (here 0: no
    /// `messages.<M>.defaults`, no NoRequest choice, no start value).
    @Test func commandSignalLeftUnbound() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.dbc(
            " SG_ DefrostRear : 44|2@1+ (1,0) [0|3] \"\" ClimateECU\n",
            " SG_ DefrostRear : 44|2@1+ (1,0) [0|3] \"\" ClimateECU\n SG_ Ionizer : 46|2@1+ (1,0) [0|3] \"\" ClimateECU\n")
        let profile = try fixture.load()
        let ionizer = try #require(profile.database.message(named: "ClimateCommand")?.signal(named: "Ionizer"))
        #expect(profile.defaultRaw(of: ionizer, in: "ClimateCommand") == 0)
    }
}

/// The power section's static facts and `power.activeConnector`'s values (the SUV).
@Suite struct PowerProfileTests {
    @Test func theSUVsPowerFacts() throws {
        let profile = try ProfileFixture("suv").load()
        #expect(profile.power.batteryCapacityKWh == 90 && profile.power.minimumBatteryCapacityKWh == 3)
        #expect(profile.power.consumptionKWhPer100Km == 14.5)
        #expect(profile.power.consumptionFormulaArguments?["vehicleMassKg"] == .integer(2150))
        #expect(profile.bindings[.activeConnector] != nil && PropertyKey.activeConnector.isStatusOnly)
    }

    @Test func theReserveIsBelowTheCapacity() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#""minimumBatteryCapacityKWh": 3"#, #""minimumBatteryCapacityKWh": 90"#)
        fixture.expectError(path: "power.minimumBatteryCapacityKWh", "must be below batteryCapacityKWh (90)")
    }

    @Test func batteryFactsNeedABattery() throws {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(#""power": {"fuel": true, "battery": false}"#, #""power": {"fuel": true, "battery": false, "batteryCapacityKWh": 50}"#)
        fixture.expectError(path: "power.batteryCapacityKWh", "only for a car with battery: true")
    }

    @Test func formulaArgumentsAreObjects() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#""chargingFormulaArguments": {"maximumChargeRateC": 1.7, "taperStartPercent": 80}"#, #""chargingFormulaArguments": [1.7]"#)
        fixture.expectError(path: "power.chargingFormulaArguments", "expected an object")
    }

    @Test func everyConnectorIsMapped() throws {
        var fixture = try ProfileFixture("suv")
        try fixture.json(#""values": {"none": "None", "ccs2": "CCS2", "mennekes": "Type2"}"#, #""values": {"none": "None", "ccs2": "CCS2"}"#)
        fixture.expectError(path: #"bindings["power.activeConnector"].status.values["mennekes"]"#, "missing: the car has mennekes")
    }
}
