import CANKit
import Foundation
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents

/// Issue 26's closed loop, in process: for every shipped profile and every bound status,
/// the simulated car's status frames before and after a driver-side change of that
/// property go through `SignalDiff`, which must rank the profile's status signal first.
/// (The same on vcan, from candump logs of carplay-ecu, is IntegrationTests/vcan.)
@Suite struct DiffFindsTheStatusTests {
    static let profiles = [
        "sedan", "suv", "ford-cgea", "gm-global-a-lowspeed", "hyundai-ccan", "hyundai-kia-generic", "hyundai-mcan", "tesla-model-s", "toyota-2017", "vw-mqb",
    ]

    /// Another value the car could report for `key` (nil: none to pick).
    static func changed(_ key: PropertyKey, from current: PropertyValue?, in profile: VehicleProfile, binding: PropertyBinding) -> PropertyValue? {
        switch key.kind {
        case .bool?: return .bool(!(current == .bool(true)))
        case let .enumeration(cases)?:
            let mapped = binding.statusValues.values.keys.sorted()
            let names = mapped.isEmpty ? cases.names : mapped
            return names.first { PropertyValue.enumeration($0) != current }.map { .enumeration($0) }
        case .integer?:
            let value = current.flatMap { if case let .integer(number) = $0 { number } else { nil } } ?? 0
            let maximum: Int
            if key == .fanSpeed {
                maximum = profile.climate?.fanSpeedLevels ?? 1
            } else if key.rawValue.hasPrefix("seat.") {
                let parts = key.rawValue.split(separator: ".")
                maximum = CarSeat(rawValue: String(parts[1])).flatMap { profile.seat($0) }.map { $0.maximum(SeatFeature(rawValue: String(parts[2]))!) } ?? 1
            } else if key == .activeCarProfile {
                maximum = profile.carProfileSlots
            } else {
                maximum = value + 1
            }
            let next = value + 1 <= maximum ? value + 1 : value - 1
            return next >= 0 && next != value ? .integer(next) : nil
        case .number?:
            let value = current?.doubleValue ?? 0
            if key.rawValue.hasPrefix("climate.temperature."), let range = profile.climate?.celsius {
                let next = value + 2 * range.step <= range.max - range.step ? value + 2 * range.step : value - 2 * range.step
                return .number(next)
            }
            if key == .fuelPercent || key == .chargePercent { return .number(value > 50 ? value - 20 : value + 20) }
            return .number(value + 10)
        case nil: return nil
        }
    }

    @Test(arguments: profiles) func theBoundStatusSignalRanksFirst(_ name: String) throws {
        let profile = try ShippedProfiles.load(name)
        let frames = VehicleFrames(profile: profile)
        let base = VehicleSimulation.defaultState(for: profile)
        // A signal two properties report (fan on and its level) is not one property's.
        var reporters: [String: Int] = [:]
        for binding in profile.bindings.values { reporters["\(binding.status.message).\(binding.status.signal)", default: 0] += 1 }
        var counters: [String: UInt8] = [:]
        func record(_ state: VehicleState) throws -> [CANFrame] {
            var recorded: [CANFrame] = []
            for _ in 0..<8 {
                for message in frames.statusMessages.keys.sorted() {
                    for page in 0..<frames.statusPageCount(message) {
                        recorded.append(try frames.statusFrame(message, page: page, state: state, counters: &counters))
                    }
                }
            }
            return recorded
        }
        var checked = 0
        for key in profile.bindings.keys.sorted() {
            let binding = profile.bindings[key]!
            guard reporters["\(binding.status.message).\(binding.status.signal)"] == 1, key != .radioFrequency, key != .temperatureUnit,
                let value = Self.changed(key, from: base[key], in: profile, binding: binding)
            else { continue }
            var after = base
            after[key] = value
            let changes = SignalDiff.changes(in: profile.database, before: try record(base), after: try record(after))
            let first = try #require(changes.first, "\(name) \(key) = \(value): no signal changed")
            #expect(
                first.message == binding.status.message && first.signal == binding.status.signal,
                "\(name) \(key): ranked first \(first.message).\(first.signal) (\(first.kind)), not \(binding.status.message).\(binding.status.signal)")
            checked += 1
        }
        #expect(checked > 0, "\(name): no property checked")
    }
}
