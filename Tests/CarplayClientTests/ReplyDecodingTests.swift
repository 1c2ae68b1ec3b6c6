import CANBus
import CANKit
import CarIntents
import CarplayClient
import CarplayJSON
import CarplayProtocol
import Testing
import Varlink
import VehicleKit

/// Replies as carplayd writes them decode into typed values; a reply that does not fit
/// names the method and the member's JSON path; every declared error has its case.
@Suite struct ReplyDecodingTests {
    static func object(_ text: String) throws -> [String: JSONValue] {
        try #require(try JSONValue(parsing: text).objectValue)
    }

    static let getState =
        #"{"state":{"climate.temperature.left":21.5,"lock.locked":false,"audio.source":"sourceRadio"},"reachable":true,"bus":{"interface":"vcan0","kind":"socketcan","untrustedFrames":2,"state":"error-passive","droppedFrames":1,"errorFrames":4,"restarts":0,"lastError":"bus-off"}}"#

    @Test func getState() throws {
        let reply = try GetStateReply(Self.object(Self.getState))
        #expect(reply.reachable && reply.state["climate.temperature.left"] == .number(21.5) && reply.state.count == 3)
        #expect(reply.bus.interface == "vcan0" && reply.bus.kind == "socketcan" && reply.bus.untrustedFrames == 2)
        var health = BusHealth()
        health.state = .errorPassive
        health.droppedFrames = 1
        health.errorFrames = 4
        health.lastError = "bus-off"
        #expect(reply.bus.health == health)
        #expect(reply.json == (try Self.object(Self.getState)), "kept as it came, for --json")
    }

