import CarplayJSON
import Foundation
import Glibc
import LinuxSupport
import Synchronization
import TestSupport
import Testing
import Varlink

// MARK: - The fake daemon

/// A Varlink server offering io.carplayd.Vehicle (the interface text of
/// docs/io.carplayd.Vehicle.varlink) with canned replies shaped as that interface says;
/// it records every call so tests can check the exact parameters each verb sends.
final class FakeDaemon: Sendable {
    typealias Handler = @Sendable (VarlinkCall) -> [VarlinkReply]

    private let running: VarlinkTestServer
    private let recorded: Recorder
    var path: String { running.path }

    final class Recorder: Sendable {
        let calls = Mutex<[VarlinkCall]>([])
    }

    struct Service: VarlinkService {
        let handler: Handler
        let recorder: Recorder
        func handle(_ call: VarlinkCall, peer: PeerCredentials, replies: VarlinkReplies) async {
            recorder.calls.withLock { $0.append(call) }
            for reply in handler(call) { replies.send(reply) }
        }
    }

    static let interfaceText: String = {
        let url = TestPaths.repository("docs/io.carplayd.Vehicle.varlink")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? "interface io.carplayd.Vehicle\n"
    }()

    init(_ handler: @escaping Handler = FakeDaemon.happyVehicle) throws {
        let recorded = Recorder()
        self.recorded = recorded
        running = try VarlinkTestServer(
            name: "fake-carplayd", product: "fake carplayd",
            interfaces: [VarlinkInterfaceDescription(name: "io.carplayd.Vehicle", text: Self.interfaceText)],
            service: Service(handler: handler, recorder: recorded))
    }

    var calls: [VarlinkCall] { recorded.calls.withLock { $0 } }
    func calls(_ member: String) -> [VarlinkCall] { calls.filter { $0.member == member } }

    // Canned data.

    static let state: JSONValue = [
        "climate.temperature.left": 22.5, "climate.temperature.right": 21.0, "climate.fan": true, "climate.fanSpeed": 3,
        "climate.airConditioner": false, "climate.cabinTemperature": 23.25, "defroster.rear": true,
        "seat.frontLeft.heating": 2, "seat.frontLeft.massage": 0, "audio.source": "sourceBluetooth",
        "radio.band": "FM", "radio.frequency": 101.1, "lock.locked": true, "profile.active": 2,
        "power.fuelPercent": 62.0, "power.distanceRemaining": 420.0,
    ]
    static let frame: JSONValue = "(1700000000.000100) vcan0 3A0#2D00"
    static let getState: [String: JSONValue] = [
        "state": state, "reachable": true,
        "bus": [
            "interface": "vcan0", "kind": "virtual", "state": "error-active", "untrustedFrames": 0, "droppedFrames": 0, "errorFrames": 0, "restarts": 0,
        ],
    ]
    static let describe: [String: JSONValue] = [
        "vehicle": [
            "identifier": "test-sedan", "name": "Test Sedan", "carNames": ["Alex's car"], "driverSide": "left", "defrosters": ["rear"],
            "seats": [["seat": "frontLeft", "heating": 3, "cooling": 0, "massage": 0]], "audioSources": [], "profileSlots": 2, "lock": true,
            "carSignals": [], "power": ["fuel": true, "battery": false], "properties": ["lock.locked"],
            "policies": ["refusedWhileCarLocked": [], "confirmationTimeoutMs": 300],
            "climate": [
                "zones": [["id": "left", "seats": ["frontLeft"]], ["id": "right", "seats": ["frontRight"]]], "fanSpeedLevels": 7,
                "airConditioner": true, "autoMode": false, "recirculation": false, "climateControl": false, "climateControlZones": [],
            ],
        ]
    ]

    /// What the response of a successful intent carries besides the code.
    static func responseFields(_ intent: String, _ parameters: [String: JSONValue]) -> [String: JSONValue] {
        switch intent {
        case "GetCarLockStatus": ["locked": true]
        case "GetCarPowerLevelStatus": ["fuelPercentRemaining": 0.62, "distanceRemaining": ["value": 420.0, "unit": "kilometers"]]
        case "ActivateCarSignal": ["signals": parameters["signals"] ?? []]
        case "SaveProfileInCar":
            ["profileNumber": parameters["profileNumber"] ?? 1, "settings": 7].merging(parameters["profileName"].map { ["profileName": $0] } ?? [:]) { a, _ in a
            }
        case "SetProfileInCar": ["profileNumber": parameters["profileNumber"] ?? 2]
        default: [:]
        }
    }

    static func intentParameters(_ call: VarlinkCall) -> (String, [String: JSONValue]) {
        (call.parameters["intent"]?.stringValue ?? "", call.parameters["parameters"]?.objectValue ?? [:])
    }

    /// Every parameter resolves to what was given.
    static func successResolutions(_ parameters: [String: JSONValue]) -> JSONValue {
        .object(parameters.mapValues { ["kind": "success", "value": $0] })
    }

