import CarplayJSON
import VehicleKit

// io.carplayd.Simulator's replies, one type each: SimulatorControl writes them (the
// daemon's embedded car, carplay-ecu), CarplayClient reads them.

/// io.carplayd.Simulator's GetVehicle: what the vehicle itself holds (not what its status
/// frames told the daemon), its fault plan and statistics, and its drive state.
public struct GetVehicleReply: CarplaydReply {
    public static let method = "io.carplayd.Simulator.GetVehicle"
    public var json: [String: JSONValue]
    public var state: [String: JSONValue]
    /// The fault plan's rules still in force, as docs/SIMULATION.md writes them.
    public var faultRules: [JSONValue]
    public var statistics: [String: JSONValue]
    public var drive: DriveState

    /// `faultPlan` and `statistics` as the simulator writes them (`FaultPlan.jsonValue`,
    /// `SimulationStatistics.jsonValue`).
    public init(state: VehicleState, faultPlan: JSONValue, statistics: JSONValue, drive: DriveState) {
        self.state = state.jsonValue.objectValue ?? [:]
        faultRules = faultPlan.objectValue?["rules"]?.arrayValue ?? []
        self.statistics = statistics.objectValue ?? [:]
        self.drive = drive
        json = ["state": .object(self.state), "faults": faultPlan, "statistics": statistics, "drive": drive.json]
    }

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        state = try members.required("state").members()
        faultRules = try members.required("faults").object().optional("rules")?.array().map(\.value) ?? []
        statistics = try members.required("statistics").members()
        drive = try DriveState(json: members.required("drive"))
    }
}

/// SetDriveState: the drive state after the change.
public struct SetDriveStateReply: CarplaydReply {
    public static let method = "io.carplayd.Simulator.SetDriveState"
    public var json: [String: JSONValue]
    public var drive: DriveState

    public init(drive: DriveState) {
        self.drive = drive
        json = drive.json.objectValue ?? [:]
    }

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        drive = try DriveState(json: members.node)
    }
}

/// SetVehicleState: the values the car applied (snapped to its steps).
public struct SetVehicleStateReply: CarplaydReply {
    public static let method = "io.carplayd.Simulator.SetVehicleState"
    public var json: [String: JSONValue]
    public var values: [String: JSONValue]

    public init(values: VehicleState) {
        self.values = values.jsonValue.objectValue ?? [:]
        json = ["values": .object(self.values)]
    }

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        values = try members.required("values").members()
    }
}

/// SetFaults: nothing but that it worked.
public struct SetFaultsReply: CarplaydReply {
    public static let method = "io.carplayd.Simulator.SetFaults"
    public var json: [String: JSONValue]

    public init() { json = [:] }

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
    }
}

extension DriveState {
    /// The interface's DriveState: the connector plugged in (null: none) and the speed.
    public var json: JSONValue {
        .object(["connector": connector.map { .string($0.rawValue) } ?? .null, "speedKmh": .number(speedKmh)])
    }

    public init(json node: JSONNode) throws(JSONContentError) {
        let drive = try node.object()
        self.init(
            connector: try drive.optional("connector")?.enumeration(ChargingConnectorType.self, what: "connector"),
            speedKmh: try drive.required("speedKmh").number())
    }
}
