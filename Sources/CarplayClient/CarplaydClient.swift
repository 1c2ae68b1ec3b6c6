import CarIntents
import CarplayJSON
import CarplayProtocol
import Varlink

/// A connection to carplayd, or to carplay-ecu's `--control` socket: the methods of
/// io.carplayd.Vehicle and io.carplayd.Simulator with typed requests and replies, over
/// the blocking `VarlinkClient`. One call at a time; a stream (Monitor) holds the
/// connection until it ends, so a client that also polls opens a second one.
public final class CarplaydClient {
    public static let vehicleInterface = "io.carplayd.Vehicle"
    public static let simulatorInterface = "io.carplayd.Simulator"

    public let path: String
    private let connection: VarlinkClient

    public init(path: String) throws(CarplaydClientError) {
        self.path = path
        do {
            connection = try VarlinkClient(path: path)
        } catch {
            throw .cannotConnect(path: path, reason: "\(error)")
        }
    }

    // MARK: - io.carplayd.Vehicle

    public func describe() throws(CarplaydClientError) -> DescribeReply { try request([:]) }

    public func getState() throws(CarplaydClientError) -> GetStateReply { try request([:]) }

    public func getBusTraffic() throws(CarplaydClientError) -> GetBusTrafficReply { try request([:]) }

    public func resolve(_ intent: Intent) throws(CarplaydClientError) -> ResolveReply { try request(intent.jsonMembers) }

    public func confirm(_ intent: Intent) throws(CarplaydClientError) -> ConfirmReply { try request(intent.jsonMembers) }

    public func handle(_ intent: Intent) throws(CarplaydClientError) -> HandleReply { try request(intent.jsonMembers) }

    public func perform(_ intent: Intent) throws(CarplaydClientError) -> PerformReply { try request(intent.jsonMembers) }

    /// Monitor: `body` gets each reply until the daemon ends the stream or `body` returns
    /// false. With `commands`, also the progress of every client's commands.
    public func monitor(commands: Bool, _ body: (MonitorReply) -> Bool) throws(CarplaydClientError) {
        var mismatch: JSONContentError?
        try callMore(MonitorReply.method, commands ? ["commands": .bool(true)] : [:]) { parameters in
            do throws(JSONContentError) {
                return body(try MonitorReply(parameters))
            } catch {
                mismatch = error
                return false
            }
        }
        if let mismatch { throw .unexpectedReply(mismatch) }
    }

    // MARK: - io.carplayd.VSS

    /// What this car binds by VSS path.
    public func describeVSS() throws(CarplaydClientError) -> VSSDescribeReply { try request([:]) }

    /// The values of `paths` (every signal when nil) in VSS's units.
    public func getVSS(paths: [String]? = nil) throws(CarplaydClientError) -> VSSGetReply {
        try request(paths.map { ["paths": .array($0.map { .string($0) })] } ?? [:])
    }

    // MARK: - io.carplayd.Simulator

    /// Replaces the simulated vehicle's fault plan (docs/SIMULATION.md); `{"rules": []}` clears it.
    public func setFaults(_ plan: [String: JSONValue]) throws(CarplaydClientError) -> SetFaultsReply { try request(["plan": .object(plan)]) }

    public func getVehicle() throws(CarplaydClientError) -> GetVehicleReply { try request([:]) }

    /// Plugs in at `connector` (a ChargingConnectorType's name, or "none" to unplug) and
    /// drives at `speedKmh`; nil leaves either as it is.
    public func setDriveState(connector: String? = nil, speedKmh: Double? = nil) throws(CarplaydClientError) -> SetDriveStateReply {
        var parameters: [String: JSONValue] = [:]
        if let connector { parameters["connector"] = .string(connector) }
        if let speedKmh { parameters["speedKmh"] = .number(speedKmh) }
        return try request(parameters)
    }

    /// The car's own panel: property keys and values, all applied or none.
    public func setVehicleState(_ values: [String: JSONValue]) throws(CarplaydClientError) -> SetVehicleStateReply {
        try request(["values": .object(values)])
    }

    // MARK: - Any method

    /// `method` qualified: a name without a dot is io.carplayd.Vehicle's.
    public static func qualified(_ method: String) -> String { method.contains(".") ? method : "\(vehicleInterface).\(method)" }

    /// Calls `method` (see `qualified`) and returns the reply's parameters as they came.
    public func call(_ method: String, _ parameters: [String: JSONValue] = [:]) throws(CarplaydClientError) -> [String: JSONValue] {
        do {
            return try connection.call(Self.qualified(method), parameters)
        } catch {
            throw translate(error)
        }
    }

    /// Calls `method` with more; `body` gets each reply's parameters until the last or
    /// until it returns false.
    public func callMore(_ method: String, _ parameters: [String: JSONValue] = [:], _ body: ([String: JSONValue]) -> Bool) throws(CarplaydClientError) {
        do {
            try connection.callMore(Self.qualified(method), parameters, body)
        } catch {
            throw translate(error)
        }
    }

    private func request<Reply: CarplaydReply>(_ parameters: [String: JSONValue]) throws(CarplaydClientError) -> Reply {
        let reply = try call(Reply.method, parameters)
        do {
            return try Reply(reply)
        } catch {
            throw .unexpectedReply(error)
        }
    }

    private func translate(_ error: VarlinkClientError) -> CarplaydClientError {
        switch error {
        case let .remote(remote):
            do {
                return .refused(try ErrorReply(remote))
            } catch {
                return .unexpectedReply(error)
            }
        case let .transport(reason):
            return .connectionLost(path: path, reason: reason)
        }
    }
}
