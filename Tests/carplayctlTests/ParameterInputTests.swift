import CarIntents
import CarplayJSON
import Testing

@testable import carplayctl

/// The answers carplayctl reads for an intent's questions come from the declared kinds:
/// every parameter of every intent has a typed form, and the intent parser takes it.
@Suite struct ParameterInputTests {
    static func sample(_ kind: ParameterKind) -> String {
        switch kind {
        case .bool: "on"
        case .integer: "2"
        case .number: "50"
        case .temperature: "72F"
        case .string, .channel: " Jazz FM "
        case let .enumeration(_, names, _): names[0].uppercased()
        case .signals: "lights,horn"
        }
    }

    @Test func everyDeclaredParameterHasATypedInput() throws {
        for name in IntentName.allCases {
            var parameters: [String: JSONValue] = [:]
            for parameter in Intent.signature(of: name) {
                parameters[parameter.name] = try ParameterInput.parse(parameter: parameter.name, text: Self.sample(parameter.kind))
            }
            #expect(throws: Never.self, "\(name.rawValue)") { try Intent(named: name.rawValue, parameters: .object(parameters)) }
        }
    }

    @Test func wordsPeopleSay() throws {
        #expect(try ParameterInput.parse(parameter: "airCirculationMode", text: "Recirculate") == .string("recirculateAir"))
        #expect(try ParameterInput.parse(parameter: "radioType", text: "sat") == .string("satellite"))
        #expect(try ParameterInput.parse(parameter: "temperature", text: "72F") == .object(["value": .number(72), "unit": .string("fahrenheit")]))
        #expect(try ParameterInput.parse(parameter: "fanSpeedPercentage", text: "40") == .number(40))
        #expect(throws: UsageError.self) { try ParameterInput.parse(parameter: "fanSpeedPercentage", text: "140") }
        #expect(throws: UsageError.self) { try ParameterInput.parse(parameter: "seat", text: "trunk") }
    }
}

/// What carplayctl sends is the intent its declarations read; what they refuse is refused
/// before sending, as the daemon's own InvalidParameter (text and `--json` alike).
@Suite struct TypedRequestTests {
    @Test func theRequestIsTheTypedIntent() throws {
        let intent = try IntentRunner.typed(.setCarLockStatus, ["locked": true])
        #expect(intent == .setCarLockStatus(SetCarLockStatusParameters(locked: true)))
    }

    @Test func aRefusedValueIsTheDaemonsError() {
        do {
            _ = try IntentRunner.typed(.setClimateSettingsInCar, ["fanSpeedPercentage": 120])
            Issue.record("120 % was taken")
        } catch let error as DaemonError {
            #expect(error.description == "invalid parameter fanSpeedPercentage: expected a number 0…100, found 120")
            #expect(error.json.objectValue?["error"] == "io.carplayd.Vehicle.InvalidParameter")
        } catch {
            Issue.record("\(error)")
        }
    }
}
