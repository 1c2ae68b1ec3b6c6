import Glibc
import Testing

@testable import LinuxSupport

@Suite struct LinuxSupportTests {
    @Test func missingInterfaceHasNoFacts() {
        // A device that does not exist answers no query: every fact is "not applicable".
        let facts = CANInterfaceFacts.read(interface: "nosuchcan9")
        #expect(facts.name == "nosuchcan9")
        #expect(facts.state == nil)
        #expect(facts.restartMilliseconds == nil)
        #expect(!facts.hasController)
    }

    @Test func controllerStatesFollowKernelNumbering() {
        #expect(CANInterfaceFacts.ControllerState(netlinkValue: 3) == .busOff)
        #expect(CANInterfaceFacts.ControllerState(netlinkValue: 2) == .errorPassive)
        #expect(CANInterfaceFacts.ControllerState(netlinkValue: 99) == nil)
    }

    @Test func notifyWithoutServiceManagerIsNotDelivered() throws {
        unsetenv("NOTIFY_SOCKET")
        #expect(try SystemdNotifier().notify("STATUS=testing") == false)
    }

    @Test func errnoDescribesItself() {
        #expect(Errno(2).description.contains("No such file"))
    }

    @Test func aThreadSleepsAtLeastWhatItAskedOnTheMonotonicClock() {
        let start = ContinuousClock.now
        DetachedThread.sleep(for: .milliseconds(20))
        #expect(ContinuousClock.now - start >= .milliseconds(20))
        let now = WallClock.timeOfDay()
        #expect((0..<24).contains(now.hour) && (0..<60).contains(now.minute) && (0...60).contains(now.second))
        #expect((0..<1000).contains(now.millisecond))
    }

    @Test func theEnvironmentIsSetForTheProcess() {
        ProcessEnvironment.set("CARPLAYD_TEST_VARIABLE", to: "a=b")
        defer { unsetenv("CARPLAYD_TEST_VARIABLE") }
        #expect(ProcessEnvironment.current()["CARPLAYD_TEST_VARIABLE"] == "a=b")
    }
}