    @Test func aMissingMemberIsNamedByItsPath() throws {
        var members = try Self.object(Self.getState)
        var bus = try #require(members["bus"]?.objectValue)
        bus["restarts"] = nil
        members["bus"] = .object(bus)
        #expect(
            throws: JSONContentError(file: "io.carplayd.Vehicle.GetState", path: "bus.restarts", reason: "missing required key \"restarts\"")
        ) { try GetStateReply(members) }
        #expect(throws: JSONContentError(file: "io.carplayd.Vehicle.GetState", path: "reachable", reason: "expected true or false, found a string")) {
            try GetStateReply(members.merging(["reachable": "yes"]) { $1 })
        }
    }

    @Test func anUnknownMemberIsLeftAlone() throws {
        // A newer daemon may add members.
        var members = try Self.object(Self.getState)
        members["odometer"] = 12345
        #expect(try GetStateReply(members).reachable)
    }

    static let perform =
        #"{"resolutions":{"temperature":{"kind":"confirmationRequired","value":{"value":28.0,"unit":"celsius"},"reason":"above the maximum"},"climateZone":{"kind":"success","value":["left"]},"carName":{"kind":"notRequired"}},"response":{"code":"success"},"frames":["(1700000000.000100) vcan0 3A0#2D00"],"state":{"climate.temperature.left":28.0}}"#

    @Test func perform() throws {
        let reply = try PerformReply(Self.object(Self.perform))
        #expect(reply.resolutions["temperature"] == .confirmationRequired(["value": 28.0, "unit": "celsius"], reason: "above the maximum"))
        #expect(reply.resolutions["climateZone"] == .success(["left"]) && reply.resolutions["carName"] == .notRequired)
        #expect(reply.response.code == .success && reply.response.reason == nil && reply.response.powerLevel.fuelPercentRemaining == nil)
        #expect(reply.frames == ["(1700000000.000100) vcan0 3A0#2D00"] && reply.state == ["climate.temperature.left": 28.0])
    }

    @Test func aResolutionThatDoesNotFitIsNamed() throws {
        var members = try Self.object(Self.perform)
        members["resolutions"] = ["seat": ["kind": "needsValue"]]
        #expect(throws: JSONContentError(file: "io.carplayd.Vehicle.Perform", path: "resolutions.seat.reason", reason: "missing required key \"reason\"")) {
            try PerformReply(members)
        }
        members["resolutions"] = [:]
        members["response"] = ["code": "maybe"]
        #expect(throws: JSONContentError.self) { try PerformReply(members) }
        #expect(throws: JSONContentError(file: "io.carplayd.Vehicle.Resolve", path: "ready", reason: "missing required key \"ready\"")) {
            try ResolveReply(["resolutions": [:]])
        }
    }

    @Test func theIntentsOwnResponseMembers() throws {
        let power = try IntentResponse(
            json: JSONNode(
                value: [
                    "code": "success", "fuelPercentRemaining": 0.62, "distanceRemaining": ["value": 420.0, "unit": "kilometers"], "charging": false,
                    "minutesToFull": 0, "activeConnector": "ccs2", "dateOfLastStateUpdate": "2026-12-01T14:24:13.250Z",
                ], file: "test"))
        #expect(power.powerLevel.fuelPercentRemaining == 0.62 && power.powerLevel.distanceRemaining?.value == 420)
        #expect(power.powerLevel.distanceRemaining?.unit == .kilometers && power.powerLevel.activeConnector == .ccs2)
        #expect(power.powerLevel.charging == false && power.powerLevel.minutesToFull == 0)

        let cars = try IntentResponse(
            json: JSONNode(
                value: [
                    "code": "success",
                    "cars": [
                        [
                            "carIdentifier": "abc", "displayName": "Example Sedan", "year": "2015", "headUnit": ["bluetoothIdentifier": "00:11"],
                            "supportedChargingConnectors": ["ccs2"], "maximumPower": ["ccs2": ["value": 150, "unit": "kilowatts"]],
                        ]
                    ],
                ], file: "test"))
        let car = try #require(cars.cars?.first)
        #expect(car.displayName == "Example Sedan" && car.year == "2015" && car.make == nil && car.headUnit?.bluetoothIdentifier == "00:11")
        #expect(car.chargingConnectors == [CarDescription.ChargingConnector(type: .ccs2, maximumPowerKilowatts: 150)])
        // What the daemon writes is what a client reads: the three responses round-trip.
        for response in [power, cars] {
            #expect(try IntentResponse(json: JSONNode(value: response.jsonValue, file: "test")) == response)
        }

        let profile = try IntentResponse(
            json: JSONNode(
                value: ["code": "failure", "reason": "timeout", "detail": "no confirmation", "profileNumber": 2, "confirmed": ["lock.locked"], "failed": []],
                file: "test"))
        #expect(profile.code == .failure && profile.reason == "timeout" && profile.detail == "no confirmation")
        #expect(profile.profileNumber == 2 && profile.confirmed == [.locked] && profile.failed == [])
        #expect(try IntentResponse(json: JSONNode(value: profile.jsonValue, file: "test")) == profile)
        #expect(try IntentResponse(json: JSONNode(value: ["code": "success", "signals": ["audible"]], file: "test")).signals == [.audible])
        #expect(throws: JSONContentError(file: "test", path: "locked", reason: "expected true or false, found a string")) {
            try IntentResponse(json: JSONNode(value: ["code": "success", "locked": "yes"], file: "test"))
        }
    }

    @Test func monitorRepliesAreChangesOrCommands() throws {
        let change = try MonitorReply(["keys": ["lock.locked"], "state": ["lock.locked": true], "frame": "(1.0) vcan0 3F0#01"])
        #expect(change.command == nil && change.keys == ["lock.locked"] && change.state == ["lock.locked": true] && change.frame == "(1.0) vcan0 3F0#01")
        let command = try #require(
            try MonitorReply([
                "command": [
                    "id": 4, "intent": "SetSeatSettingsInCar", "targets": ["seat.frontLeft.heating": 2], "status": "failed", "reason": "timeout",
                    "detail": "late",
                ]
            ]).command)
        #expect(command.id == 4 && command.intent == .setSeatSettingsInCar && command.targets == ["seat.frontLeft.heating": 2])
        #expect(command.status == .failed && command.reason == "timeout" && command.detail == "late")
        #expect(throws: JSONContentError(file: "io.carplayd.Vehicle.Monitor", path: "command.status", reason: "missing required key \"status\"")) {
            try MonitorReply(["command": ["id": 4, "targets": [:]]])
        }
    }

    @Test func busTraffic() throws {
        let reply = try GetBusTrafficReply([
            "uptime": 10.5,
            "messages": [
                ["id": "400", "name": "ClimateStatus", "received": 100, "untrusted": 3, "sent": 0, "lastFrame": "(1.0) vcan0 400#0102"],
                ["id": "18FEF100", "received": 1, "untrusted": 0, "sent": 0],
            ],
        ])
        #expect(reply.uptime == 10.5 && reply.messages.map(\.id) == [CANID(standard: 0x400), CANID(extended: 0x18FE_F100)])
        #expect(reply.messages[0].name == "ClimateStatus" && reply.messages[0].untrusted == 3 && reply.messages[1].lastFrame == nil)
        #expect(throws: JSONContentError(file: "io.carplayd.Vehicle.GetBusTraffic", path: "messages[0].id", reason: "expected a CAN ID as candump writes it")) {
            try GetBusTrafficReply(["uptime": 1, "messages": [["id": "XYZ", "received": 0, "untrusted": 0, "sent": 0]]])
        }
    }

    @Test func theSimulatorsReplies() throws {
        let vehicle = try GetVehicleReply([
            "state": ["lock.locked": true], "faults": ["rules": [["kind": "reject"]]], "statistics": ["commandsReceived": 3],
            "drive": ["connector": "ccs2", "speedKmh": 0.0],
        ])
        #expect(vehicle.state == ["lock.locked": true] && vehicle.faultRules == [["kind": "reject"]] && vehicle.statistics["commandsReceived"] == 3)
        #expect(vehicle.drive == DriveState(connector: .ccs2, speedKmh: 0))
        #expect(try SetDriveStateReply(["connector": nil, "speedKmh": 50.0]).drive == DriveState(speedKmh: 50))
        #expect(try SetVehicleStateReply(["values": ["climate.temperature.left": 19.0]]).values == ["climate.temperature.left": 19.0])
        #expect(throws: JSONContentError(file: "io.carplayd.Simulator.SetDriveState", path: "speedKmh", reason: "missing required key \"speedKmh\"")) {
            try SetDriveStateReply(["connector": "ccs2"])
        }
    }

    /// Each error the interfaces declare, decoded to its case.
    @Test(
        arguments: [
            (
                "io.carplayd.Vehicle.InvalidParameter", ["parameter": "temperature.unit", "reason": "r"],
                .vehicle(.invalidParameter(parameter: "temperature.unit", reason: "r"))
            ),
            ("io.carplayd.Vehicle.UnknownIntent", ["intent": "Fly"], .vehicle(.unknownIntent(intent: "Fly"))),
            ("io.carplayd.Vehicle.VehicleUnavailable", ["reason": "no status frames"], .vehicle(.vehicleUnavailable(reason: "no status frames"))),
            ("io.carplayd.Vehicle.NotAuthorized", ["uid": 1000, "gid": 100], .vehicle(.notAuthorized(uid: 1000, gid: 100))),
            (
                "io.carplayd.Vehicle.RestrictedWhileLocked", ["intent": "SetCarLockStatus", "reason": "locked"],
                .vehicle(.restrictedWhileLocked(intent: "SetCarLockStatus", reason: "locked"))
            ),
            ("io.carplayd.Vehicle.CarLocked", ["intent": "SetRadioStation"], .vehicle(.carLocked(intent: "SetRadioStation"))),
            ("io.carplayd.Vehicle.BusOff", ["interface": "can0"], .vehicle(.busOff(interface: "can0"))),
            ("io.carplayd.Simulator.InvalidParameter", ["parameter": "plan", "reason": "r"], .simulator(.invalidParameter(parameter: "plan", reason: "r"))),
            ("io.carplayd.Simulator.InvalidFaultPlan", ["reason": "r"], .simulator(.invalidFaultPlan(reason: "r"))),
            ("io.carplayd.Simulator.NoSimulator", [:], .simulator(.noSimulator)),
            (
                "io.carplayd.Simulator.InvalidDriveState", ["parameter": "speedKmh", "reason": "r"],
                .simulator(.invalidDriveState(parameter: "speedKmh", reason: "r"))
            ),
            ("io.carplayd.Simulator.InvalidVehicleState", ["key": "", "reason": "r"], .simulator(.invalidVehicleState(key: "", reason: "r"))),
            ("io.carplayd.Simulator.NotAuthorized", ["uid": 1, "gid": 2], .simulator(.notAuthorized(uid: 1, gid: 2))),
            ("org.varlink.service.InterfaceNotFound", ["interface": "io.carplayd.Simulator"], .service(.interfaceNotFound(interface: "io.carplayd.Simulator"))),
            ("org.varlink.service.MethodNotFound", ["method": "io.carplayd.Vehicle.Fly"], .service(.methodNotFound(method: "io.carplayd.Vehicle.Fly"))),
            ("org.varlink.service.MethodNotImplemented", ["method": "m"], .service(.methodNotImplemented(method: "m"))),
            ("org.varlink.service.InvalidParameter", ["parameter": "p"], .service(.invalidParameter(parameter: "p", reason: nil))),
            ("org.varlink.service.PermissionDenied", [:], .service(.permissionDenied)),
            ("org.varlink.service.ExpectedMore", [:], .service(.expectedMore)),
            ("io.carplayd.Vehicle.SomethingNew", ["x": 1], .undeclared),
        ] as [(String, [String: JSONValue], DeclaredError)])
    func everyDeclaredError(_ name: String, _ parameters: [String: JSONValue], _ expected: DeclaredError) throws {
        let reply = try ErrorReply(VarlinkError(name, parameters))
        #expect(reply.error == expected)
        #expect(reply.varlinkError == VarlinkError(name, parameters), "kept as it came, for --json")
    }

    @Test func anErrorWhoseParametersDoNotFitIsNamed() {
        #expect(throws: JSONContentError(file: "io.carplayd.Vehicle.NotAuthorized", path: "gid", reason: "missing required key \"gid\"")) {
            try ErrorReply(VarlinkError("io.carplayd.Vehicle.NotAuthorized", ["uid": 1000]))
        }
    }
}
