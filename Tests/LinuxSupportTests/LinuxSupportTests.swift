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
}
