import CarplayJSON
import Varlink
import VehicleKit

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

    /// Answers one call of the interface. Returns what it changed (for the caller's log),
    /// nil for a reading or a refusal.
    @discardableResult
    public func handle(_ call: VarlinkCall, replies: VarlinkReplies) -> String? {
        switch call.member {
        case "SetFaults": return setFaults(call, replies)
        case "GetVehicle": getVehicle(replies); return nil
        case "SetDriveState": return setDriveState(call, replies)
        case "SetVehicleState": return setVehicleState(call, replies)
        default:
            replies.send(error: .methodNotFound(call.method))
            return nil
        }
    }

    /// The daemon drives a CAN interface: there is no simulated vehicle to answer.
    public static let noSimulator = VarlinkError("\(interfaceName).NoSimulator", [:])

    // MARK: - Methods

    func setFaults(_ call: VarlinkCall, _ replies: VarlinkReplies) -> String? {
        func invalid(_ reason: String) -> String? {
            replies.send(error: VarlinkError("\(Self.interfaceName).InvalidFaultPlan", ["reason": .string(reason)]))
            return nil
        }
        guard case let .object(plan)? = call.parameters["plan"] else { return invalid("expected plan: an object {\"rules\": [...]}") }
        let faults: FaultPlan
        do {
            faults = try FaultPlan(json: JSONNode(value: .object(plan), path: "plan", file: "SetFaults"))
        } catch {
            return invalid(error.description)
        }
        vehicle.setFaults(faults)
        replies.send(VarlinkReply(parameters: [:]))
        return "fault plan \(faults.isEmpty ? "cleared" : faults.rules.map(\.description).joined(separator: "; "))"
    }

    func getVehicle(_ replies: VarlinkReplies) {
        replies.send(VarlinkReply(parameters: [
            "state": vehicle.state().jsonValue, "faults": vehicle.faults().jsonValue, "statistics": vehicle.statistics().jsonValue,
            "drive": Self.json(vehicle.driveState()),
        ]))
    }

    func setDriveState(_ call: VarlinkCall, _ replies: VarlinkReplies) -> String? {
        func invalid(_ parameter: String, _ reason: String) -> String? {
            replies.send(error: VarlinkError("\(Self.interfaceName).InvalidDriveState", ["parameter": .string(parameter), "reason": .string(reason)]))
            return nil
        }
        for key in call.parameters.keys.sorted() where key != "connector" && key != "speedKmh" {
            return invalid(key, "unknown parameter; expected connector and speedKmh")
        }
        var drive = vehicle.driveState()
        switch call.parameters["connector"] {
        case nil, .null?: break
        case .string(PropertyKey.noConnector)?: drive.connector = nil
        case let .string(name)?:
            guard let connector = ChargingConnectorType(rawValue: name) else {
                let names = ChargingConnectorType.allCases.map(\.rawValue) + [PropertyKey.noConnector]
                return invalid("connector", "expected one of \(names.joined(separator: ", ")), found \"\(name)\"")
            }
            drive.connector = connector
        default: return invalid("connector", "expected a connector type as a string, or \"none\"")
        }
        switch call.parameters["speedKmh"] {
        case nil, .null?: break
        case let value? where value.doubleValue != nil: drive.speedKmh = value.doubleValue!
        default: return invalid("speedKmh", "expected a number (km/h)")
        }
        do {
            try vehicle.setDriveState(drive)
        } catch {
            return invalid(error.parameter, error.reason)
        }
        replies.send(VarlinkReply(parameters: Self.json(drive).objectValue ?? [:]))
        return "drive state \(drive.connector.map { "plugged in (\($0.rawValue))" } ?? "unplugged"), \(drive.speedKmh) km/h"
    }

    /// The driver's own change: checked against the car (`panelValues`), then applied with
    /// `override`, so the vehicle sends the status frames and the daemon learns of it only
    /// from the bus. Replies with the values as applied (snapped to the car's steps).
    func setVehicleState(_ call: VarlinkCall, _ replies: VarlinkReplies) -> String? {
        func invalid(_ key: String, _ reason: String) -> String? {
            replies.send(error: VarlinkError("\(Self.interfaceName).InvalidVehicleState", ["key": .string(key), "reason": .string(reason)]))
            return nil
        }
        for key in call.parameters.keys.sorted() where key != "values" {
            return invalid(key, "unknown parameter; expected values")
        }
        guard case let .object(values)? = call.parameters["values"] else {
            return invalid("", "expected values: an object of property keys and values, e.g. {\"climate.temperature.left\": 19}")
        }
        // The limits are the car's as it is now (a radio frequency: the band it is on).
        switch VehicleSimulation(profile: profile, state: vehicle.state()).panelValues(values) {
        case let .failure(error): return invalid(error.key, error.reason)
        case let .success(decoded):
            vehicle.override(decoded)
            replies.send(VarlinkReply(parameters: ["values": VehicleState(decoded).jsonValue]))
            return "the driver set " + decoded.keys.sorted().map { "\($0.rawValue)=\(decoded[$0]!)" }.joined(separator: " ")
        }
    }

    static func json(_ drive: DriveState) -> JSONValue {
        .object(["connector": drive.connector.map { .string($0.rawValue) } ?? .null, "speedKmh": .number(drive.speedKmh)])
    }
}
