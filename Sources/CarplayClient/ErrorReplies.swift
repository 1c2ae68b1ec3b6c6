import CarIntents
import CarplayJSON
import Varlink

/// What a call to carplayd can fail with.
public enum CarplaydClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing listens at the socket, or there is none.
    case cannotConnect(path: String, reason: String)
    /// The connection broke, or a message could not be read.
    case connectionLost(path: String, reason: String)
    /// The service answered with an error.
    case refused(ErrorReply)
    /// A reply (or an error's parameters) that does not fit the interface.
    case unexpectedReply(JSONContentError)

    public var description: String {
        switch self {
        case let .cannotConnect(path, reason): "cannot connect to carplayd at \(path) (\(reason))"
        case let .connectionLost(path, reason): "lost the connection to carplayd at \(path): \(reason)"
        case let .refused(reply): reply.varlinkError.description
        case let .unexpectedReply(error): "carplayd's reply does not fit its interface: \(error)"
        }
    }
}

/// An error reply: as received (to print it verbatim) and as its interface declares it.
public struct ErrorReply: Sendable, Hashable {
    public var varlinkError: VarlinkError
    public var error: DeclaredError

    /// Decodes `error` by its name; the parameters of a declared error must fit its
    /// declaration (the error names the parameter's path).
    public init(_ error: VarlinkError) throws(JSONContentError) {
        varlinkError = error
        let members = try JSONNode(value: .object(error.parameters), file: error.name).object()
        self.error = try DeclaredError(name: error.name, members)
    }

    /// The InvalidParameter that carplayd answers a request its declarations refuse: what
    /// a client that reads its request through the same declarations reports before
    /// sending it.
    public init(refusing error: IntentParseError) {
        let (name, reason) = error.parameter
        varlinkError = VarlinkError("\(CarplaydClient.vehicleInterface).InvalidParameter", ["parameter": .string(name), "reason": .string(reason)])
        self.error = .vehicle(.invalidParameter(parameter: name, reason: reason))
    }
}

/// The errors the interfaces declare: io.carplayd.Vehicle's, io.carplayd.Simulator's and
/// org.varlink.service's (which every Varlink service answers).
public enum DeclaredError: Sendable, Hashable {
    case vehicle(VehicleError)
    case simulator(SimulatorError)
    case service(VarlinkServiceError)
    /// An error none of them declares (a newer daemon's).
    case undeclared

    init(name: String, _ members: JSONObject) throws(JSONContentError) {
        func string(_ key: String) throws(JSONContentError) -> String { try members.required(key).string() }
        func integer(_ key: String) throws(JSONContentError) -> Int { try members.required(key).integer() }
        switch name {
        case "io.carplayd.Vehicle.InvalidParameter": self = .vehicle(.invalidParameter(parameter: try string("parameter"), reason: try string("reason")))
        case "io.carplayd.Vehicle.UnknownIntent": self = .vehicle(.unknownIntent(intent: try string("intent")))
        case "io.carplayd.Vehicle.VehicleUnavailable": self = .vehicle(.vehicleUnavailable(reason: try string("reason")))
        case "io.carplayd.Vehicle.NotAuthorized": self = .vehicle(.notAuthorized(uid: try integer("uid"), gid: try integer("gid")))
        case "io.carplayd.Vehicle.RestrictedWhileLocked":
            self = .vehicle(.restrictedWhileLocked(intent: try string("intent"), reason: try string("reason")))
        case "io.carplayd.Vehicle.CarLocked": self = .vehicle(.carLocked(intent: try string("intent")))
        case "io.carplayd.Vehicle.BusOff": self = .vehicle(.busOff(interface: try string("interface")))
        case "io.carplayd.Simulator.InvalidParameter":
            self = .simulator(.invalidParameter(parameter: try string("parameter"), reason: try string("reason")))
        case "io.carplayd.Simulator.InvalidFaultPlan": self = .simulator(.invalidFaultPlan(reason: try string("reason")))
        case "io.carplayd.Simulator.NoSimulator": self = .simulator(.noSimulator)
        case "io.carplayd.Simulator.InvalidDriveState":
            self = .simulator(.invalidDriveState(parameter: try string("parameter"), reason: try string("reason")))
        case "io.carplayd.Simulator.InvalidVehicleState": self = .simulator(.invalidVehicleState(key: try string("key"), reason: try string("reason")))
        case "io.carplayd.Simulator.NotAuthorized": self = .simulator(.notAuthorized(uid: try integer("uid"), gid: try integer("gid")))
        case "org.varlink.service.InterfaceNotFound": self = .service(.interfaceNotFound(interface: try string("interface")))
        case "org.varlink.service.MethodNotFound": self = .service(.methodNotFound(method: try string("method")))
        case "org.varlink.service.MethodNotImplemented": self = .service(.methodNotImplemented(method: try string("method")))
        case "org.varlink.service.InvalidParameter":
            self = .service(.invalidParameter(parameter: try string("parameter"), reason: try members.optional("reason")?.string()))
        case "org.varlink.service.PermissionDenied": self = .service(.permissionDenied)
        case "org.varlink.service.ExpectedMore": self = .service(.expectedMore)
        default: self = .undeclared
        }
    }
}

/// io.carplayd.Vehicle's errors (docs/io.carplayd.Vehicle.varlink).
public enum VehicleError: Sendable, Hashable {
    /// A parameter is missing, of the wrong type, unknown or not valid for the intent.
    case invalidParameter(parameter: String, reason: String)
    /// No such intent (the generic methods).
    case unknownIntent(intent: String)
    /// The vehicle sends no status frames, or the bus is down.
    case vehicleUnavailable(reason: String)
    /// The caller's user and groups may not use the daemon.
    case notAuthorized(uid: Int, gid: Int)
    /// SiriKit's "restricted while locked": the caller's device is locked.
    case restrictedWhileLocked(intent: String, reason: String)
    /// carplayd's car-state policy: the profile refuses the intent while the car is locked.
    case carLocked(intent: String)
    /// The CAN controller is bus-off until it restarts.
    case busOff(interface: String)
}

/// io.carplayd.Simulator's errors (docs/io.carplayd.Simulator.varlink).
public enum SimulatorError: Sendable, Hashable {
    case invalidParameter(parameter: String, reason: String)
    case invalidFaultPlan(reason: String)
    /// The daemon drives a CAN interface: no simulated vehicle to control.
    case noSimulator
    case invalidDriveState(parameter: String, reason: String)
    /// `key` empty: no values at all.
    case invalidVehicleState(key: String, reason: String)
    case notAuthorized(uid: Int, gid: Int)
}

/// org.varlink.service's errors.
public enum VarlinkServiceError: Sendable, Hashable {
    case interfaceNotFound(interface: String)
    case methodNotFound(method: String)
    case methodNotImplemented(method: String)
    /// carplayd adds a reason for a message that is no valid call.
    case invalidParameter(parameter: String, reason: String?)
    case permissionDenied
    /// The method streams its replies: call it with more.
    case expectedMore
}
