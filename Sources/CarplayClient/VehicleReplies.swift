import CANBus
import CANKit
import CarIntents
import CarplayJSON
import CarplayProtocol
import VehicleKit

/// Describe: the profile's capabilities, an object of the daemon's own shape (printed as
/// it comes); `VehicleDescription` reads what a client draws from it.
public struct DescribeReply: CarplaydReply {
    public static let method = "io.carplayd.Vehicle.Describe"
    public var json: [String: JSONValue]
    public var vehicle: [String: JSONValue]

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        vehicle = try members.required("vehicle").members()
    }

    /// The members of `vehicle` a client draws.
    public func description() throws(CarplaydClientError) -> VehicleDescription {
        do {
            return try VehicleDescription(json: JSONNode(value: .object(vehicle), path: "vehicle", file: Self.method))
        } catch {
            throw .unexpectedReply(error)
        }
    }
}

/// What Describe says of the vehicle that a client draws (the dash): a member it lacks
/// means the car lacks it.
public struct VehicleDescription: Sendable, Hashable {
    public struct Station: Sendable, Hashable {
        public var name: String
        public var type: RadioType
        public var frequency: Double?
        public var channel: Int?
    }

    /// The profile's display name and identifier.
    public var name: String?
    public var identifier: String?
    /// The state keys the profile binds.
    public var properties: [String]
    public var zones: [ClimateZone]
    /// The climate's temperature range in degrees Celsius.
    public var celsius: SteppedRange?
    public var fanSpeedLevels: Int?
    public var seats: [SeatCapabilities]
    public var driverSide: DriverSide?
    public var defrosters: [CarDefroster]
    /// Named stations.
    public var stations: [Station]

    public init(json node: JSONNode) throws(JSONContentError) {
        let vehicle = try node.object()
        name = try vehicle.optional("name")?.string()
        identifier = try vehicle.optional("identifier")?.string()
        properties = try vehicle.list("properties") { node throws(JSONContentError) in try node.string() }
        let climate = try vehicle.optional("climate")?.object()
        zones = try climate?.list("zones", ClimateZone.init) ?? []
        celsius = try climate?.optional("celsius").map(SteppedRange.init)
        fanSpeedLevels = try climate?.optional("fanSpeedLevels")?.integer()
        seats = try vehicle.list("seats", SeatCapabilities.init)
        driverSide = try vehicle.optional("driverSide")?.enumeration(DriverSide.self, what: "driver side")
        defrosters = try vehicle.list("defrosters") { node throws(JSONContentError) in try node.siriKitCase(CarDefroster.self, what: "defroster") }
        stations = try vehicle.optional("radio")?.object().list("stations", Station.init) ?? []
    }
}

/// The same types the profile has: Describe writes them from it.
extension ClimateZone {
    init(json node: JSONNode) throws(JSONContentError) {
        let zone = try node.object()
        self.init(
            id: try zone.required("id").string(),
            seats: try zone.list("seats") { node throws(JSONContentError) in try node.siriKitCase(CarSeat.self, what: "seat") })
    }
}

extension SeatCapabilities {
    init(json node: JSONNode) throws(JSONContentError) {
        let seat = try node.object()
        self.init(
            seat: try seat.required("seat").siriKitCase(CarSeat.self, what: "seat"), heating: try seat.optional("heating")?.integer() ?? 0,
            cooling: try seat.optional("cooling")?.integer() ?? 0, massage: try seat.optional("massage")?.integer() ?? 0)
    }
}

extension SteppedRange {
    init(json node: JSONNode) throws(JSONContentError) {
        let range = try node.object()
        self.init(min: try range.required("min").number(), max: try range.required("max").number(), step: try range.required("step").number())
    }
}

extension VehicleDescription.Station {
    init(json node: JSONNode) throws(JSONContentError) {
        let station = try node.object()
        name = try station.required("name").string()
        type = try station.required("type").siriKitCase(RadioType.self, what: "radio type")
        frequency = try station.optional("frequency")?.number()
        channel = try station.optional("channel")?.integer()
    }
}