    static func performReply(_ call: VarlinkCall, response: [String: JSONValue]? = nil) -> VarlinkReply {
        let (intent, parameters) = intentParameters(call)
        let response = response ?? ["code": "success"].merging(responseFields(intent, parameters)) { a, _ in a }
        return VarlinkReply(parameters: [
            "resolutions": successResolutions(parameters), "response": .object(response), "frames": [frame], "state": state,
        ])
    }

    /// A car that does what it is told.
    static let happyVehicle: Handler = { call in
        switch call.member {
        case "Resolve": return [VarlinkReply(parameters: ["resolutions": successResolutions(intentParameters(call).1), "ready": true])]
        case "Perform": return [performReply(call)]
        case "GetState": return [VarlinkReply(parameters: getState)]
        case "Describe": return [VarlinkReply(parameters: describe)]
        case "GetBusTraffic":
            return [
                VarlinkReply(parameters: [
                    "uptime": 10.0,
                    "messages": [
                        ["id": "300", "name": "ClimateCommand", "received": 0, "untrusted": 0, "sent": 2],
                        ["id": "400", "name": "ClimateStatus", "received": 100, "untrusted": 3, "sent": 0, "lastFrame": "(1700000000.100000) vcan0 400#0102"],
                    ],
                ])
            ]
        case "Monitor" where call.parameters["commands"] == .bool(true):
            return [
                VarlinkReply(
                    parameters: ["command": ["id": 4, "intent": "SetSeatSettingsInCar", "targets": ["seat.frontLeft.heating": 2], "status": "pending"]],
                    continues: true),
                VarlinkReply(
                    parameters: ["keys": ["seat.frontLeft.heating"], "state": ["seat.frontLeft.heating": 2], "frame": "(1700000000.100000) vcan0 410#02"],
                    continues: true),
                VarlinkReply(parameters: [
                    "command": [
                        "id": 4, "intent": "SetSeatSettingsInCar", "targets": ["seat.frontLeft.heating": 2], "status": "failed",
                        "reason": "timeout", "detail": "no confirmation within 3 seconds",
                    ]
                ]),
            ]
        case "Monitor":
            guard call.more else { return [VarlinkReply.error(.expectedMore)] }
            return [
                VarlinkReply(
                    parameters: [
                        "keys": ["climate.temperature.left"], "state": ["climate.temperature.left": 22.5], "frame": "(1700000000.100000) vcan0 3A1#2D00",
                    ], continues: true),
                VarlinkReply(
                    parameters: [
                        "keys": ["climate.fan", "climate.fanSpeed"], "state": ["climate.fan": true, "climate.fanSpeed": 4],
                        "frame": "(1700000000.200000) vcan0 3A1#2E04",
                    ], continues: true),
                VarlinkReply(parameters: ["keys": ["lock.locked"], "state": ["lock.locked": false], "frame": "(1700000000.300000) vcan0 4F0#00"]),
            ]
        default: return [VarlinkReply.error(.methodNotFound(call.method))]
        }
    }
}

/// Runs blocking code on a thread of its own: the fake daemon's connection tasks need
/// the cooperative pool, which a test blocked in waitUntilExit would hold.

/// carplayctl ARGUMENTS --socket PATH, off the pool.
func ctl(_ arguments: [String], _ daemon: FakeDaemon, stdin: String = "") async throws -> CarplayctlTests.Result {
    let path = daemon.path
    return try await offThePool { try CarplayctlTests.run(arguments + ["--socket", path], stdin: stdin) }
}

func json(_ text: String) throws -> JSONValue { try JSONValue(parsing: text) }

// MARK: - Tests

