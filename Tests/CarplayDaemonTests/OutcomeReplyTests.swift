import CANBus
import CANKit
import CarIntents
import CarplayJSON
import Foundation
import TestSupport
import Testing
import Varlink
import VehicleKit
import VehicleSimulator

@testable import CarplayDaemon
@testable import LinuxSupport

/// The Handle/Perform reply is written straight into bytes (frames as candump lines, the
/// state as cached text); it must be the bytes the generic serializer gives for the same
/// parameters.
@Suite struct OutcomeReplyTests {
    static func outcome(_ phase: IntentPhase, frames: [ReceivedFrame], response: IntentResponse) throws -> IntentOutcome {
        let intent = try Intent(parsing: #"{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":22.5,"unit":"celsius"}}}"#)
        let resolution = IntentResolution(
            intent: intent,
            parameters: [
                ("temperature", .success(["value": 22.5, "unit": "celsius"])), ("climateZone", .notRequired),
                ("fanSpeedIndex", .confirmationRequired(7, reason: "7 is above the maximum 7")),
            ], action: .set([:]))
        return IntentOutcome(
            phase: phase, resolution: resolution, response: response, refusal: nil, frames: frames,
            state: VehicleState([.fan: .bool(true), .radioFrequency: .number(102.2)]), stateVersion: 7)
    }

    @Test(arguments: [IntentPhase.handle, .perform]) func equalsTheGenericSerialization(phase: IntentPhase) throws {
        let frames = [
            ReceivedFrame(
                frame: try CANFrame(id: CANID(standard: 0x300), data: [0x7F, 0xF0, 0x1B]),
                timestamp: CandumpTimestamp(seconds: 1_700_000_000, microseconds: 80050), interface: "vcan0"),
            ReceivedFrame(
                frame: try CANFrame(id: CANID(extended: 0x18A0_2020), data: Array(0..<12), kind: .fd(bitRateSwitch: true, errorStateIndicator: false)),
                timestamp: CandumpTimestamp(seconds: 1_700_000_000, microseconds: 80164), interface: "odd\"name"),
        ]
        let response = IntentResponse.failure("timeout", detail: "no status frame")
        let outcome = try Self.outcome(phase, frames: frames, response: response)
        var parameters: [String: JSONValue] = [
            "response": response.jsonValue, "frames": .array(frames.map { .string($0.logLine) }), "state": outcome.state.jsonValue,
        ]
        if phase == .perform {
            parameters["resolutions"] = .object(Dictionary(uniqueKeysWithValues: outcome.resolution.parameters.map { ($0.name, $0.result.jsonValue) }))
        }
        let expected = VarlinkReply(parameters: parameters).serialized()
        let (members, raw) = outcome.replyMembers { state, version in
            #expect(version == 7)
            return state.jsonValue.serializedBytes()
        }
        let written = VarlinkReply(parameters: members).serialized(adding: raw)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(written.last == 0)
        // What carplayctl perform --simulate prints is the same object.
        #expect(outcome.json == .object(parameters))
    }

    @Test func noFrames() throws {
        let outcome = try Self.outcome(.handle, frames: [], response: IntentResponse(code: .success))
        let (members, raw) = outcome.replyMembers { _, _ in Array("{}".utf8) }
        let written = VarlinkReply(parameters: members).serialized(adding: raw)
        #expect(String(decoding: written.dropLast(), as: UTF8.self) == #"{"parameters":{"frames":[],"response":{"code":"success"},"state":{}}}"#)
    }

    /// Which refusals become typed errors, by phase (the table of docs/INTENTS.md).
    @Test func refusalsAsErrors() throws {
        var outcome = try Self.outcome(.handle, frames: [], response: .failure(IntentResponse.notResolved))
        outcome.refusal = .notResolved(parameter: "temperature", reason: "which temperature?")
        #expect(
            VehicleService.error(for: outcome)
                == VarlinkError("io.carplayd.Vehicle.InvalidParameter", ["parameter": "temperature", "reason": "which temperature?"]))
        outcome.phase = .perform
        #expect(VehicleService.error(for: outcome) == nil, "Perform answers an unresolved intent with its resolutions")
        outcome.refusal = .restrictedWhileLocked(reason: "the caller's session 3 is locked: unlock it first")
        #expect(
            VehicleService.error(for: outcome)
                == VarlinkError(
                    "io.carplayd.Vehicle.RestrictedWhileLocked",
                    [
                        "intent": "SetClimateSettingsInCar", "reason": "the caller's session 3 is locked: unlock it first",
                    ]))
        outcome.refusal = .carLocked
        #expect(VehicleService.error(for: outcome) == VarlinkError("io.carplayd.Vehicle.CarLocked", ["intent": "SetClimateSettingsInCar"]))
        outcome.refusal = .vehicleUnreachable
        #expect(VehicleService.error(for: outcome)?.name == "io.carplayd.Vehicle.VehicleUnavailable")
        outcome.refusal = .notSubscribed
        #expect(VehicleService.error(for: outcome) == nil)
        outcome.phase = .confirm
        for refusal in [IntentRefusal.restrictedWhileLocked(reason: "locked"), .carLocked, .vehicleUnreachable, .notResolved(parameter: "x", reason: "y")] {
            outcome.refusal = refusal
            #expect(VehicleService.error(for: outcome) == nil, "Confirm answers \(refusal) in its response")
        }
    }
}

@Suite struct StateJSONCacheTests {
    static let profile = try! ProfileLoader.load(directory: TestPaths.repository("VehicleProfiles/sedan").path) {
        FileManager.default.contents(atPath: $0).map { Array($0) }
    }

