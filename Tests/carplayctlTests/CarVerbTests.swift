import CarplayJSON
import Testing

@testable import carplayctl

/// `carplayctl car`: the words of `set` as the values the car checks, and what a daemon
/// without a simulated vehicle answers.
@Suite(.serialized) struct CarVerbTests {
    @Test func wordsBecomeValuesTheCarChecksByKind() throws {
        #expect(CarVerb.value("19") == .integer(19))
        #expect(CarVerb.value("19.5") == .number(19.5))
        #expect(CarVerb.value("-3") == .integer(-3))
        #expect(CarVerb.value("on") == .bool(true) && CarVerb.value("false") == .bool(false))
        #expect(CarVerb.value("recirculateAir") == .string("recirculateAir"))
        #expect(CarVerb.value("nan") == .string("nan"))
        #expect(
            try CarVerb.values(["climate.temperature.left", "19", "lock.locked", "on"]) == [
                "climate.temperature.left": .integer(19), "lock.locked": .bool(true),
            ])
        #expect(throws: UsageError.self) { try CarVerb.values(["climate.temperature.left"]) }
        #expect(throws: UsageError.self) { try CarVerb.values(["lock.locked", "on", "lock.locked", "off"]) }
    }

    @Test func aDaemonWithoutTheSimulatorSaysSo() async throws {
        // The fake daemon serves io.carplayd.Vehicle alone, as carplayd on a real bus does.
        let daemon = try FakeDaemon()
        let result = try await ctl(["car", "set", "climate.temperature.left", "19"], daemon)
        #expect(result.status == 1)
        #expect(
            result.stderr == "carplayctl car: no simulated vehicle here: io.carplayd.Simulator is not served (a real CAN bus, or simulator-control = off)\n")
        #expect(try await ctl(["car", "jump"], daemon).status == 2)
    }
}
