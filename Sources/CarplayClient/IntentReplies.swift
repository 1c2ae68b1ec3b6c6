import CarIntents
import CarplayJSON
import CarplayProtocol
import VehicleKit

/// What the generic intent methods take: an intent as data.
public struct IntentRequest: Sendable, Hashable {
    public var intent: IntentName
    /// The intent's parameters by SiriKit's names, in their JSON form.
    public var parameters: [String: JSONValue]

    public init(_ intent: IntentName, _ parameters: [String: JSONValue]) {
        self.intent = intent
        self.parameters = parameters
    }

    public var json: [String: JSONValue] { ["intent": .string(intent.rawValue), "parameters": .object(parameters)] }
}

/// Resolve: how each parameter resolves; ready when all are success or notRequired.
public struct ResolveReply: CarplaydReply {
    public static let method = "io.carplayd.Vehicle.Resolve"
    public var json: [String: JSONValue]
    public var resolutions: [String: ResolutionResult]
    public var ready: Bool

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        resolutions = try Self.resolutions(members)
        ready = try members.required("ready").bool()
    }
}

/// Confirm: the resolutions and the response (code ready, or a failure).
public struct ConfirmReply: CarplaydReply {
    public static let method = "io.carplayd.Vehicle.Confirm"
    public var json: [String: JSONValue]
    public var resolutions: [String: ResolutionResult]
    public var response: CarIntentResponse

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        resolutions = try Self.resolutions(members)
        response = try CarIntentResponse(json: members.required("response"))
    }
}

/// Handle: the response, every frame sent and received (candump -L lines), the state after.
public struct HandleReply: CarplaydReply {
    public static let method = "io.carplayd.Vehicle.Handle"
    public var json: [String: JSONValue]
    public var response: CarIntentResponse
    public var frames: [String]
    public var state: [String: JSONValue]

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        response = try CarIntentResponse(json: members.required("response"))
        frames = try members.required("frames").strings()
        state = try members.required("state").members()
    }
}

/// Perform: all three phases' members (what `carplayctl perform --simulate` prints).
public struct PerformReply: CarplaydReply {
    public static let method = "io.carplayd.Vehicle.Perform"
    public var json: [String: JSONValue]
    public var resolutions: [String: ResolutionResult]
    public var response: CarIntentResponse
    public var frames: [String]
    public var state: [String: JSONValue]

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        resolutions = try Self.resolutions(members)
        let handled = try HandleReply(members: members)
        response = handled.response
        frames = handled.frames
        state = handled.state
    }
}

extension CarplaydReply {
    /// `resolutions`: each parameter's ResolutionResult, by name.
    static func resolutions(_ members: JSONObject) throws(JSONContentError) -> [String: ResolutionResult] {
        let object = try members.required("resolutions").object()
        var resolutions: [String: ResolutionResult] = [:]
        for name in object.fields.keys.sorted() { resolutions[name] = try ResolutionResult(json: object.required(name)) }
        return resolutions
    }
}

/// A reply's `response`: the interface's CarIntentResponse and the members the intents'
/// own response types add (SaveProfileInCarResponse, ..., ListCarsResponse), in one type
/// because the generic methods answer any intent. A member the intent's response does
/// not have is nil.
public struct CarIntentResponse: Sendable, Hashable {
    public var code: IntentResponseCode
    /// A machine-readable cause of a failure (notResolved, restrictedWhileLocked, carLocked,
    /// vehicleUnreachable, timeout, rejectedByVehicle, ...).
    public var reason: String?
    /// The cause for people.
    public var detail: String?
    /// SaveProfileInCar and SetProfileInCar: the slot and its name.
    public var profileNumber: Int?
    public var profileName: String?
    /// SaveProfileInCar: how many settings were saved.
    public var settings: Int?
    /// SetProfileInCar on a partial failure: the property keys confirmed and failed.
    public var confirmed: [String]?
    public var failed: [String]?
    /// GetCarLockStatus.
    public var locked: Bool?
    /// ActivateCarSignal: the signals activated.
    public var signals: [CarSignal]?
    /// GetCarPowerLevelStatus (empty for the other intents).
    public var powerLevel: PowerLevel
    /// ListCars.
    public var cars: [Car]?

    public init(json node: JSONNode) throws(JSONContentError) {
        let response = try node.object()
        code = try response.required("code").enumeration(IntentResponseCode.self, what: "response code")
        reason = try response.optional("reason")?.string()
        detail = try response.optional("detail")?.string()
        profileNumber = try response.optional("profileNumber")?.integer()
        profileName = try response.optional("profileName")?.string()
        settings = try response.optional("settings")?.integer()
        confirmed = try response.optional("confirmed")?.strings()
        failed = try response.optional("failed")?.strings()
        locked = try response.optional("locked")?.bool()
        signals = try response.optional("signals")?.array { node throws(JSONContentError) in try node.siriKitCase(CarSignal.self, what: "signal") }
        powerLevel = try PowerLevel(response)
        cars = try response.optional("cars")?.array(Car.init)
    }
}

