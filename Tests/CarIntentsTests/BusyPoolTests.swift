import CANBus
import CANKit
import Foundation
import Synchronization
import TestSupport
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents

/// Issue 34: on a loaded 2-core machine, a simulated car sent nothing for ten seconds. Its
/// status cycle slept on Swift's cooperative pool, and two long synchronous tests held both
/// of the pool's threads. What must happen on time -- the car's status cycle, the head
/// unit's cyclic frames and deadlines -- runs on a loop thread of its own, which these
/// tests show by holding the whole pool on purpose (real time: the bounds are generous).
@Suite(.serialized) struct BusyPoolTests {
    /// Frames on `bus` with the time they were sent (the in-process bus delivers on the
    /// sender's thread, which is the point: not the pool).
    final class Recorder: Sendable {
        let port: any CANPort
        private let seen = Mutex<[(id: CANID, at: ContinuousClock.Instant)]>([])

        init(bus: VirtualCANBus) {
            port = bus.makePort()
            port.startReceiving(CANReceiver(frame: { [weak self] received in self?.record(received.frame.id) }, finished: {}))
        }

        private func record(_ id: CANID) { seen.withLock { $0.append((id, .now)) } }

        func count(of ids: Set<CANID>, from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Int {
            seen.withLock { $0.filter { ids.contains($0.id) && $0.at >= start && $0.at <= end }.count }
        }
    }

    /// The pool held for `duration`, from a thread of the test's own; what `during` reads
    /// right at the end of it, before the pool is free again.
    static func holdingThePool<T: Sendable>(
        for duration: Duration = .milliseconds(2500), _ during: @escaping @Sendable () -> T
    ) async throws -> (CooperativePool.Hold, T) {
        let result = try await CooperativePool.offThePool { () -> (CooperativePool.Hold, T) in
            let hold = CooperativePool.hold(for: duration)
            return (hold, during())
        }
        #expect(result.0.heldUntil - result.0.heldFrom >= .seconds(1), "the pool was held for \(result.0.heldUntil - result.0.heldFrom) only")
        return result
    }

    @Test func theSimulatedCarKeepsItsStatusCycleWhileThePoolIsHeld() async throws {
        let profile = try ShippedProfiles.load("sedan")
        let embedded = EmbeddedVehicle(VehicleSimulation(profile: profile))
        let recorder = Recorder(bus: embedded.bus)
        let session = VehicleSession(profile: profile, vehicle: .inProcess(embedded))
        try await stopping(session) { session in
            #expect(await session.controller.waitUntilComplete(timeout: .seconds(60)))
            let (hold, reachable) = try await Self.holdingThePool { session.controller.snapshot().reachable }
            let status = Set(session.controller.traffic().messages.filter { $0.received > 0 }.map(\.id))
            let frames = recorder.count(of: status, from: hold.heldFrom, to: hold.heldUntil)
            // The sedan's status messages cycle at 100 ms or faster: dozens in a second.
            #expect(frames >= 5, "\(frames) status frames while the pool was held for \(hold.heldUntil - hold.heldFrom)")
            #expect(reachable, "the head unit lost the car while the pool was held")
        }
    }

    /// GM's remote-climate request is cyclic at 1 s: the head unit keeps sending it.
    @Test func theHeadUnitsCyclicFramesGoOutWhileThePoolIsHeld() async throws {
        let profile = try ShippedProfiles.load("gm-global-a-lowspeed")
        let id = try #require(profile.database.message(named: CyclicSendingTests.request)?.canID)
        let bus = VirtualCANBus()
        let recorder = Recorder(bus: bus)
        let controller = VehicleController(profile: profile, port: bus.makePort())
        controller.start()
        defer { controller.stop() }
        let (hold, _) = try await Self.holdingThePool(for: .seconds(3)) {}
        let held = hold.heldUntil - hold.heldFrom
        let frames = recorder.count(of: [id], from: hold.heldFrom, to: hold.heldUntil)
        // Every whole second of the hold holds a frame, however late the loop woke.
        #expect(frames >= max(Int((held / .seconds(1)).rounded(.down)), 1), "\(frames) cyclic frames while the pool was held for \(held)")
    }
}
