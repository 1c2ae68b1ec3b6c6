import CANBus
import Synchronization
import Testing
import VehicleKit
import VehicleSimulator

@testable import CarIntents
@testable import EventLoops

/// carplayd gives the controller its first event loop as clock: the command's deadline is
/// then a sleeper of that loop (its epoll_wait's timeout), not a timer thread's.
@Suite struct EventLoopClockTests {
    @Test func theControllersDeadlineSleepsOnTheLoop() async throws {
        let profile = try ShippedProfiles.load("sedan")
        let loop = try EventLoop()
        defer { loop.shutdown() }
        let bus = VirtualCANBus()
        let controller = VehicleController(profile: profile, port: bus.makePort(), clock: loop)
        controller.start()
        let vehicle = SimulatedVehicleNode(simulation: VehicleSimulation(profile: profile), port: bus.makePort())
        // The wait starts before the car: a wait that holds at once arms no timer. Its
        // deadline is far off: this test's own steps run on the cooperative pool and may
        // wait there for seconds on a busy machine; the armed timer must still be there.
        let waiting = Task { await controller.waitUntilComplete(timeout: .seconds(600)) }
        // That wait's deadline armed the controller's one timer: a sleeper of the loop.
        #expect(await eventually { loop.sleeperCount == 1 })
        let car = vehicle.start()
        defer { car.cancel() }
        #expect(await waiting.value)
        #expect(loop.sleeperCount == 1, "the met wait leaves its timer armed until it is due or re-armed")
        let outcome = await controller.apply([.seat(.frontLeft, .heating): .integer(2)], timeout: .seconds(30))
        #expect(outcome.succeeded)
        #expect(loop.sleeperCount == 1, "still one timer: re-armed only for an earlier deadline")
        controller.stop()
        #expect(await eventually { loop.sleeperCount == 0 }, "stopping the controller cancels its timer")
    }

    /// What the timer does (here: GM's cyclic remote-climate request, every second) runs
    /// on the loop thread too, the thread that reads the bus: no pool thread wakes for it.
    @Test func theControllersTimerRunsOnTheLoopThread() async throws {
        let profile = try ShippedProfiles.load("gm-global-a-lowspeed")
        let id = try #require(profile.database.message(named: CyclicSendingTests.request)?.canID)
        let loop = try EventLoop()
        defer { loop.shutdown() }
        let bus = VirtualCANBus()
        let listener = bus.makePort()
        let sentOnLoop = Mutex<[Bool]>([])
        // The in-process bus delivers in the sender's thread.
        listener.startReceiving(
            CANReceiver(frame: { received in if received.frame.id == id { sentOnLoop.withLock { $0.append(loop.isCurrentThread) } } }, finished: {}))
        let controller = VehicleController(profile: profile, port: bus.makePort(), clock: loop)
        controller.start()
        #expect(await eventually { !sentOnLoop.withLock { $0 }.isEmpty }, "the first idle frame is due at start")
        controller.stop()
        #expect(sentOnLoop.withLock { $0 }.allSatisfy { $0 }, "\(sentOnLoop.withLock { $0 })")
    }

    private func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<5000 where !condition() { try? await Task.sleep(for: .milliseconds(1)) }
        return condition()
    }
}
