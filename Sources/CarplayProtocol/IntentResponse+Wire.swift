import CarIntents
import CarplayJSON
import VehicleKit

// An intent's response on the wire (docs/io.carplayd.Vehicle.varlink, CarIntentResponse
// and the intents' own response types): every member is optional and flat, so each is
// declared once below, as its name, where it lives in `IntentResponse` and how its value
// is written and read. The daemon writes with the table and clients read with it.

extension IntentResponse {
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["code": .string(code.rawValue)]
        for member in Self.common { member.write(self, &object) }
        // Most responses are CarIntentResponse's alone: the intents' own members are
        // written only when there are some.
        if self != IntentResponse(code: code, reason: reason, detail: detail) {
            for member in Self.own { member.write(self, &object) }
            for member in PowerLevel.members { member.write(powerLevel, &object) }
        }
        return .object(object)
    }

    public init(json node: JSONNode) throws(JSONContentError) {
        let response = try node.object()
        self.init(code: try response.required("code").enumeration(IntentResponseCode.self, what: "response code"))
        for member in Self.common + Self.own { try member.read(&self, response) }
        for member in PowerLevel.members { try member.read(&powerLevel, response) }
    }

    /// CarIntentResponse's members beside `code`: every intent's response has them.
    static let common: [WireMember<IntentResponse>] = [
        WireMember("reason", { $0.reason }, { $0.reason = $1 }, .string),
        WireMember("detail", { $0.detail }, { $0.detail = $1 }, .string),
    ]

    /// The members the intents' own response types add (SaveProfileInCarResponse, ...,
    /// ListCarsResponse); GetCarPowerLevelStatusResponse's are `PowerLevel.members`.
    static let own: [WireMember<IntentResponse>] = [
        WireMember("profileNumber", { $0.profileNumber }, { $0.profileNumber = $1 }, .integer),
        WireMember("profileName", { $0.profileName }, { $0.profileName = $1 }, .string),
        WireMember("settings", { $0.settings }, { $0.settings = $1 }, .integer),
        WireMember("confirmed", { $0.confirmed }, { $0.confirmed = $1 }, .list(.propertyKey)),
        WireMember("failed", { $0.failed }, { $0.failed = $1 }, .list(.propertyKey)),
        WireMember("locked", { $0.locked }, { $0.locked = $1 }, .bool),
        WireMember("signals", { $0.signals }, { $0.signals = $1 }, .list(.siriKitCase(CarSignal.self, what: "signal"))),
        WireMember("cars", { $0.cars }, { $0.cars = $1 }, .list(.car)),
    ]
}

extension PowerLevel {
    /// The date member's name, which a change of power level disregards.
    public static let dateField = "dateOfLastStateUpdate"

    static let members: [WireMember<PowerLevel>] = [
        WireMember("carIdentifier", { $0.carIdentifier }, { $0.carIdentifier = $1 }, .string),
        WireMember("fuelPercentRemaining", { $0.fuelPercentRemaining }, { $0.fuelPercentRemaining = $1 }, .number),
        WireMember("chargePercentRemaining", { $0.chargePercentRemaining }, { $0.chargePercentRemaining = $1 }, .number),
        WireMember("distanceRemaining", { $0.distanceRemaining }, { $0.distanceRemaining = $1 }, .quantity),
        WireMember("charging", { $0.charging }, { $0.charging = $1 }, .bool),
        WireMember("minutesToFull", { $0.minutesToFull }, { $0.minutesToFull = $1 }, .integer),
        WireMember("maximumDistance", { $0.maximumDistance }, { $0.maximumDistance = $1 }, .quantity),
        WireMember("distanceRemainingElectric", { $0.distanceRemainingElectric }, { $0.distanceRemainingElectric = $1 }, .quantity),
        WireMember("distanceRemainingFuel", { $0.distanceRemainingFuel }, { $0.distanceRemainingFuel = $1 }, .quantity),
        WireMember("maximumDistanceElectric", { $0.maximumDistanceElectric }, { $0.maximumDistanceElectric = $1 }, .quantity),
        WireMember("maximumDistanceFuel", { $0.maximumDistanceFuel }, { $0.maximumDistanceFuel = $1 }, .quantity),
        WireMember("consumptionFormulaArguments", { $0.consumptionFormulaArguments }, { $0.consumptionFormulaArguments = $1 }, .object),
        WireMember("chargingFormulaArguments", { $0.chargingFormulaArguments }, { $0.chargingFormulaArguments = $1 }, .object),
        WireMember(dateField, { $0.dateOfLastStateUpdate }, { $0.dateOfLastStateUpdate = $1 }, .string),
        WireMember("activeConnector", { $0.activeConnector }, { $0.activeConnector = $1 }, .enumeration(ChargingConnectorType.self, what: "connector")),
        WireMember("minimumBatteryCapacity", { $0.minimumBatteryCapacity }, { $0.minimumBatteryCapacity = $1 }, .quantity),
        WireMember("currentBatteryCapacity", { $0.currentBatteryCapacity }, { $0.currentBatteryCapacity = $1 }, .quantity),
        WireMember("maximumBatteryCapacity", { $0.maximumBatteryCapacity }, { $0.maximumBatteryCapacity = $1 }, .quantity),
    ]
}