    static let warm = VehicleState([.fan: .bool(true), .fanSpeed: .integer(3)])
    static let cold = VehicleState([.fan: .bool(false)])
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func serializesOncePerVersion() {
        let cache = StateJSONCache()
        let (warm, cold, text) = (Self.warm, Self.cold, Self.text)
        #expect(text(cache.json(warm, version: 1)) == warm.jsonValue.serialized())
        // The same version is the same state: the cached text, whatever is passed.
        #expect(text(cache.json(cold, version: 1)) == warm.jsonValue.serialized())
        #expect(text(cache.json(cold, version: 2)) == cold.jsonValue.serialized())
    }

    /// No property known yet (the car not heard from): an empty object, then one property.
    @Test func anEmptyStateIsAnEmptyObject() {
        let cache = StateJSONCache()
        #expect(Self.text(cache.json(VehicleState(), version: 1)) == "{}")
        #expect(Self.text(cache.json(Self.cold, version: 2)) == Self.cold.jsonValue.serialized())
    }

    /// A slower reply of an older version gets its own state's text; the newer stays cached.
    @Test func anOlderVersionDoesNotReplaceTheNewer() {
        let cache = StateJSONCache()
        let (warm, cold, text) = (Self.warm, Self.cold, Self.text)
        #expect(text(cache.json(warm, version: 3)) == warm.jsonValue.serialized())
        #expect(text(cache.json(cold, version: 2)) == cold.jsonValue.serialized())
        #expect(text(cache.json(cold, version: 3)) == warm.jsonValue.serialized())
    }
}

extension StateJSONCacheTests {
    /// Versions that change some values, add and drop properties: always the text of the state.
    @Test func changedValuesAndKeysGiveTheStatesText() {
        let cache = StateJSONCache()
        var state = VehicleState([.fan: .bool(true), .fanSpeed: .integer(3), .radioFrequency: .number(101.1)])
        for version in 1...40 {
            switch version % 4 {
            case 0: state[.fanSpeed] = .integer(version % 7)
            case 1: state[.audioSource] = version % 8 == 1 ? .enumeration("sourceBluetooth") : nil
            case 2: state[.radioFrequency] = .number(88.0 + Double(version) / 10)
            default: break
            }
            let bytes = cache.json(state, version: version)
            #expect(String(decoding: bytes, as: UTF8.self) == state.jsonValue.serialized(), "version \(version)")
        }
    }
}

extension StateJSONCacheTests {
    /// The same properties in another order (a state built anew, with other values): the
    /// cache walks a state in its own order and must not take one order for the other.
    @Test func theSamePropertiesInAnotherOrderGiveTheStatesText() {
        let cache = StateJSONCache()
        let keys: [PropertyKey] = [.fan, .fanSpeed, .radioFrequency, .audioSource, .airConditioner, .airCirculation]
        // A dictionary's order follows its keys' hashes and its number of buckets, not the
        // order of insertion: other capacities give the same keys other orders.
        func state(_ order: [PropertyKey], _ shift: Int, capacity: Int) -> VehicleState {
            var values = [PropertyKey: PropertyValue](minimumCapacity: capacity)
            for (index, key) in order.enumerated() { values[key] = .integer(index + shift) }
            return VehicleState(values)
        }
        var orders = Set<[PropertyKey]>()
        for version in 1...24 {
            let order = version % 2 == 0 ? keys : keys.reversed()
            let next = state(version % 3 == 0 ? order.shuffled() : order, version, capacity: [6, 24, 96, 384][version % 4])
            orders.insert(Array(next.values.keys))
            let bytes = cache.json(next, version: version)
            #expect(String(decoding: bytes, as: UTF8.self) == next.jsonValue.serialized(), "version \(version)")
        }
        #expect(orders.count > 1, "the states iterated in one order only: the test tested nothing")
    }
}

extension StateJSONCacheTests {
    /// The typed methods' grouped form: once per version, apart from the flat one.
    @Test func theGroupedStateIsCachedPerVersionToo() {
        let cache = StateJSONCache()
        let (warm, cold, text) = (Self.warm, Self.cold, Self.text)
        #expect(text(cache.groupedJSON(warm, version: 1)) == warm.groupedJSON.serialized())
        #expect(text(cache.json(warm, version: 1)) == warm.jsonValue.serialized(), "the flat form beside it")
        #expect(text(cache.groupedJSON(cold, version: 1)) == warm.groupedJSON.serialized())
        #expect(text(cache.groupedJSON(cold, version: 2)) == cold.groupedJSON.serialized())
    }
}

extension StateJSONCacheTests {
    /// Issue 34: a reload's session counts its state versions from its own start. Its
    /// replies must carry its own car's state, not the text cached for the old session:
    /// the cache belongs to the session, and a reload replaces both.
    @Test func aReloadedSessionGetsItsOwnCache() {
        func session() -> VehicleSession {
            VehicleSession(profile: Self.profile, vehicle: .inProcess(EmbeddedVehicle(VehicleSimulation(profile: Self.profile))))
        }
        let peer = PeerCredentials(pid: 1, uid: 0, gid: 0)
        let state = DaemonState(session: session(), allowedUsers: [], allowedGroups: [])
        let before = state.admit(peer).stateJSON
        #expect(Self.text(before.json(Self.warm, version: 1)) == Self.warm.jsonValue.serialized())
        #expect(Self.text(before.groupedJSON(Self.warm, version: 1)) == Self.warm.groupedJSON.serialized())
        let old = state.replace(session: session(), allowedUsers: [], allowedGroups: [], deviceLock: .none)
        let after = state.admit(peer).stateJSON
        #expect(after !== before)
        #expect(Self.text(after.json(Self.cold, version: 1)) == Self.cold.jsonValue.serialized())
        #expect(Self.text(after.groupedJSON(Self.cold, version: 1)) == Self.cold.groupedJSON.serialized())
        withExtendedLifetime(old) {}
    }
}
