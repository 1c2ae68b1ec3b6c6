import CarplayJSON
import Foundation
import TestSupport
import Testing
import Varlink

/// What a newcomer hit trying the README's own commands (issue 36, item 9): each
/// message, sentence and help text as they read it.
@Suite(.serialized) struct FirstContactTests {
    static let sedan = TestPaths.repository("VehicleProfiles/sedan").path
}

// MARK: - A malformed intent says so once

extension FirstContactTests {
    /// `intent: malformed JSON: malformed JSON: unexpected end ...`: the prefix was doubled.
    @Test func aMalformedIntentSaysMalformedJSONOnce() async throws {
        let result = try await CarplayctlTests.runOffThePool(["perform", "--simulate", Self.sedan, #"{"intent":"#])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("carplayctl perform: intent: malformed JSON: unexpected end at line 1, column 11\n"), "\(result.stderr)")
    }
}

// MARK: - call: malformed parameters say where

extension FirstContactTests {
    /// Truncated JSON said `parameters must be a JSON object`, with no position: it is
    /// malformed JSON, and the parser knows where.
    @Test func callWithTruncatedParametersSaysWhereTheJSONBreaks() async throws {
        let daemon = try FakeDaemon()
        let truncated = try await ctl(["call", "Perform", #"{"intent":"GetCarLockStatus""#], daemon)
        #expect(truncated.status == 2)
        #expect(
            truncated.stderr.hasPrefix("carplayctl call: parameters: malformed JSON: unexpected end at line 1, column 29\n"), "\(truncated.stderr)")
        let bad = try await ctl(["call", "Perform", "{\"intent\":\n \"GetCarLockStatus\" \"parameters\":{}}"], daemon)
        #expect(bad.stderr.hasPrefix("carplayctl call: parameters: malformed JSON: expected ',' or '}' at line 2, column 21\n"), "\(bad.stderr)")
        // JSON that is not an object still says what is wanted.
        let array = try await ctl(["call", "GetState", "[1]"], daemon)
        #expect(array.status == 2)
        #expect(array.stderr.hasPrefix("carplayctl call: parameters must be a JSON object"), "\(array.stderr)")
        #expect(daemon.calls.isEmpty, "nothing is sent")
    }
}

// MARK: - The climate sentence names the zones the car set

extension FirstContactTests {
    /// A car's answer to SetClimateSettingsInCar as carplayd gives it: `climateZone`
    /// resolves to the ids of the zones serving the seats asked for (`zones`: the seat
    /// word -> those ids; no zone asked: every zone), a temperature is set in the car's
    /// 0.5 °C step (°F converted), and the state after holds each zone's temperature in °C.
    static func climateCar(zones: [String: [String]], all: [String]) -> FakeDaemon.Handler {
        { call in
            guard call.member == "Resolve" || call.member == "Perform" else { return FakeDaemon.happyVehicle(call) }
            let (_, parameters) = FakeDaemon.intentParameters(call)
            var resolutions = FakeDaemon.successResolutions(parameters).objectValue!
            let ids = parameters["climateZone"]?.stringValue.map { zones[$0] ?? [] } ?? all
            resolutions["climateZone"] = ["kind": "success", "value": .array(ids.map { .string($0) })]
            var state = FakeDaemon.state.objectValue!
            if let temperature = parameters["temperature"]?.objectValue, let value = temperature["value"]?.doubleValue {
                let celsius = ((temperature["unit"] == "fahrenheit" ? (value - 32) * 5 / 9 : value) * 2).rounded() / 2
                for id in ids { state["climate.temperature.\(id)"] = .number(celsius) }
            }
            if call.member == "Resolve" { return [VarlinkReply(parameters: ["resolutions": .object(resolutions), "ready": true])] }
            return [
                VarlinkReply(parameters: [
                    "resolutions": .object(resolutions), "response": ["code": "success"], "frames": [FakeDaemon.frame], "state": .object(state),
                ])
            ]
        }
    }

    /// The example sedan: a left and a right zone, each serving a front and a rear seat.
    static let sedanClimate = climateCar(
        zones: ["driver": ["left"], "passenger": ["right"], "rear": ["left", "right"], "front": ["left", "right"]], all: ["left", "right"])
    /// The example SUV: a zone per front seat, one for the rear.
    static let suvClimate = climateCar(
        zones: ["driver": ["frontLeft"], "rear": ["rear"], "frontRight": ["frontRight"]], all: ["frontLeft", "frontRight", "rear", "thirdRow"])

    /// `--zone rear` on the sedan said "Rear zone set to 19 °C" while both zones -- the
    /// front seats' too -- changed: the sentence names the zones set.
    @Test(arguments: [
        ("sedan", ["--temperature", "19", "--zone", "rear"], "Left and right zones (serving the rear) set to 19 °C"),
        ("sedan", ["--temperature", "22.5", "--zone", "driver"], "Left zone (serving the driver) set to 22.5 °C"),
        ("sedan", ["--temperature", "21"], "Temperature set to 21 °C"),
        ("suv", ["--temperature", "19", "--zone", "rear"], "Rear zone set to 19 °C"),
        ("suv", ["--temperature", "20", "--zone", "frontright"], "Front right zone set to 20 °C"),
        ("suv", ["--temperature", "20", "--zone", "driver", "--fan", "3"], "Front left zone (serving the driver) set to 20 °C, fan speed 3"),
    ])
    func theSentenceNamesTheZonesSet(_ car: String, _ arguments: [String], _ expected: String) async throws {
        let daemon = try FakeDaemon(car == "suv" ? Self.suvClimate : Self.sedanClimate)
        let result = try await ctl(["climate"] + arguments, daemon)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == expected + " (confirmed by the vehicle)\n")
    }
}

// MARK: - The temperature the car took

extension FirstContactTests {
    /// `--temperature 72F` said 72 °F while the car, in 0.5 °C steps, holds 22 °C =
    /// 71.6 °F: the sentence says what the car took.
    @Test(arguments: [
        (["--temperature", "72F"], "Temperature set to 71.6 °F (22 °C, the car's nearest to 72 °F)"),
        (["--temperature", "72F", "--zone", "passenger"], "Right zone (serving the passenger) set to 71.6 °F (22 °C, the car's nearest to 72 °F)"),
        (["--temperature", "71.6F"], "Temperature set to 71.6 °F (22 °C)"),
        (["--temperature", "22.3"], "Temperature set to 22.5 °C (the car's nearest to 22.3 °C)"),
        (["--temperature", "68F", "--ac", "on"], "Temperature set to 68 °F (20 °C), A/C on"),
    ])
    func theSentenceSaysWhatTheCarTook(_ arguments: [String], _ expected: String) async throws {
        let daemon = try FakeDaemon(Self.sedanClimate)
        let result = try await ctl(["climate"] + arguments, daemon)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == expected + " (confirmed by the vehicle)\n")
    }
}

// MARK: - Help and docs say what exists

extension FirstContactTests {
    /// `carplayctl --help` described `profile` as check only.
    @Test func theVerbListNamesEveryProfileCommand() async throws {
        let help = try await CarplayctlTests.runOffThePool(["--help"])
        let line = try #require(help.stdout.split(separator: "\n").first { $0.hasPrefix("  profile ") })
        for subverb in ["check", "draft", "try"] { #expect(line.contains(subverb), "\(line)") }
    }

    /// `perform --help` lacked `busOff`: it names every fault kind the simulated vehicle
    /// knows (the list its own error gives for an unknown kind).
    @Test func performHelpNamesEveryFaultKind() async throws {
        let refused = try await CarplayctlTests.runOffThePool([
            "perform", "--simulate", Self.sedan, #"{"intent":"GetCarLockStatus","parameters":{}}"#, "--faults", #"{"rules":[{"kind":"explode"}]}"#,
        ])
        let listed = try #require(refused.stderr.firstMatch(of: /unknown fault kind "explode" \(([^)]*)\)/)?.1, "\(refused.stderr)")
        let kinds = listed.split(separator: ", ").map(String.init)
        #expect(kinds.contains("busOff"))
        let help = try await CarplayctlTests.runOffThePool(["perform", "--help"])
        let faults = help.stdout.replacingOccurrences(of: "\n", with: " ")
        for kind in kinds { #expect(faults.contains(kind), "perform --help does not name the fault kind \(kind)") }
    }

    /// `perform` without `--simulate` pointed to "the daemon form", which does not exist.
    @Test func performWithoutASimulatedCarSaysWhatRunsOnTheDaemon() async throws {
        let result = try await CarplayctlTests.runOffThePool(["perform", #"{"intent":"GetCarLockStatus","parameters":{}}"#])
        #expect(result.status == 2)
        #expect(!result.stderr.contains("daemon form"), "\(result.stderr)")
        #expect(result.stderr.contains("carplayctl call Perform"), "\(result.stderr)")
    }

    /// docs/CLI.md said there is no option to preload saved car profiles; there is. Every
    /// option of `perform --help`'s synopsis is in the docs' section on perform.
    @Test func theDocsOfPerformNameEveryOption() async throws {
        let help = try await CarplayctlTests.runOffThePool(["perform", "--help"])
        let synopsis = help.stdout.components(separatedBy: "\n\n")[0]
        let options = Set(synopsis.matches(of: /--[a-z-]+/).map { String($0.output) })
        #expect(options.contains("--car-profiles"))
        let docs = try String(contentsOf: TestPaths.repository("docs/CLI.md"), encoding: .utf8)
        let start = try #require(docs.range(of: "## `carplayctl perform`"))
        let rest = docs[start.upperBound...]
        let text = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
        for option in options.sorted() { #expect(text.contains("`" + option), "docs/CLI.md, perform: \(option) missing") }
        #expect(!text.contains("no option to preload"))
    }
}
