import CANKit
import Testing
import VehicleKit

@testable import VehicleSimulator

/// The simulated car's drivetrain model (VehicleSimulation+Drivetrain.swift) on the shipped
/// SUV (90 kWh, 3 kWh reserve, 14.5 kWh/100 km, ccs2 150 kW, mennekes 11 kW) and sedan
/// (fuel: the model's 50 l tank, 7 l/100 km). Time is passed in: every figure is exact.
@Suite struct DrivetrainTests {
    let suv: VehicleProfile
    let sedan: VehicleProfile

    init() throws {
        suv = try ProfileFixture("suv").load()
        sedan = try ProfileFixture("sedan").load()
    }

    func number(_ state: VehicleState, _ key: PropertyKey) -> Double { state[key]?.doubleValue ?? .nan }

    @Test func startsConsistent() {
        let state = VehicleSimulation.defaultState(for: suv)
        #expect(state[.activeConnector] == .enumeration("none"))
        #expect(abs(number(state, .currentBatteryCapacity) - 63.9) < 1e-9)  // 71 % of 90 kWh
        #expect(number(state, .maximumBatteryCapacity) == 90)
        #expect(number(state, .minimumBatteryCapacity) == 3)
        #expect(abs(number(state, .maximumDistance) - 600) < 1e-9)  // 87 kWh at 14.5 kWh/100 km
        #expect(number(state, .distanceRemaining) == 420)
    }

    @Test func pluggedInChargesAtTheConnectorsPower() throws {
        var car = VehicleSimulation(profile: suv)
        _ = car.tick(at: .zero)
        let plugged = try car.setDriveState(DriveState(connector: .ccs2), at: .zero)
        #expect(car.state[.activeConnector] == .enumeration("ccs2"))
        #expect(car.state[.charging] == .bool(true))
        // 26.1 kWh missing at 150 kW: 10.44 minutes.
        #expect(car.state[.minutesToFull] == .integer(11))
        #expect(!plugged.isEmpty, "the connector's status frame goes out at once")

        // Six minutes at 150 kW: 15 kWh more.
        let frames = car.tick(at: .seconds(360))
        #expect(abs(number(car.state, .currentBatteryCapacity) - 78.9) < 1e-9)
        #expect(abs(number(car.state, .chargePercent) - 78.9 / 90 * 100) < 1e-9)
        #expect(car.state[.minutesToFull] == .integer(5))  // 11.1 kWh: 4.44 minutes
        #expect(abs(number(car.state, .distanceRemaining) - (78.9 - 3) / 14.5 * 100) < 1e-9)
        // What the BatteryStatus frame tells the head unit.
        var checkers: [String: FrameChecker] = [:]
        let reported = frames.compactMap { frame -> [PropertyKey: PropertyValue]? in
            if case let .status("BatteryStatus", values, _) = car.frames.decodeFromVehicle(frame, checkers: &checkers) { return values }
            return nil
        }
        let status = try #require(reported.last)
        #expect(status[.chargePercent] == .number(87.7))
        #expect(status[.currentBatteryCapacity]?.doubleValue.map { abs($0 - 78.9) < 1e-6 } == true)
        #expect(status[.activeConnector] == .enumeration("ccs2"))
        #expect(status[.distanceRemaining]?.doubleValue == 523)
    }

    @Test func aFullBatteryStopsCharging() throws {
        var car = VehicleSimulation(profile: suv)
        _ = try car.setDriveState(DriveState(connector: .mennekes), at: .zero)
        // 26.1 kWh at 11 kW: 142.4 minutes; three hours is more than enough.
        _ = car.tick(at: .seconds(3 * 3600))
        #expect(number(car.state, .chargePercent) == 100)
        #expect(car.state[.charging] == .bool(false))
        #expect(car.state[.minutesToFull] == .integer(0))
        #expect(car.state[.activeConnector] == .enumeration("mennekes"), "still plugged in")
        _ = try car.setDriveState(.parked, at: .seconds(3 * 3600))
        #expect(car.state[.activeConnector] == .enumeration("none"))
    }

    @Test func drivingUsesTheConsumption() throws {
        var car = VehicleSimulation(profile: suv)
        _ = try car.setDriveState(DriveState(speedKmh: 100), at: .zero)
        _ = car.tick(at: .seconds(1800))  // 50 km: 7.25 kWh
        #expect(abs(number(car.state, .currentBatteryCapacity) - 56.65) < 1e-9)
        #expect(abs(number(car.state, .chargePercent) - 56.65 / 90 * 100) < 1e-9)
        #expect(abs(number(car.state, .distanceRemaining) - 370) < 1e-9)
        #expect(car.state[.charging] == .bool(false))
        // Stopped: nothing changes any more.
        _ = try car.setDriveState(DriveState(speedKmh: 0), at: .seconds(1800))
        _ = car.tick(at: .seconds(3600))
        #expect(abs(number(car.state, .currentBatteryCapacity) - 56.65) < 1e-9)
    }

    @Test func drivingAnEmptyCarStopsIt() throws {
        var state = VehicleSimulation.defaultState(for: suv)
        state[.chargePercent] = .number(5)  // 4.5 kWh: 1.5 above the reserve, about 10 km
        var car = VehicleSimulation(profile: suv, state: state)
        _ = try car.setDriveState(DriveState(speedKmh: 120), at: .zero)
        _ = car.tick(at: .seconds(3600))
        #expect(abs(number(car.state, .currentBatteryCapacity) - 3) < 1e-9)
        #expect(number(car.state, .distanceRemaining) == 0)
        #expect(car.drive.speedKmh == 0)
    }

    @Test func aFuelCarBurnsFuel() throws {
        var car = VehicleSimulation(profile: sedan)
        _ = try car.setDriveState(DriveState(speedKmh: 100), at: .zero)
        _ = car.tick(at: .seconds(3600))  // 100 km: 7 of the 31 litres
        #expect(abs(number(car.state, .fuelPercent) - 48) < 1e-9)
        #expect(abs(number(car.state, .distanceRemaining) - 24.0 / 7 * 100) < 1e-9)
    }

    @Test func refusesWhatTheCarCannotDo() {
        var car = VehicleSimulation(profile: suv)
        #expect(throws: DriveStateError.self) { try car.setDriveState(DriveState(connector: .chaDeMo), at: .zero) }
        #expect((try? car.setDriveState(DriveState(connector: .ccs2, speedKmh: 30), at: .zero)) == nil)
        #expect((try? car.setDriveState(DriveState(speedKmh: -1), at: .zero)) == nil)
        do {
            _ = try car.setDriveState(DriveState(connector: .ccs2, speedKmh: 30), at: .zero)
        } catch {
            #expect(error.parameter == "speedKmh")
        }
        var fuel = VehicleSimulation(profile: sedan)
        do {
            _ = try fuel.setDriveState(DriveState(connector: .ccs2), at: .zero)
            Issue.record("a fuel car was plugged in")
        } catch {
            #expect(error.parameter == "connector" && error.reason.contains("no battery"))
        }
        #expect(car.drive == .parked, "a refused drive state changes nothing")
    }
}