@Suite(.serialized) struct ClientVerbTests {
    /// Each verb's flags -> the exact intent JSON of Resolve and then Perform.
    @Test(arguments: [
        (
            ["climate", "--temperature", "22.5", "--zone", "driver"],
            #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":22.5,"unit":"celsius"},"climateZone":"driver"}}"#
        ),
        (
            ["climate", "--temperature", "72F", "--fan", "3", "--ac", "on", "--auto", "off", "--recirculate", "on", "--climate", "on", "--car", "Alex's car"],
            #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":72.0,"unit":"fahrenheit"},"fanSpeedIndex":3,"enableAirConditioner":true,"enableAutoMode":false,"airCirculationMode":"recirculateAir","enableClimateControl":true,"carName":"Alex's car"}}"#
        ),
        (
            ["climate", "--temperature=21C", "--zone=FRONTLEFT", "--recirculate", "off"],
            #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":21.0,"unit":"celsius"},"climateZone":"frontLeft","airCirculationMode":"freshAir"}}"#
        ),
        (
            ["climate", "--warmer", "--zone", "passenger"],
            #"{"intent":"SetClimateSettingsInCar","parameters":{"relativeTemperatureSetting":"higher","climateZone":"passenger"}}"#
        ),
        (["climate", "--cooler"], #"{"intent":"SetClimateSettingsInCar","parameters":{"relativeTemperatureSetting":"lower"}}"#),
        (["climate", "--fan", "off"], #"{"intent":"SetClimateSettingsInCar","parameters":{"enableFan":false}}"#),
        (["climate", "--fan", "highest"], #"{"intent":"SetClimateSettingsInCar","parameters":{"relativeFanSpeedSetting":"highest"}}"#),
        (["climate", "--fan-percent", "40"], #"{"intent":"SetClimateSettingsInCar","parameters":{"fanSpeedPercentage":40.0}}"#),
        (["defrost", "rear", "on"], #"{"intent":"SetDefrosterSettingsInCar","parameters":{"defroster":"rear","enable":true}}"#),
        (["defrost", "all", "off"], #"{"intent":"SetDefrosterSettingsInCar","parameters":{"defroster":"all","enable":false}}"#),
        (["seat", "driver", "--heating", "2"], #"{"intent":"SetSeatSettingsInCar","parameters":{"seat":"driver","enableHeating":true,"level":2}}"#),
        (["seat", "passenger", "--massage", "off"], #"{"intent":"SetSeatSettingsInCar","parameters":{"seat":"passenger","enableMassage":false}}"#),
        (
            ["seat", "frontLeft", "--cooling", "on", "--relative", "higher"],
            #"{"intent":"SetSeatSettingsInCar","parameters":{"seat":"frontLeft","enableCooling":true,"relativeLevelSetting":"higher"}}"#
        ),
        (["seat", "rear", "--level", "1"], #"{"intent":"SetSeatSettingsInCar","parameters":{"seat":"rear","level":1}}"#),
        (["radio", "fm", "101.1"], #"{"intent":"SetRadioStation","parameters":{"radioType":"FM","frequency":101.1}}"#),
        (["radio", "am", "1010"], #"{"intent":"SetRadioStation","parameters":{"radioType":"AM","frequency":1010.0}}"#),
        (["radio", "--station", "Jazz FM"], #"{"intent":"SetRadioStation","parameters":{"stationName":"Jazz FM"}}"#),
        (["radio", "--preset", "3"], #"{"intent":"SetRadioStation","parameters":{"presetNumber":3}}"#),
        (["radio", "dab", "12"], #"{"intent":"SetRadioStation","parameters":{"radioType":"DAB","channel":"12"}}"#),
        (["radio", "satellite", "7"], #"{"intent":"SetRadioStation","parameters":{"radioType":"satellite","channel":"7"}}"#),
        (["audio", "bluetooth"], #"{"intent":"SetAudioSourceInCar","parameters":{"audioSource":"sourceBluetooth"}}"#),
        (["audio", "usb"], #"{"intent":"SetAudioSourceInCar","parameters":{"audioSource":"sourceUSB"}}"#),
        (["audio", "sourceusb"], #"{"intent":"SetAudioSourceInCar","parameters":{"audioSource":"sourceUSB"}}"#),
        (["audio", "sourceiPod"], #"{"intent":"SetAudioSourceInCar","parameters":{"audioSource":"sourceiPod"}}"#),
        (["audio", "next"], #"{"intent":"SetAudioSourceInCar","parameters":{"relativeAudioSourceReference":"next"}}"#),
        (["car-profile", "save", "2", "--name", "Alex"], #"{"intent":"SaveProfileInCar","parameters":{"profileNumber":2,"profileName":"Alex"}}"#),
        (["car-profile", "set", "2"], #"{"intent":"SetProfileInCar","parameters":{"profileNumber":2}}"#),
        (["car-profile", "set", "--name", "Alex"], #"{"intent":"SetProfileInCar","parameters":{"profileName":"Alex"}}"#),
        (["car-profile", "set", "--default"], #"{"intent":"SetProfileInCar","parameters":{"isDefaultProfile":true}}"#),
        (["lock"], #"{"intent":"SetCarLockStatus","parameters":{"locked":true}}"#),
        (["unlock", "--car", "Alex's car"], #"{"intent":"SetCarLockStatus","parameters":{"locked":false,"carName":"Alex's car"}}"#),
        (["lock", "--status"], #"{"intent":"GetCarLockStatus","parameters":{}}"#),
        (["signal", "--lights"], #"{"intent":"ActivateCarSignal","parameters":{"signals":["visible"]}}"#),
        (["signal", "--lights", "--horn"], #"{"intent":"ActivateCarSignal","parameters":{"signals":["audible","visible"]}}"#),
        (["signal"], #"{"intent":"ActivateCarSignal","parameters":{"signals":["audible","visible"]}}"#),
        (["power"], #"{"intent":"GetCarPowerLevelStatus","parameters":{}}"#),
    ])
    func verbSendsTheIntent(_ arguments: [String], _ expected: String) async throws {
        let daemon = try FakeDaemon()
        let result = try await ctl(arguments, daemon)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(daemon.calls.map(\.member) == ["Resolve", "Perform"], "\(arguments)")
        for call in daemon.calls {
            #expect(JSONValue.object(call.parameters) == (try json(expected)), "\(arguments) \(call.member): \(JSONValue.object(call.parameters))")
        }
    }

    /// The sentence a person reads.
    @Test(arguments: [
        (["climate", "--temperature", "22.5", "--zone", "driver"], "Driver zone set to 22.5 °C (confirmed by the vehicle)\n"),
        (["climate", "--temperature", "72F", "--fan", "3", "--ac", "off"], "Temperature set to 72 °F, fan speed 3, A/C off (confirmed by the vehicle)\n"),
        (["defrost", "rear", "on"], "Rear defroster on (confirmed by the vehicle)\n"),
        (["seat", "driver", "--heating", "2"], "Driver seat heating set to 2 (confirmed by the vehicle)\n"),
        (["seat", "frontRight", "--massage", "off"], "Front right seat massage off (confirmed by the vehicle)\n"),
        (["radio", "fm", "101.1"], "Tuned to FM 101.1 MHz (confirmed by the vehicle)\n"),
        (["radio", "--station", "Jazz FM"], "Tuned to Jazz FM on FM 101.1 MHz (confirmed by the vehicle)\n"),
        (["audio", "bluetooth"], "Audio source set to sourceBluetooth (confirmed by the vehicle)\n"),
        (["car-profile", "save", "2", "--name", "Alex"], "Saved the current settings as profile 2 \"Alex\" (7 settings)\n"),
        (["car-profile", "set", "2"], "Profile 2 applied (confirmed by the vehicle)\n"),
        (["lock"], "Car locked (confirmed by the vehicle)\n"),
        (["unlock"], "Car unlocked (confirmed by the vehicle)\n"),
        (["lock", "--status"], "The car is locked\n"),
        (["signal", "--lights", "--horn"], "Flashed the lights and sounded the horn (confirmed by the vehicle)\n"),
        (["power"], "Fuel 62 %, range 420 km\n"),
    ])
    func humanSentence(_ arguments: [String], _ expected: String) async throws {
        let daemon = try FakeDaemon()
        let result = try await ctl(arguments, daemon)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == expected)
        #expect(result.stderr == "")
    }

    /// --json prints the raw Perform reply.
    @Test(arguments: [["climate", "--temperature", "22.5"], ["lock", "--status"], ["power"], ["car-profile", "save", "1"]])
    func jsonPrintsTheReply(_ arguments: [String]) async throws {
        let daemon = try FakeDaemon()
        let result = try await ctl(arguments + ["--json"], daemon)
        #expect(result.status == 0, "\(result.stderr)")
        let perform = try #require(daemon.calls("Perform").first)
        #expect(try json(result.stdout) == .object(FakeDaemon.performReply(perform).parameters))
        #expect(result.stdout.hasSuffix("}\n") && result.stdout.split(separator: "\n").count == 1)
    }

    @Test func failureResponseExitsOne() async throws {
        let daemon = try FakeDaemon { call in
            if call.member == "Perform" {
                return [
                    FakeDaemon.performReply(
                        call,
                        response: [
                            "code": "failure", "reason": "rejectedByVehicle", "detail": "the vehicle rejected ClimateCommand: RejectedOutOfRange",
                        ])
                ]
            }
            return FakeDaemon.happyVehicle(call)
        }
        let result = try await ctl(["climate", "--temperature", "22"], daemon)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == "Failed: the vehicle rejected ClimateCommand: RejectedOutOfRange\n")
        let asJSON = try await ctl(["climate", "--temperature", "22", "--json"], daemon)
        #expect(asJSON.status == 1)
        #expect(try json(asJSON.stdout).objectValue?["response"]?.objectValue?["code"] == "failure")
    }

    @Test func restrictedResponseSaysWhy() async throws {
        let daemon = try FakeDaemon { call in
            call.member == "Perform" ? [FakeDaemon.performReply(call, response: ["code": "failure", "reason": "carLocked"])] : FakeDaemon.happyVehicle(call)
        }
        let result = try await ctl(["radio", "fm", "99.5"], daemon)
        #expect(result.status == 1)
        #expect(result.stderr == "Failed: SetRadioStation is not allowed while the car is locked\n")
        let device = try FakeDaemon { call in
            call.member == "Perform"
                ? [
                    FakeDaemon.performReply(
                        call, response: ["code": "failure", "reason": "restrictedWhileLocked", "detail": "the caller's session 3 is locked: unlock it first"])
                ]
                : FakeDaemon.happyVehicle(call)
        }
        let unlock = try await ctl(["unlock"], device)
        #expect(unlock.status == 1)
        #expect(unlock.stderr == "Failed: SetCarLockStatus needs an unlocked device: the caller's session 3 is locked: unlock it first\n")
    }

    @Test(arguments: ["climate --temperature 22", "status", "monitor", "describe", "call GetState", "car-profile save 1", "lock --status", "power"])
    func daemonNotRunningExitsThree(_ command: String) async throws {
        let arguments = command.split(separator: " ").map(String.init) + ["--socket", NSTemporaryDirectory() + "no-carplayd-here.sock"]
        let result = try await offThePool { try CarplayctlTests.run(arguments) }
        #expect(result.status == 3, "\(command): \(result)")
        #expect(result.stderr.contains("cannot connect to carplayd"), "\(result.stderr)")
        #expect(result.stdout == "")
    }

    /// `carplayctl --socket PATH VERB` is the verb's own `--socket`: a daemon verb reaches
    /// PATH, a verb without a daemon refuses the option.
    @Test func socketBeforeTheVerb() async throws {
        let daemon = try FakeDaemon()
        let result = try await offThePool { try CarplayctlTests.run(["--socket", daemon.path, "lock", "--status"]) }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(daemon.calls.count == 2)
        let offline = try await offThePool { try CarplayctlTests.run(["--socket", daemon.path, "vss", "catalog"]) }
        #expect(offline.status == 2)
        #expect(offline.stderr.hasPrefix("carplayctl vss: unknown argument --socket"), "\(offline.stderr)")
    }

    @Test func socketFromTheEnvironment() async throws {
        let daemon = try FakeDaemon()
        let path = daemon.path
        let result = try await offThePool { () throws -> CarplayctlTests.Result in
            setenv("CARPLAYD_SOCKET", path, 1)
            defer { unsetenv("CARPLAYD_SOCKET") }
            return try CarplayctlTests.run(["lock", "--status"])
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(daemon.calls.count == 2)
    }

    @Test(arguments: [
        "climate", "climate --temperature hot", "climate --zone moon --temperature 20", "climate --temperature 20 --warmer",
        "climate --fan 2 --fan-percent 50", "climate --fan-percent 150", "climate --ac maybe", "climate --bogus",
        "defrost sideways on", "defrost front", "seat driver", "seat driver --heating lots", "seat a b --heating 1",
        "radio", "radio xm 1", "radio fm abc", "audio", "audio tape", "lock extra", "unlock --status", "signal --siren",
        "power now", "car-profile save", "car-profile set", "status extra", "monitor --bogus", "call", "call GetState [1]", "call GetState not-json",
    ])
    func badArgumentsExitTwo(_ command: String) async throws {
        let daemon = try FakeDaemon()
        let result = try await ctl(command.split(separator: " ").map(String.init), daemon)
        #expect(result.status == 2, "\(command): \(result)")
        let verb = command.split(separator: " ")[0]
        #expect(result.stderr.hasSuffix("\nsee: carplayctl \(verb) --help\n"), "\(command): \(result.stderr)")
        #expect(!result.stderr.contains("usage:"), "\(command): \(result.stderr)")
        #expect(daemon.calls.isEmpty, "\(command): nothing is sent")
    }

    @Test(arguments: [
        ("io.carplayd.Vehicle.NotAuthorized", ["uid": 1000, "gid": 100] as [String: JSONValue], "not authorized: uid 1000 (gid 100) may not use carplayd"),
        ("io.carplayd.Vehicle.VehicleUnavailable", ["reason": "no status frames"], "the vehicle is unavailable: no status frames"),
        (
            "io.carplayd.Vehicle.RestrictedWhileLocked", ["intent": "SetCarLockStatus", "reason": "the caller's session 3 is locked: unlock it first"],
            "SetCarLockStatus needs an unlocked device: the caller's session 3 is locked: unlock it first"
        ),
        ("io.carplayd.Vehicle.CarLocked", ["intent": "SetClimateSettingsInCar"], "SetClimateSettingsInCar is not allowed while the car is locked"),
        (
            "io.carplayd.Vehicle.InvalidParameter", ["parameter": "temperature", "reason": "expected a number"],
            "invalid parameter temperature: expected a number"
        ),
        ("io.carplayd.Vehicle.UnknownIntent", ["intent": "SetClimateSettingsInCar"], "carplayd does not know the intent SetClimateSettingsInCar"),
    ])
    func typedErrorsExitOneWithOneLine(_ name: String, _ parameters: [String: JSONValue], _ message: String) async throws {
        let daemon = try FakeDaemon { _ in [VarlinkReply.error(VarlinkError(name, parameters))] }
        let result = try await ctl(["climate", "--temperature", "22"], daemon)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("carplayctl climate: \(message)"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        let asJSON = try await ctl(["status", "--json"], daemon)
        #expect(asJSON.status == 1)
        #expect(try json(asJSON.stdout) == ["error": .string(name), "parameters": .object(parameters)])
    }

    /// A reply that does not fit the interface fails (exit 1) naming what does not fit.
    @Test func aReplyThatDoesNotFitNamesItsPath() async throws {
        let daemon = try FakeDaemon { call in
            call.member == "GetState" ? [VarlinkReply(parameters: ["state": [:], "reachable": "yes"])] : FakeDaemon.happyVehicle(call)
        }
        let result = try await ctl(["status"], daemon)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "carplayctl status: carplayd's reply does not fit its interface: io.carplayd.Vehicle.GetState: reachable: expected true or false, found a string\n"
        )
    }

    // MARK: - Resolution needing the user

    /// Jazz is ambiguous, a temperature over 28 °C needs confirmation, a seat setting
    /// without a seat needs one.
    static let askingVehicle: FakeDaemon.Handler = { call in
        guard call.member == "Resolve" else { return FakeDaemon.happyVehicle(call) }
        let (_, parameters) = FakeDaemon.intentParameters(call)
        var resolutions = FakeDaemon.successResolutions(parameters).objectValue!
        if parameters["stationName"] == "Jazz" {
            // As carplayd answers: the band is open until the station is chosen.
            resolutions["stationName"] = ["kind": "disambiguation", "options": ["Jazz FM", "Jazz FM Classics"]]
            resolutions["radioType"] = ["kind": "needsValue", "reason": "which band?"]
        }
        if let value = parameters["temperature"]?.objectValue?["value"]?.doubleValue, value > 28 {
            resolutions["temperature"] = [
                "kind": "confirmationRequired", "value": ["value": 28.0, "unit": "celsius"], "reason": .string("\(Int(value)) °C is above the maximum 28 °C"),
            ]
        }
        if parameters["seat"] == nil, parameters["enableHeating"] != nil { resolutions["seat"] = ["kind": "needsValue", "reason": "which seat?"] }
        let ready = resolutions.values.allSatisfy { $0.objectValue?["kind"] == "success" }
        return [VarlinkReply(parameters: ["resolutions": .object(resolutions), "ready": .bool(ready)])]
    }

    @Test func disambiguationOffATerminalFailsWithTheOptions() async throws {
        let daemon = try FakeDaemon(Self.askingVehicle)
        let result = try await ctl(["radio", "--station", "Jazz"], daemon)
        #expect(result.status == 1)
        // Everything it would have asked, the choice first.
        #expect(
            result.stderr
                == "carplayctl radio: stationName is ambiguous; give one of:\n  1. Jazz FM\n  2. Jazz FM Classics\nradioType needs a value: which band?\n")
        #expect(daemon.calls.map(\.member) == ["Resolve"], "nothing performed")
    }

    @Test func confirmationOffATerminalFailsUnlessYes() async throws {
        let daemon = try FakeDaemon(Self.askingVehicle)
        let refused = try await ctl(["climate", "--temperature", "30"], daemon)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("30 °C is above the maximum 28 °C"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--yes"))
        #expect(daemon.calls("Perform").isEmpty)

        let accepted = try await ctl(["climate", "--temperature", "30", "--zone", "driver", "--yes"], daemon)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout == "Driver zone set to 28 °C (confirmed by the vehicle)\n")
        let perform = try #require(daemon.calls("Perform").first)
        #expect(
            JSONValue.object(perform.parameters)
                == (try json(
                    #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":28.0,"unit":"celsius"},"climateZone":"driver"}}"#)))
        // Resolve: refused run, then the --yes run twice (30, then the accepted 28).
        #expect(daemon.calls("Resolve").count == 3)
    }

    @Test func needsValueOffATerminalFails() async throws {
        let daemon = try FakeDaemon(Self.askingVehicle)
        let result = try await ctl(["seat", "--heating", "on"], daemon)
        #expect(result.status == 1)
        #expect(result.stderr == "carplayctl seat: seat needs a value: which seat?\n")
        #expect(daemon.calls("Perform").isEmpty)
    }

    /// On a terminal (script(1) gives the child a pty), the questions are asked and the
    /// answers sent.
    @Test func questionsOnATerminal() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script(1) from util-linux is needed")
        let daemon = try FakeDaemon(Self.askingVehicle)
        func onTerminal(_ arguments: [String], answers: String) async throws -> CarplayctlTests.Result {
            let command = ([CarplayctlTests.binary.path] + arguments + ["--socket", daemon.path]).map { "'\($0)'" }.joined(separator: " ")
            return try await offThePool {
                try CarplayctlTests.runProgram("/usr/bin/script", ["-qefc", command, "/dev/null"], stdin: answers)
            }
        }
        let station = try await onTerminal(["radio", "--station", "Jazz"], answers: "2\n")
        #expect(station.status == 0, "\(station)")
        #expect(station.stdout.contains("1. Jazz FM"), "\(station.stdout)")
        #expect(daemon.calls("Perform").last?.parameters["parameters"] == ["stationName": "Jazz FM Classics"])

        let temperature = try await onTerminal(["climate", "--temperature", "31"], answers: "y\n")
        #expect(temperature.status == 0, "\(temperature)")
        #expect(temperature.stdout.contains("31 °C is above the maximum 28 °C; use 28 °C? [y/N]"), "\(temperature.stdout)")
        #expect(daemon.calls("Perform").last?.parameters["parameters"] == ["temperature": ["value": 28.0, "unit": "celsius"]])

        let seat = try await onTerminal(["seat", "--heating", "on"], answers: "driver\n")
        #expect(seat.status == 0, "\(seat)")
        #expect(daemon.calls("Perform").last?.parameters["parameters"] == ["enableHeating": true, "seat": "driver"])

        let performed = daemon.calls("Perform").count
        let declined = try await onTerminal(["climate", "--temperature", "31"], answers: "n\n")
        #expect(declined.status == 1)
        #expect(daemon.calls("Perform").count == performed, "declined: nothing performed")
    }

    // MARK: - status, describe, monitor, call

    @Test func status() async throws {
        let daemon = try FakeDaemon()
        let result = try await ctl(["status"], daemon)
        #expect(result.status == 0, "\(result.stderr)")
        let expected = """
            vehicle
              car           Test Sedan (profile test-sedan)
              reachable     yes
              bus           droppedFrames 0, errorFrames 0, interface vcan0, kind virtual, restarts 0, state error-active, untrustedFrames 0
            climate
              temperature   left 22.5 °C, right 21 °C
              cabin         23.25 °C
              fan           on, speed 3
              A/C           off
              rear defroster on
            seats
              frontLeft     heating 2, massage off
            audio
              source        sourceBluetooth
              radio         FM 101.1 MHz
            body
              locked        yes
              profile       2
            power
              fuel          62 %
              range         420 km

            """
        #expect(result.stdout == expected)
        #expect(daemon.calls.map(\.member) == ["GetState", "Describe"])
        let asJSON = try await ctl(["status", "--json"], daemon)
        #expect(try json(asJSON.stdout) == .object(FakeDaemon.getState))
    }

    /// A climate control zone's own switch sits beside the whole car's.
    @Test func statusShowsEachClimateSwitch() async throws {
        let daemon = try FakeDaemon { call in
            guard call.member == "GetState" else { return FakeDaemon.happyVehicle(call) }
            let state: JSONValue = ["climate.climateControl": true, "climate.climateControl.rear": false]
            return [VarlinkReply(parameters: ["state": state, "reachable": true, "bus": FakeDaemon.getState["bus"]!])]
        }
        let result = try await ctl(["status"], daemon)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("climate\n  climate       on, rear off\n"), "\(result.stdout)")
    }

    @Test func describe() async throws {
        let daemon = try FakeDaemon()
        let result = try await ctl(["describe"], daemon)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                audioSources: (none)
                carNames: Alex's car
                carSignals: (none)
                climate:
                  airConditioner: yes
                  autoMode: no
                  climateControl: no
                  climateControlZones: (none)
                  fanSpeedLevels: 7
                  recirculation: no
                  zones:
                    - id: left
                      seats: frontLeft
                    - id: right
                      seats: frontRight
                defrosters: rear
                driverSide: left
                identifier: test-sedan
                lock: yes
                name: Test Sedan
                policies:
                  confirmationTimeoutMs: 300
                  refusedWhileCarLocked: (none)
                power:
                  battery: no
                  fuel: yes
                profileSlots: 2
                properties: lock.locked
                seats:
                  - cooling: 0
                    heating: 3
                    massage: 0
                    seat: frontLeft

                """)
        let asJSON = try await ctl(["describe", "--json"], daemon)
        #expect(try json(asJSON.stdout) == .object(FakeDaemon.describe))
    }

    @Test func monitorPrintsEachChangeUntilTheStreamEnds() async throws {
        let daemon = try FakeDaemon()
        let result = try await ctl(["monitor"], daemon)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let expected = [
            "climate.temperature.left=22.5  (1700000000.100000) vcan0 3A1#2D00",
            "climate.fan=on climate.fanSpeed=4  (1700000000.200000) vcan0 3A1#2E04",
            "lock.locked=off  (1700000000.300000) vcan0 4F0#00",
        ]
        for (line, tail) in zip(lines, expected) {
            #expect(line.wholeMatch(of: /\d\d:\d\d:\d\d\.\d\d\d  .*/) != nil, "\(line)")
            #expect(line.dropFirst(14) == tail[...], "\(line)")
        }
        #expect(daemon.calls.first?.more == true)
        let asJSON = try await ctl(["monitor", "--json"], daemon)
        #expect(
            try asJSON.stdout.split(separator: "\n").map { try json(String($0)) }.last == [
                "keys": ["lock.locked"], "state": ["lock.locked": false], "frame": "(1700000000.300000) vcan0 4F0#00",
            ])
    }

    @Test func rawCall() async throws {
        let daemon = try FakeDaemon()
        let state = try await ctl(["call", "GetState"], daemon)
        #expect(state.status == 0)
        #expect(try json(state.stdout) == .object(FakeDaemon.getState))

        let resolve = try await ctl(["call", "io.carplayd.Vehicle.Resolve", #"{"intent":"GetCarLockStatus","parameters":{}}"#], daemon)
        #expect(resolve.status == 0)
        #expect(daemon.calls.last?.method == "io.carplayd.Vehicle.Resolve")
        #expect(daemon.calls.last?.parameters == ["intent": "GetCarLockStatus", "parameters": [:]])
        #expect(try json(resolve.stdout) == ["resolutions": [:], "ready": true])

        let info = try await ctl(["call", "org.varlink.service.GetInfo"], daemon)
        #expect(try json(info.stdout).objectValue?["interfaces"] == ["org.varlink.service", "io.carplayd.Vehicle"])

        let stream = try await ctl(["call", "Monitor", "--more"], daemon)
        #expect(stream.status == 0)
        #expect(stream.stdout.split(separator: "\n").count == 3)

        let missing = try await ctl(["call", "Frobnicate"], daemon)
        #expect(missing.status == 1)
        #expect(try json(missing.stdout) == ["error": "org.varlink.service.MethodNotFound", "parameters": ["method": "io.carplayd.Vehicle.Frobnicate"]])
        #expect(missing.stderr.contains("carplayd has no method io.carplayd.Vehicle.Frobnicate"))
    }

    @Test func monitorWithCommandsShowsThemBetweenTheChanges() async throws {
        let daemon = try FakeDaemon()
        let result = try await ctl(["monitor", "--commands"], daemon)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(daemon.calls.first?.parameters == ["commands": true])
        let lines = result.stdout.split(separator: "\n").map { String($0.dropFirst(14)) }
        #expect(
            lines == [
                "→ SetSeatSettingsInCar seat.frontLeft.heating=2 pending",
                "seat.frontLeft.heating=2  (1700000000.100000) vcan0 410#02",
                "→ SetSeatSettingsInCar seat.frontLeft.heating=2 failed: no confirmation within 3 seconds",
            ])
    }

    @Test func trafficIsATable() async throws {
        let daemon = try FakeDaemon()
        let result = try await ctl(["traffic"], daemon)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                2 CAN IDs in 10.0 s
                  ID   message         received  Hz (mean)  untrusted  sent  last data
                  300  ClimateCommand         0        0.0          0     2
                  400  ClimateStatus        100       10.0          3     0  0102

                """)
    }

    @Test(arguments: [
        "climate", "defrost", "seat", "radio", "audio", "lock", "unlock", "signal", "power", "car-profile", "status", "monitor", "traffic", "describe", "call",
    ])
    func helpOfEachVerb(_ verb: String) async throws {
        // (`profile` is the vehicle profile, offline: no socket.)
        let result = try await offThePool { try CarplayctlTests.run([verb, "--help"]) }
        #expect(result.status == 0)
        #expect(result.stdout.contains("usage: carplayctl \(verb)") || (verb == "unlock" && result.stdout.contains("carplayctl unlock")), "\(result.stdout)")
        #expect(result.stdout.contains("--socket PATH"))
    }

    /// `--param NAME=VALUE`: any declared parameter of the verb's intent, read as its
    /// declared kind, without a flag of its own; the help lists them from the declaration.
    @Test func aDeclaredParameterNeedsNoFlagOfItsOwn() async throws {
        let daemon = try FakeDaemon()
        let result = try await ctl(["climate", "--param", "fanSpeedPercentage=40", "--param", "relativeTemperatureSetting=higher"], daemon)
        #expect(result.status == 0, "\(result.stderr)")
        for call in daemon.calls {
            #expect(
                JSONValue.object(call.parameters)
                    == (try json(#"{"intent":"SetClimateSettingsInCar","parameters":{"fanSpeedPercentage":40.0,"relativeTemperatureSetting":"higher"}}"#)),
                "\(call.member): \(JSONValue.object(call.parameters))")
        }
        let help = try await offThePool { try CarplayctlTests.run(["seat", "--help"]) }
        #expect(help.stdout.contains("parameters (SiriKit's names; --param NAME=VALUE):\n  enableHeating "), "\(help.stdout)")
        #expect(help.stdout.contains("  relativeLevelSetting        lowest|lower|higher|highest\n"), "\(help.stdout)")
    }

    @Test(arguments: [
        (["climate", "--param", "fanSpeed=40"], "--param fanSpeed: SetClimateSettingsInCar has no parameter fanSpeed; its parameters: enableFan,"),
        (["climate", "--param", "fanSpeedPercentage=400"], "--param fanSpeedPercentage: 400 is outside 0…100"),
        (["climate", "--param", "fanSpeedPercentage"], "--param fanSpeedPercentage: expected NAME=VALUE"),
        (["climate", "--fan-percent", "30", "--param", "fanSpeedPercentage=40"], "--param fanSpeedPercentage conflicts with another option"),
        (["status", "--param", "carName=x"], "unknown option --param"),
    ])
    func aWrongDeclaredParameterIsAUsageError(_ arguments: [String], _ message: String) async throws {
        let daemon = try FakeDaemon()
        let result = try await ctl(arguments, daemon)
        #expect(result.status == 2, "\(arguments)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        #expect(daemon.calls.isEmpty, "nothing was sent")
    }

    /// `profile` is the vehicle profile; a driver's saved settings moved to `car-profile`,
    /// and the old spelling says where.
    @Test func profileSaveSaysWhereItWent() async throws {
        let result = try await offThePool { try CarplayctlTests.run(["profile", "save", "1"]) }
        #expect(result.status == 2)
        #expect(result.stderr.contains("carplayctl car-profile save"), "\(result.stderr)")
    }
}
