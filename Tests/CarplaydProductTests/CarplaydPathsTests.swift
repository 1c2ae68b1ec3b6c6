import Testing

@testable import CarplaydProduct

/// Where the daemon and its clients look for the socket and the state, by who runs them.
@Suite struct CarplaydPathsTests {
    @Test func theSocketFollowsTheVariableThenTheUser() {
        #expect(CarplaydPaths.defaultSocket(environment: ["CARPLAYD_SOCKET": "/x/s"], uid: 1000) == "/x/s")
        #expect(CarplaydPaths.defaultSocket(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], uid: 1000) == "/run/user/1000/carplayd/io.carplayd.Vehicle")
        #expect(CarplaydPaths.defaultSocket(environment: [:], uid: 1000) == "/tmp/carplayd-1000/io.carplayd.Vehicle")
        #expect(CarplaydPaths.defaultSocket(environment: ["XDG_RUNTIME_DIR": "/run/user/0"], uid: 0) == "/run/carplayd/io.carplayd.Vehicle")
    }

    @Test func theStateFollowsSystemdThenTheUser() {
        #expect(CarplaydPaths.defaultStateDirectory(environment: ["STATE_DIRECTORY": "/var/lib/a:/var/lib/b"], uid: 0) == "/var/lib/a")
        #expect(CarplaydPaths.defaultStateDirectory(environment: [:], uid: 0) == "/var/lib/carplayd")
        #expect(CarplaydPaths.defaultStateDirectory(environment: ["XDG_STATE_HOME": "/h/s"], uid: 5) == "/h/s/carplayd")
        #expect(CarplaydPaths.defaultStateDirectory(environment: ["HOME": "/h"], uid: 5) == "/h/.local/state/carplayd")
    }

    @Test func theVersionIsSemantic() {
        let parts = CarplaydVersion.current.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "\(CarplaydVersion.current)")
    }
}
