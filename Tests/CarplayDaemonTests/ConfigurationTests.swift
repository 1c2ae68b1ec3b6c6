import Foundation
import TestSupport
import Testing

@testable import CarplayDaemon

@Suite struct ConfigurationTests {
    @Test func interfaceDescriptionIsServedVerbatimFromTheRepositoryFile() throws {
        let file = try String(contentsOf: TestPaths.repository("docs/io.carplayd.Vehicle.varlink"), encoding: .utf8)
        #expect(VehicleInterface.description == file)
        let simulator = try String(contentsOf: TestPaths.repository("docs/io.carplayd.Simulator.varlink"), encoding: .utf8)
        #expect(SimulatorInterface.description == simulator)
        #expect(simulator.contains("interface io.carplayd.Simulator\n"))
    }

    @Test func commandLineOverridesTheConfigFile() throws {
        let files = [
            "/etc/test.conf": Array(
                """
                # comment
                profile = /profiles/suv
                socket = /run/x.sock   # trailing comment
                allow-users = alice, bob
                log-level = warning
                """.utf8)
        ]
        let configuration = try DaemonConfiguration.parse(
            arguments: ["--config", "/etc/test.conf", "--socket", "/tmp/y.sock", "--allow-group", "carplay"], environment: [:]
        ) { files[$0] }
        #expect(configuration.profile == "/profiles/suv")
        #expect(configuration.socket == "/tmp/y.sock")
        #expect(configuration.allowedUsers == ["alice", "bob"])
        #expect(configuration.allowedGroups == ["carplay"])
        #expect(configuration.logLevel == .warning)
        #expect(configuration.configFile == "/etc/test.conf")
    }

    @Test func badConfigNamesFileAndLine() {
        let files = ["/c": Array("profile = a\nfrobnicate = yes\n".utf8)]
        #expect {
            try DaemonConfiguration.parse(arguments: ["--config", "/c"], environment: [:]) { files[$0] }
        } throws: { error in
            "\(error)".hasPrefix("/c:2: unknown key \"frobnicate\"")
        }
        #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration.parse(arguments: ["--log-level", "loud"], environment: [:]) { _ in nil }
        }
        #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration.parse(arguments: ["--bogus"], environment: [:]) { _ in nil }
        }
    }

    @Test func defaultPaths() throws {
        let root = try DaemonConfiguration.parse(arguments: [], environment: [:]) { _ in nil }
        #expect(root.socket.hasSuffix("/io.carplayd.Vehicle"))
        let user = try DaemonConfiguration.parse(arguments: [], environment: ["XDG_RUNTIME_DIR": "/run/user/1000", "CARPLAYD_SOCKET": ""]) { _ in nil }
        if getuid() != 0 {
            #expect(user.socket == "/run/user/1000/carplayd/io.carplayd.Vehicle")
        } else {
            #expect(user.socket == "/run/carplayd/io.carplayd.Vehicle")
            #expect(user.stateDirectory == "/var/lib/carplayd")
        }
    }
}
