import CANBus
import CarplayJSON
import Foundation
import SimulatorControl
import TestSupport
import Testing
import Varlink
import VehicleKit
import VehicleSimulator

@testable import CarplayDaemon
@testable import LinuxSupport

/// io.carplayd.Simulator's access rule, where it is offered, and the one implementation
/// (SimulatorService) through carplay-ecu's server on a real socket.
@Suite struct SimulatorControlTests {
    static let developer: UInt32 = 1000

    static func peer(_ uid: UInt32, _ gid: UInt32) -> PeerCredentials { PeerCredentials(pid: 1, uid: uid, gid: gid) }

    // MARK: - Who may call

    @Test func rootAndTheSimulatorsOwnUserMayByDefault() {
        let access = SimulatorAccess(ownUser: Self.developer)
        #expect(access.allows(Self.peer(0, 0)) { _, _ in [] })
        #expect(access.allows(Self.peer(Self.developer, 1000)) { _, _ in [] })
        #expect(!access.allows(Self.peer(1001, 1001)) { _, _ in [] })
        #expect(
            !access.allows(Self.peer(65534, 65534)) { _, _ in
                Issue.record("no groups configured: none looked up"); return []
            })
    }

    @Test func configuredUsersAndGroupsMay() {
        let access = SimulatorAccess(users: [1001], groups: [300], ownUser: Self.developer)
        #expect(access.allows(Self.peer(1001, 1001)) { _, _ in [] })
        #expect(access.allows(Self.peer(1002, 300)) { _, _ in [] }, "primary group")
        #expect(access.allows(Self.peer(1003, 1003)) { uid, _ in uid == 1003 ? [1003, 300] : [] }, "supplementary group")
        #expect(!access.allows(Self.peer(1004, 1004)) { _, _ in [1004, 27] })
    }

    @Test func theRefusalIsTypedAndNamesTheCaller() {
        #expect(
            SimulatorAccess.notAuthorized(Self.peer(65534, 65533))
                == VarlinkError("io.carplayd.Simulator.NotAuthorized", ["uid": .integer(65534), "gid": .integer(65533)]))
    }

    // MARK: - Where it is offered

    static func parse(_ arguments: [String], files: [String: String] = [:]) throws -> DaemonConfiguration {
        try DaemonConfiguration.parse(arguments: arguments, environment: [:]) { files[$0].map { Array($0.utf8) } }
    }

    @Test func onForTheEmbeddedVehicleNeverOnABus() throws {
        #expect(try Self.parse([]).servesSimulator)
        #expect(try Self.parse(["--simulator-control"]).servesSimulator, "the old test flag still works")
        #expect(try !Self.parse(["--no-simulator-control"]).servesSimulator)
        #expect(try !Self.parse(["--can", "vcan0"]).servesSimulator)
        #expect(try !Self.parse(["--can", "vcan0", "--simulator-control"]).servesSimulator, "absent on a real bus, whatever is asked")
    }

    @Test func theConfigFileSetsWhoAndWhether() throws {
        let text = "simulator-control = off\nsimulator-control-users = alice, bob\nsimulator-control-groups = carplay\n"
        let configuration = try Self.parse(["--config", "/c"], files: ["/c": text])
        #expect(!configuration.servesSimulator)
        #expect(configuration.simulatorControlUsers == ["alice", "bob"] && configuration.simulatorControlGroups == ["carplay"])
        #expect(try Self.parse(["--config", "/c", "--simulator-control-users", "carol"], files: ["/c": text]).simulatorControlUsers == ["carol"])
        #expect(throws: ConfigurationError.self) { try Self.parse(["--config", "/c"], files: ["/c": "simulator-control = maybe\n"]) }
        do {
            _ = try Self.parse(["--config", "/c"], files: ["/c": "simulator-control = maybe\n"])
        } catch let error as ConfigurationError {
            #expect(error.description == "/c:1: simulator-control must be on or off (or true/false, yes/no), not maybe")
        }
    }

    // MARK: - The methods, on carplay-ecu's server

    /// Calls that do not fit the declaration: each refused as InvalidParameter, by path.
    static func expectMisfitsRefused(_ client: VarlinkClient, _ interface: VarlinkInterfaceDefinition) throws {
        let misfits: [(String, [String: JSONValue], String)] = [
            ("SetDriveState", ["speedKmh": "fast"], "speedKmh"),
            ("SetDriveState", ["gear": 3], "gear"),
            ("SetFaults", [:], "plan"),
            ("SetVehicleState", ["values": ["lock.locked": false], "now": true], "now"),
            ("GetVehicle", ["verbose": true], "verbose"),
        ]
        let declared = try #require(interface.errors["InvalidParameter"])
        for misfit in misfits {
            let error = Self.remoteError { () throws(VarlinkClientError) in try client.call("io.carplayd.Simulator." + misfit.0, misfit.1) }
            let parameters = error?.parameters ?? [:]
            #expect(error?.name == "io.carplayd.Simulator.InvalidParameter", "\(misfit): \(String(describing: error))")
            #expect(parameters["parameter"] == JSONValue.string(misfit.2), "\(misfit): \(String(describing: error))")
            #expect(interface.mismatch(of: parameters, against: declared) == nil, "the error is as declared")
        }
    }

    /// The typed error a call was refused with; nil when it was accepted.
    static func remoteError(_ call: () throws(VarlinkClientError) -> [String: JSONValue]) -> VarlinkError? {
        do {
            _ = try call()
            return nil
        } catch let .remote(error) {
            return error
        } catch {
            return VarlinkError("not a remote error", ["description": .string(error.description)])
        }
    }

    @Test(.timeLimit(.minutes(1))) func theSharedServiceAppliesTheDriversChangeWithTypedReplies() async throws {
        let directory = TestPaths.repositoryRoot.appendingPathComponent("VehicleProfiles/sedan").path
        let profile = try ProfileLoader.load(directory: directory) { FileManager.default.contents(atPath: $0).map { Array($0) } }
        let bus = VirtualCANBus()
        let port = bus.makePort()
        let node = SimulatedVehicleNode(simulation: VehicleSimulation(profile: profile), port: port)
        let running = node.start()
        let server = try VarlinkTestServer(
            name: "simulator", product: "carplay-ecu", interfaces: SimulatorControlServer.interfaces,
            service: SimulatorControlServer(service: SimulatorService(vehicle: node, profile: profile), access: SimulatorAccess()) { _ in })
        let interface = try VarlinkInterfaceDefinition(parsing: SimulatorService.interfaceDescription)
        let client = try VarlinkClient(path: server.path)

        let reply = try client.call("io.carplayd.Simulator.SetVehicleState", ["values": ["climate.temperature.left": 19.2, "lock.locked": true]])
        #expect(reply == ["values": ["climate.temperature.left": 19.0, "lock.locked": true]])
        #expect(interface.mismatch(of: reply, against: try #require(interface.methods["SetVehicleState"]).output) == nil)
        #expect(node.state()[.temperature(zone: "left")] == .number(19) && node.state()[.locked] == .bool(true))

        let vehicle = try client.call("io.carplayd.Simulator.GetVehicle")
        #expect(interface.mismatch(of: vehicle, against: try #require(interface.methods["GetVehicle"]).output) == nil)
        #expect(vehicle["drive"] == ["connector": nil, "speedKmh": 0.0])

        do {
            _ = try client.call("io.carplayd.Simulator.SetVehicleState", ["values": ["seat.frontLeft.heating": 9]])
            Issue.record("accepted a level beyond the seat's")
        } catch let .remote(error) {
            #expect(error == VarlinkError("io.carplayd.Simulator.InvalidVehicleState", ["key": "seat.frontLeft.heating", "reason": "9 outside 0...3"]))
        }
        #expect(node.state()[.temperature(zone: "left")] == .number(19), "refused: nothing changed")

        // A call that does not fit the declaration is refused before the method runs,
        // by the parameter's path, the same for every method.
        try Self.expectMisfitsRefused(client, interface)
        #expect(node.state()[.locked] == .bool(true), "refused: nothing changed")
        #expect(node.driveState().speedKmh == 0)
        running.cancel()
        port.close()
        _ = await running.value
    }
}
