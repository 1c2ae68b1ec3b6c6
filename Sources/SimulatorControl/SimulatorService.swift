import CarplayJSON
import CarplayProtocol
import Varlink
import VehicleKit
import VehicleSimulator

/// `io.carplayd.Simulator` over one simulated vehicle: its faults, what it holds, its
/// drive state and the driver's own changes (the car's panel). One implementation for
/// carplayd's embedded vehicle and carplay-ecu's `--control` socket; who may call is the
/// caller's decision (`SimulatorAccess`), made before `handle`.
public struct SimulatorService: Sendable {
    public static let interfaceName = "io.carplayd.Simulator"

    /// The interface text, served verbatim: docs/io.carplayd.Simulator.varlink.
    public static let interfaceDescription = InterfaceTexts.simulator

    public let vehicle: SimulatedVehicleNode
    /// The vehicle's profile (the panel's limits).
    public let profile: VehicleProfile

    public init(vehicle: SimulatedVehicleNode, profile: VehicleProfile) {
        self.vehicle = vehicle
        self.profile = profile
    }

    /// Answers one call of the interface, once its parameters fit the declaration (a
    /// missing, unknown or mistyped one is `InvalidParameter`, named by its path). Returns
    /// what it changed (for the caller's log), nil for a reading or a refusal.
    @discardableResult
    public func handle(_ call: VarlinkCall, replies: VarlinkReplies) -> String? {
        switch Self.methods.handler(for: call) {
        case let .success(handler): return handler(self, call, replies)
        case let .failure(refusal):
            replies.send(error: refusal.error(in: Self.interfaceName))
            return nil
        }
    }

    typealias Method = @Sendable (SimulatorService, VarlinkCall, VarlinkReplies) -> String?

    /// The qualified names of the methods served (carplayd routes these here).
    public static var methodNames: [String] { methods.methodNames }

    static let methods = VarlinkMethodTable<Method>(
        [
            "io.carplayd.Simulator.SetFaults": { service, call, replies in service.setFaults(call, replies) },
            "io.carplayd.Simulator.GetVehicle": { service, _, replies in
                service.getVehicle(replies); return nil
            },
            "io.carplayd.Simulator.SetDriveState": { service, call, replies in service.setDriveState(call, replies) },
            "io.carplayd.Simulator.SetVehicleState": { service, call, replies in service.setVehicleState(call, replies) },
        ], declaredBy: [interface])

    static let interface = VarlinkInterfaceDefinition(embedded: interfaceDescription, source: "docs/io.carplayd.Simulator.varlink")

    /// Sends the interface's error `name` with its string parameters; nil: nothing changed.
    @discardableResult
    static func refuse(_ replies: VarlinkReplies, _ name: String, _ parameters: [String: String]) -> String? {
        replies.send(error: VarlinkError("\(interfaceName).\(name)", parameters.mapValues { .string($0) }))
        return nil
    }

    /// The daemon drives a CAN interface: there is no simulated vehicle to answer.
    public static let noSimulator = VarlinkError("\(interfaceName).NoSimulator", [:])

    // MARK: - Methods

    func setFaults(_ call: VarlinkCall, _ replies: VarlinkReplies) -> String? {
        // The declaration check made plan an object.
        let plan = call.parameters["plan"]?.objectValue ?? [:]
        let faults: FaultPlan
        do {
            faults = try FaultPlan(json: JSONNode(value: .object(plan), path: "plan", file: "SetFaults"))
        } catch {
            return Self.refuse(replies, "InvalidFaultPlan", ["reason": error.description])
        }
        vehicle.setFaults(faults)
        replies.send(VarlinkReply(parameters: SetFaultsReply().json))
        return "fault plan \(faults.isEmpty ? "cleared" : faults.rules.map(\.description).joined(separator: "; "))"
    }

    func getVehicle(_ replies: VarlinkReplies) {
        let reply = GetVehicleReply(
            state: vehicle.state(), faultPlan: vehicle.faults().jsonValue, statistics: vehicle.statistics().jsonValue, drive: vehicle.driveState())
        replies.send(VarlinkReply(parameters: reply.json))
    }

    func setDriveState(_ call: VarlinkCall, _ replies: VarlinkReplies) -> String? {
        func invalid(_ parameter: String, _ reason: String) -> String? {
            Self.refuse(replies, "InvalidDriveState", ["parameter": parameter, "reason": reason])
        }
        var drive = vehicle.driveState()
        switch call.parameters["connector"] {
        case nil, .null?: break
        case .string(PropertyKey.noConnector)?: drive.connector = nil
        case let value?:
            // The declaration check made it a string.
            let name = value.stringValue ?? ""
            guard let connector = ChargingConnectorType(rawValue: name) else {
                let names = ChargingConnectorType.allCases.map(\.rawValue) + [PropertyKey.noConnector]
                return invalid("connector", "expected one of \(names.joined(separator: ", ")), found \"\(name)\"")
            }
            drive.connector = connector
        }
        if let speed = call.parameters["speedKmh"]?.doubleValue { drive.speedKmh = speed }
        do {
            try vehicle.setDriveState(drive)
        } catch {
            return invalid(error.parameter, error.reason)
        }
        replies.send(VarlinkReply(parameters: SetDriveStateReply(drive: drive).json))
        return "drive state \(drive.connector.map { "plugged in (\($0.rawValue))" } ?? "unplugged"), \(drive.speedKmh) km/h"
    }

    /// The driver's own change: checked against the car (`panelValues`), then applied with
    /// `override`, so the vehicle sends the status frames and the daemon learns of it only
    /// from the bus. Replies with the values as applied (snapped to the car's steps).
    func setVehicleState(_ call: VarlinkCall, _ replies: VarlinkReplies) -> String? {
        // The declaration check made values an object.
        let values = call.parameters["values"]?.objectValue ?? [:]
        // The limits are the car's as it is now (a radio frequency: the band it is on).
        switch VehicleSimulation(profile: profile, state: vehicle.state()).panelValues(values) {
        case let .failure(error): return Self.refuse(replies, "InvalidVehicleState", ["key": error.key, "reason": error.reason])
        case let .success(decoded):
            vehicle.override(decoded)
            replies.send(VarlinkReply(parameters: SetVehicleStateReply(values: VehicleState(decoded)).json))
            return "the driver set " + decoded.keys.sorted().map { "\($0.rawValue)=\(decoded[$0]!)" }.joined(separator: " ")
        }
    }
}
