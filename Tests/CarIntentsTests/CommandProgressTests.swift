import CANBus
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents

/// Commands in flight as the controller's observers hear them (Monitor with commands):
/// pending before the status frames that confirm it, then confirmed or failed; only to
/// observers that asked.
@Suite struct CommandProgressTests {
    /// The events of `stream` up to and including the first that `last` accepts.
    static func collect(_ stream: AsyncStream<VehicleEvent>, until last: @escaping @Sendable (VehicleEvent) -> Bool) -> Task<[VehicleEvent], Never> {
        Task {
            var seen: [VehicleEvent] = []
            for await event in stream {
                seen.append(event)
                if last(event) { break }
            }
            return seen
        }
    }

    static func isSettled(_ event: VehicleEvent) -> Bool {
        guard case let .command(progress) = event, case .pending = progress.stage else { return event.isCommand }
        return false
    }

    @Test func aConfirmedCommandIsPendingBeforeItsStatusFrame() async throws {
        let rig = try await Rig.start("sedan", confirmationTimeout: .seconds(5))
        try await stopping(rig) { rig in
            let events = Self.collect(rig.controller.events(commands: true), until: Self.isSettled)
            let result = try await rig.perform(#"{"intent":"SetSeatSettingsInCar","parameters":{"enableHeating":true,"seat":"driver","level":2}}"#)
            #expect(result.response.code == .success, "\(result.response)")
            let seen = await events.value
            let order = seen.map(\.summary)
            let pending = try #require(order.firstIndex(of: "pending seat.frontLeft.heating=2"), "\(order)")
            let changed = try #require(order.firstIndex(of: "changed seat.frontLeft.heating"), "\(order)")
            #expect(pending < changed && order.last == "confirmed seat.frontLeft.heating=2", "\(order)")
            guard case let .command(first) = seen[pending], case let .command(settled) = seen.last! else { return }
            #expect(first.id == settled.id && first.intent == .setSeatSettingsInCar)
        }
    }

    @Test func aRejectedCommandFailsWithItsReason() async throws {
        let rig = try await Rig.start("sedan", faults: FaultPlan([FaultRule(.reject(result: nil))]), confirmationTimeout: .seconds(5))
        try await stopping(rig) { rig in
            let events = Self.collect(rig.controller.events(commands: true), until: Self.isSettled)
            let result = try await rig.perform(#"{"intent":"SetDefrosterSettingsInCar","parameters":{"enable":true,"defroster":"rear"}}"#)
            #expect(result.response.reason == "rejectedByVehicle", "\(result.response)")
            let commands = await events.value.filter(\.isCommand)
            #expect(commands.map(\.summary) == ["pending defroster.rear=true", "failed defroster.rear=true"])
            guard case let .command(failed) = commands.last, case let .failed(failure) = failed.stage else { return }
            #expect(failure.reason == "rejectedByVehicle")
        }
    }

    @Test func observersThatDidNotAskHearNoCommands() async throws {
        let rig = try await Rig.start("sedan", confirmationTimeout: .seconds(5))
        try await stopping(rig) { rig in
            let plain = Self.collect(rig.controller.events(), until: { $0.summary == "changed defroster.rear" })
            let result = try await rig.perform(#"{"intent":"SetDefrosterSettingsInCar","parameters":{"enable":true,"defroster":"rear"}}"#)
            #expect(result.response.code == .success, "\(result.response)")
            let seen = await plain.value
            #expect(seen.allSatisfy { !$0.isCommand }, "\(seen.map(\.summary))")
        }
    }
}

extension VehicleEvent {
    var isCommand: Bool {
        if case .command = self { return true }
        return false
    }

    /// "changed k1,k2", "pending k=v", "confirmed k=v", "failed k=v", "appliedLate k=v".
    var summary: String {
        switch self {
        case let .changed(change):
            return "changed " + change.keys.map(\.rawValue).joined(separator: ",")
        case let .command(progress):
            let stage =
                switch progress.stage {
                case .pending: "pending"
                case .confirmed: "confirmed"
                case .failed: "failed"
                case .appliedLate: "appliedLate"
                }
            return stage + " " + progress.targets.keys.sorted().map { "\($0.rawValue)=\(progress.targets[$0]!.jsonValue.serialized())" }.joined(separator: ",")
        }
    }
}