/// One optional member of an object on the wire: absent when nil. Its value is got and
/// set by closures, not a key path: a reply writes every member of the table, and a key
/// path's projection costs far more than a closure's call (docs/BENCHMARKS.md).
struct WireMember<Root>: Sendable {
    let write: @Sendable (Root, inout [String: JSONValue]) -> Void
    let read: @Sendable (inout Root, JSONObject) throws(JSONContentError) -> Void

    init<Value>(
        _ name: String, _ get: @escaping @Sendable (Root) -> Value?, _ set: @escaping @Sendable (inout Root, Value) -> Void,
        _ codec: WireCodec<Value>
    ) {
        write = { root, object in
            if let value = get(root) { object[name] = codec.write(value) }
        }
        read = { root, object throws(JSONContentError) in
            if let node = object.optional(name) { set(&root, try codec.read(node)) }
        }
    }
}

/// How one value is written to JSON and read back.
struct WireCodec<Value>: Sendable {
    let write: @Sendable (Value) -> JSONValue
    let read: @Sendable (JSONNode) throws(JSONContentError) -> Value
}

extension WireCodec where Value == String {
    static var string: Self { Self(write: { .string($0) }, read: { node throws(JSONContentError) in try node.string() }) }
}

extension WireCodec where Value == Int {
    static var integer: Self { Self(write: { .integer($0) }, read: { node throws(JSONContentError) in try node.integer() }) }
}

extension WireCodec where Value == Double {
    static var number: Self { Self(write: { .number($0) }, read: { node throws(JSONContentError) in try node.number() }) }
}

extension WireCodec where Value == Bool {
    static var bool: Self { Self(write: { .bool($0) }, read: { node throws(JSONContentError) in try node.bool() }) }
}

extension WireCodec where Value == [String: JSONValue] {
    /// The interface's free-form `object`.
    static var object: Self { Self(write: { .object($0) }, read: { node throws(JSONContentError) in try node.members() }) }
}

extension WireCodec where Value == PropertyKey {
    static var propertyKey: Self {
        Self(write: { .string($0.rawValue) }, read: { node throws(JSONContentError) in PropertyKey(try node.string()) })
    }
}

extension WireCodec where Value == Quantity {
    /// The interface's Distance, Power and Energy: `{"value": 420, "unit": "kilometers"}`.
    static var quantity: Self {
        Self(
            write: { .object(["value": .number($0.value), "unit": .string($0.unit.rawValue)]) },
            read: { node throws(JSONContentError) in
                let quantity = try node.object()
                return Quantity(
                    value: try quantity.required("value").number(), unit: try quantity.required("unit").enumeration(Quantity.Unit.self, what: "unit"))
            })
    }
}

