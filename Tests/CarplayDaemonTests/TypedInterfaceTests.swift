import CANBus
import CarIntents
import CarplayJSON
import CarplayProtocol
import Foundation
import TestSupport
import Testing
import Varlink
import VehicleKit
import VehicleSimulator

@testable import CarplayDaemon

/// docs/io.carplayd.Vehicle.varlink is the declaration of the typed methods: it must
/// parse, name SiriKit's parameters and enums as the code does, and every reply the
/// daemon gives must have its declared type.
@Suite struct TypedInterfaceTests {
    let interface = VehicleService.interface

    @Test func oneMethodPerIntentWithSiriKitsParametersInOrder() {
        for name in IntentName.allCases {
            guard let method = interface.methods[name.rawValue] else {
                Issue.record("no method \(name.rawValue)")
                continue
            }
            #expect(method.input.map(\.name) == ["phase"] + Intent.parameterNames(of: name), "\(name.rawValue)")
            // Each parameter's type is its declared kind's (`DeclaredParameters`).
            for (field, parameter) in zip(method.input.dropFirst(), Intent.signature(of: name)) {
                #expect(field.type == .optional(Self.varlinkType(parameter.kind.varlinkType)), "\(name.rawValue).\(parameter.name)")
            }
            #expect(method.input.allSatisfy { if case .optional = $0.type { true } else { false } }, "every parameter of \(name.rawValue) is optional")
            #expect(method.output.map(\.name) == ["resolutions", "ready", "response", "frames", "state"])
            #expect(VehicleService.methods.methodNames.contains("io.carplayd.Vehicle.\(name.rawValue)"))
        }
    }

    /// The Varlink type a declared kind names ("int", "Temperature", "[]CarSignal").
    static func varlinkType(_ text: String) -> VarlinkType {
        switch text {
        case "bool": .bool
        case "int": .int
        case "float": .float
        case "string": .string
        case _ where text.hasPrefix("[]"): .array(varlinkType(String(text.dropFirst(2))))
        default: .named(text)
        }
    }

    func cases(_ type: String) -> [String] {
        guard case let .enumeration(cases)? = interface.types[type] else {
            Issue.record("\(type) is not an enum of the interface")
            return []
        }
        return cases
    }

    @Test func enumsAreTheCodes() {
        #expect(cases("CarSeat") == CarSeat.allCases.map(\.rawValue))
        #expect(cases("CarDefroster") == CarDefroster.allCases.map(\.rawValue))
        #expect(cases("CarAudioSource") == CarAudioSource.allCases.map(\.rawValue))
        #expect(cases("RadioType") == RadioType.allCases.map(\.rawValue))
        #expect(cases("RelativeSetting") == RelativeSetting.allCases.map(\.rawValue))
        #expect(cases("RelativeReference") == RelativeReference.allCases.map(\.rawValue))
        #expect(cases("CarAirCirculationMode") == AirCirculationMode.allCases.map(\.rawValue))
        #expect(cases("CarSignal") == CarSignal.allCases.map(\.rawValue))
        #expect(cases("CarChargingConnectorType") == ChargingConnectorType.allCases.map(\.rawValue))
        #expect(cases("SeatFeature") == SeatFeature.allCases.map(\.rawValue))
        #expect(cases("IntentPhase") == IntentPhase.allCases.map(\.rawValue))
    }

    /// Each intent's reply has the response code enum Apple defines for it.
    @Test func responseCodesPerIntent() throws {
        for name in IntentName.allCases {
            let output = try #require(interface.methods[name.rawValue]).output
            guard case let .optional(.named(responseType))? = output.first(where: { $0.name == "response" })?.type,
                case let .structure(fields)? = interface.types[responseType],
                case let .named(codeType)? = fields.first(where: { $0.name == "code" })?.type
            else {
                Issue.record("\(name.rawValue): no response type with a code")
                continue
            }
            #expect(cases(codeType) == name.responseCodes.map(\.rawValue), "\(name.rawValue)")
        }
    }

