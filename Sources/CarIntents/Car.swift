import VehicleKit

/// `INCar`, from the profile: what `ListCars` answers. Members the profile does not
/// give are nil. `color` is a CGColor in SiriKit, here its sRGB hex text; Apple's
/// `maximumPower(forChargingConnectorType:)` is each connector's `maximumPowerKilowatts`.
public struct Car: Sendable, Hashable {
    /// Stable per machine and profile, never the VIN.
    public var carIdentifier: String
    public var displayName: String
    public var make: String?
    public var model: String?
    public var year: String?
    public var color: String?
    public var headUnit: CarDescription.HeadUnit?
    /// The connectors the car charges from, in the profile's order.
    public var chargingConnectors: [CarDescription.ChargingConnector]

    public init(
        carIdentifier: String, displayName: String, make: String? = nil, model: String? = nil, year: String? = nil, color: String? = nil,
        headUnit: CarDescription.HeadUnit? = nil, chargingConnectors: [CarDescription.ChargingConnector] = []
    ) {
        self.carIdentifier = carIdentifier
        self.displayName = displayName
        self.make = make
        self.model = model
        self.year = year
        self.color = color
        self.headUnit = headUnit
        self.chargingConnectors = chargingConnectors
    }

    public init(_ profile: VehicleProfile, identifier: String) {
        let car = profile.car
        self.init(
            carIdentifier: identifier, displayName: profile.displayName, make: car.make, model: car.model, year: car.year, color: car.color,
            headUnit: car.headUnit, chargingConnectors: car.chargingConnectors)
    }
}