/// GetCarPowerLevelStatusResponse's members (SiriKit's, iOS 14): a field the car does
/// not report is nil. Percentages are fractions 0...1.
public struct PowerLevel: Sendable, Hashable {
    public var carIdentifier: String?
    public var fuelPercentRemaining: Double?
    public var chargePercentRemaining: Double?
    public var distanceRemaining: Quantity?
    public var charging: Bool?
    public var minutesToFull: Int?
    public var maximumDistance: Quantity?
    public var distanceRemainingElectric: Quantity?
    public var distanceRemainingFuel: Quantity?
    public var maximumDistanceElectric: Quantity?
    public var maximumDistanceFuel: Quantity?
    public var consumptionFormulaArguments: [String: JSONValue]?
    public var chargingFormulaArguments: [String: JSONValue]?
    /// The newest power status frame's time, ISO 8601 UTC.
    public var dateOfLastStateUpdate: String?
    public var activeConnector: ChargingConnectorType?
    public var minimumBatteryCapacity: Quantity?
    public var currentBatteryCapacity: Quantity?
    public var maximumBatteryCapacity: Quantity?

    init(_ response: JSONObject) throws(JSONContentError) {
        func quantity(_ key: String) throws(JSONContentError) -> Quantity? { try response.optional(key).map(Quantity.init) }
        carIdentifier = try response.optional("carIdentifier")?.string()
        fuelPercentRemaining = try response.optional("fuelPercentRemaining")?.number()
        chargePercentRemaining = try response.optional("chargePercentRemaining")?.number()
        distanceRemaining = try quantity("distanceRemaining")
        charging = try response.optional("charging")?.bool()
        minutesToFull = try response.optional("minutesToFull")?.integer()
        maximumDistance = try quantity("maximumDistance")
        distanceRemainingElectric = try quantity("distanceRemainingElectric")
        distanceRemainingFuel = try quantity("distanceRemainingFuel")
        maximumDistanceElectric = try quantity("maximumDistanceElectric")
        maximumDistanceFuel = try quantity("maximumDistanceFuel")
        consumptionFormulaArguments = try response.optional("consumptionFormulaArguments")?.members()
        chargingFormulaArguments = try response.optional("chargingFormulaArguments")?.members()
        dateOfLastStateUpdate = try response.optional(PowerLevelResponse.dateField)?.string()
        activeConnector = try response.optional("activeConnector")?.enumeration(ChargingConnectorType.self, what: "connector")
        minimumBatteryCapacity = try quantity("minimumBatteryCapacity")
        currentBatteryCapacity = try quantity("currentBatteryCapacity")
        maximumBatteryCapacity = try quantity("maximumBatteryCapacity")
    }
}

/// The interface's Distance, Power and Energy (NSMeasurement as carplayd answers it):
/// a value and its unit, "kilometers", "kilowatts", "kilowattHours".
public struct Quantity: Sendable, Hashable {
    public var value: Double
    public var unit: String

    public init(json node: JSONNode) throws(JSONContentError) {
        let quantity = try node.object()
        value = try quantity.required("value").number()
        unit = try quantity.required("unit").string()
    }
}

/// INCar, as ListCars answers it (carplayd's `CarListing`).
public struct Car: Sendable, Hashable {
    /// Stable per machine and profile, never the VIN.
    public var carIdentifier: String
    public var displayName: String
    public var make: String?
    public var model: String?
    public var year: String?
    /// sRGB hex text.
    public var color: String?
    public var headUnit: HeadUnit?
    public var supportedChargingConnectors: [ChargingConnectorType]
    /// Per connector type's name.
    public var maximumPower: [String: Quantity]?

    /// INCarHeadUnit.
    public struct HeadUnit: Sendable, Hashable {
        public var bluetoothIdentifier: String?
        public var iAP2Identifier: String?
    }

    public init(json node: JSONNode) throws(JSONContentError) {
        let car = try node.object()
        carIdentifier = try car.required("carIdentifier").string()
        displayName = try car.required("displayName").string()
        make = try car.optional("make")?.string()
        model = try car.optional("model")?.string()
        year = try car.optional("year")?.string()
        color = try car.optional("color")?.string()
        headUnit = try car.optional("headUnit").map(HeadUnit.init)
        supportedChargingConnectors = try car.required("supportedChargingConnectors").array { node throws(JSONContentError) in
            try node.enumeration(ChargingConnectorType.self, what: "connector")
        }
        if let power = car.optional("maximumPower") {
            var byConnector: [String: Quantity] = [:]
            for (connector, node) in try power.map() { byConnector[connector] = try Quantity(json: node) }
            maximumPower = byConnector
        } else {
            maximumPower = nil
        }
    }
}

extension Car.HeadUnit {
    init(json node: JSONNode) throws(JSONContentError) {
        let unit = try node.object()
        bluetoothIdentifier = try unit.optional("bluetoothIdentifier")?.string()
        iAP2Identifier = try unit.optional("iAP2Identifier")?.string()
    }
}