    @Test func callsAreCheckedAgainstTheDeclaration() throws {
        let input = try #require(interface.methods["SetClimateSettingsInCar"]).input
        #expect(interface.mismatch(of: ["temperature": ["value": 21.5, "unit": "celsius"], "climateZone": "driver"], against: input) == nil)
        #expect(
            interface.mismatch(of: ["temperature": ["value": 21.5, "unit": "kelvin"]], against: input)
                == VarlinkTypeMismatch(path: "temperature.unit", reason: "expected one of celsius, fahrenheit, found \"kelvin\""))
        #expect(interface.mismatch(of: ["temperature": ["unit": "celsius"]], against: input)?.path == "temperature.value")
        #expect(interface.mismatch(of: ["fanSpeedIndex": 2.5], against: input)?.path == "fanSpeedIndex")
        #expect(interface.mismatch(of: ["climateZone": "trunk"], against: input)?.path == "climateZone")
        #expect(interface.mismatch(of: ["phase": "later"], against: input)?.path == "phase")
        #expect(interface.mismatch(of: ["seat": "driver"], against: input)?.reason.hasPrefix("no such field") == true)
        let signals = try #require(interface.methods["ActivateCarSignal"]).input
        #expect(interface.mismatch(of: ["signals": ["audible", "smell"]], against: signals)?.path == "signals[1]")
    }

    @Test func definitionErrorsNameTheLine() {
        #expect(throws: VarlinkIDLError.self) { try VarlinkInterfaceDefinition(parsing: "interface a.b\nmethod X(a: Nope) -> ()") }
        do {
            _ = try VarlinkInterfaceDefinition(parsing: "interface a.b\n\nmethod X(a: int -> ()")
            Issue.record("parsed")
        } catch {
            #expect(error.line == 3, "\(error)")
        }
    }

    /// Every reply of every typed method, on both example cars, in every phase, for
    /// intents that succeed, disambiguate, ask for values and fail, has its declared type.
    @Test(arguments: [
        "sedan", "suv", "ford-cgea", "gm-global-a-lowspeed", "hyundai-ccan", "hyundai-kia-generic", "hyundai-mcan", "tesla-model-s", "toyota-2017", "vw-mqb",
    ])
    func everyReplyHasItsDeclaredType(_ profileName: String) async throws {
        let directory = TestPaths.repositoryRoot.appendingPathComponent("VehicleProfiles/\(profileName)").path
        var profile = try ProfileLoader.load(directory: directory) { FileManager.default.contents(atPath: $0).map { Array($0) } }
        profile.policies.confirmationTimeout = .seconds(2)
        let session = VehicleSession(profile: profile, vehicle: .inProcess(EmbeddedVehicle(VehicleSimulation(profile: profile))))
        #expect(await session.controller.waitUntilComplete(timeout: .seconds(10)))
        // Monitor's replies to everything the requests cause (it ends with the session).
        let events = session.controller.events(commands: true)
        let monitored = Task { await events.reduce(into: [VehicleEvent]()) { $0.append($1) } }
        let cache = StateJSONCache()
        for request in Self.requests {
            let intent = try Intent(parsing: request)
            let method = try #require(interface.methods[intent.name.rawValue])
            for phase in IntentPhase.allCases {
                let outcome = await session.engine.run(phase, intent)
                let bytes = VehicleService.typedReply(outcome, cache).dropLast()  // its NUL
                let reply = try #require(try JSONValue(parsing: Array(bytes)).objectValue?["parameters"]?.objectValue)
                let mismatch = interface.mismatch(of: reply, against: method.output)
                #expect(mismatch == nil, "\(profileName) \(phase) \(request): \(mismatch!) in \(JSONValue.object(reply).serialized())")
            }
        }
        let state = session.controller.currentState
        #expect(interface.mismatch(of: state.groupedJSON, against: .named("VehicleState"), path: "state") == nil)
        let described = interface.mismatch(of: DescribeReply(profile).json, against: try #require(interface.methods["Describe"]).output)
        #expect(described == nil, "\(profileName) Describe: \(described!)")
        await session.stop()
        let monitor = try #require(interface.methods["Monitor"])
        var kinds = Set<String>()
        for event in await monitored.value {
            let reply = VehicleService.monitorReply(event)
            kinds.insert(reply["command"]?.objectValue?["status"]?.stringValue ?? "change")
            let mismatch = interface.mismatch(of: reply, against: monitor.output)
            #expect(mismatch == nil, "\(profileName) Monitor: \(mismatch!) in \(JSONValue.object(reply).serialized())")
        }
        // A read-only car sends no command, and its simulated state changes by nothing here.
        if profile.bindings.values.contains(where: { $0.command != nil }) {
            #expect(kinds.isSuperset(of: ["change", "pending", "confirmed"]), "\(kinds)")
        }
    }

    static let requests = [
        #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":22.5,"unit":"celsius"},"climateZone":"driver"}}"#,
        #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":99,"unit":"celsius"}}}"#,
        #"{"intent":"SetClimateSettingsInCar","parameters":{"relativeTemperatureSetting":"higher","climateZone":"all"}}"#,
        #"{"intent":"SetClimateSettingsInCar","parameters":{"enableFan":true,"fanSpeedIndex":9,"enableAirConditioner":true}}"#,
        #"{"intent":"SetClimateSettingsInCar","parameters":{"fanSpeedPercentage":50,"relativeFanSpeedSetting":"lower"}}"#,
        #"{"intent":"SetClimateSettingsInCar","parameters":{"relativeFanSpeedSetting":"highest","airCirculationMode":"recirculateAir","enableAutoMode":false,"enableClimateControl":true}}"#,
        #"{"intent":"SetClimateSettingsInCar","parameters":{"carName":"someone else's car"}}"#,
        #"{"intent":"SetDefrosterSettingsInCar","parameters":{"enable":true}}"#,
        #"{"intent":"SetDefrosterSettingsInCar","parameters":{"enable":true,"defroster":"rear"}}"#,
        #"{"intent":"SetSeatSettingsInCar","parameters":{"enableHeating":true,"seat":"driver","level":2}}"#,
        #"{"intent":"SetSeatSettingsInCar","parameters":{"seat":"rear","level":9}}"#,
        #"{"intent":"SetSeatSettingsInCar","parameters":{"seat":"front","relativeLevelSetting":"higher"}}"#,
        #"{"intent":"SetSeatSettingsInCar","parameters":{"enableHeating":true,"relativeLevelSetting":"highest","seat":"all"}}"#,
        #"{"intent":"SetSeatSettingsInCar","parameters":{"relativeLevelSetting":"lowest"}}"#,
        #"{"intent":"SetAudioSourceInCar","parameters":{"audioSource":"sourceBluetooth"}}"#,
        #"{"intent":"SetAudioSourceInCar","parameters":{"relativeAudioSourceReference":"next"}}"#,
        #"{"intent":"SetRadioStation","parameters":{"stationName":"Jazz FM"}}"#,
        #"{"intent":"SetRadioStation","parameters":{"radioType":"FM","frequency":101.1}}"#,
        #"{"intent":"SetRadioStation","parameters":{"radioType":"satellite","channel":"42"}}"#,
        #"{"intent":"SetRadioStation","parameters":{"presetNumber":1}}"#,
        #"{"intent":"SetRadioStation","parameters":{"frequency":880}}"#,
        #"{"intent":"SaveProfileInCar","parameters":{"profileNumber":2,"profileName":"Anna"}}"#,
        #"{"intent":"SetProfileInCar","parameters":{"profileName":"Anna"}}"#,
        #"{"intent":"SetProfileInCar","parameters":{"profileNumber":3,"isDefaultProfile":false}}"#,
        #"{"intent":"SetCarLockStatus","parameters":{"locked":true}}"#,
        #"{"intent":"GetCarLockStatus","parameters":{}}"#,
        #"{"intent":"SetCarLockStatus","parameters":{"locked":false}}"#,
        #"{"intent":"ActivateCarSignal","parameters":{"signals":["audible","visible"]}}"#,
        #"{"intent":"GetCarPowerLevelStatus","parameters":{}}"#,
        #"{"intent":"ListCars","parameters":{}}"#,
    ]
}