extension WireCodec where Value == Car {
    /// INCar: `maximumPower` stands for Apple's `maximumPower(forChargingConnectorType:)`,
    /// a method, so its shape is carplayd's: each connector's power by its name.
    static var car: Self {
        Self(
            write: { car in
                var object: [String: JSONValue] = ["carIdentifier": .string(car.carIdentifier), "displayName": .string(car.displayName)]
                for member in Car.members { member.write(car, &object) }
                object["supportedChargingConnectors"] = .array(car.chargingConnectors.map { .string($0.type.rawValue) })
                var power: [String: JSONValue] = [:]
                for connector in car.chargingConnectors {
                    if let kilowatts = connector.maximumPowerKilowatts {
                        power[connector.type.rawValue] = WireCodec<Quantity>.quantity.write(Quantity(value: kilowatts, unit: .kilowatts))
                    }
                }
                if !power.isEmpty { object["maximumPower"] = .object(power) }
                return .object(object)
            },
            read: { node throws(JSONContentError) in
                let object = try node.object()
                var car = Car(carIdentifier: try object.required("carIdentifier").string(), displayName: try object.required("displayName").string())
                for member in Car.members { try member.read(&car, object) }
                var power: [String: Double] = [:]
                for (connector, node) in try object.optional("maximumPower")?.map() ?? [] {
                    let quantity = try WireCodec<Quantity>.quantity.read(node)
                    guard quantity.unit == .kilowatts else { throw node.error("expected kilowatts, found \(quantity.unit.rawValue)") }
                    power[connector] = quantity.value
                }
                car.chargingConnectors = try object.required("supportedChargingConnectors").array { node throws(JSONContentError) in
                    let type = try node.enumeration(ChargingConnectorType.self, what: "connector")
                    return CarDescription.ChargingConnector(type: type, maximumPowerKilowatts: power[type.rawValue])
                }
                return car
            })
    }
}

extension Car {
    static let members: [WireMember<Car>] = [
        WireMember("make", { $0.make }, { $0.make = $1 }, .string),
        WireMember("model", { $0.model }, { $0.model = $1 }, .string),
        WireMember("year", { $0.year }, { $0.year = $1 }, .string),
        WireMember("color", { $0.color }, { $0.color = $1 }, .string),
        WireMember("headUnit", { $0.headUnit }, { $0.headUnit = $1 }, .headUnit),
    ]
}

extension WireCodec where Value == CarDescription.HeadUnit {
    /// INCarHeadUnit.
    static var headUnit: Self {
        Self(
            write: { unit in
                var object: [String: JSONValue] = [:]
                if let bluetooth = unit.bluetoothIdentifier { object["bluetoothIdentifier"] = .string(bluetooth) }
                if let iAP2 = unit.iAP2Identifier { object["iAP2Identifier"] = .string(iAP2) }
                return .object(object)
            },
            read: { node throws(JSONContentError) in
                let unit = try node.object()
                return CarDescription.HeadUnit(
                    bluetoothIdentifier: try unit.optional("bluetoothIdentifier")?.string(), iAP2Identifier: try unit.optional("iAP2Identifier")?.string())
            })
    }
}

extension WireCodec {
    /// An array of values.
    static func list<Element>(_ element: WireCodec<Element>) -> Self where Value == [Element] {
        Self(write: { .array($0.map(element.write)) }, read: { node throws(JSONContentError) in try node.array(element.read) })
    }

    static func enumeration(_: Value.Type, what: String) -> Self where Value: RawRepresentable & CaseIterable & Sendable, Value.RawValue == String {
        Self(write: { .string($0.rawValue) }, read: { node throws(JSONContentError) in try node.enumeration(Value.self, what: what) })
    }

    /// A SiriKit enumeration, read by any of its names.
    static func siriKitCase(_: Value.Type, what: String) -> Self where Value: SiriKitEnumeration {
        Self(write: { .string($0.rawValue) }, read: { node throws(JSONContentError) in try node.siriKitCase(Value.self, what: what) })
    }
}
