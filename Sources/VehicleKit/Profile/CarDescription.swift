/// What SiriKit's `INCar` says of the car beside its identifier and name: make, model,
/// year, colour, the head unit, and the charging connectors with their maximum power.
/// From the profile's optional `car` section (VehicleProfiles/README.md).
public struct CarDescription: Sendable, Hashable {
    public var make: String?
    public var model: String?
    /// A string, as `INCar.year` is ("2015").
    public var year: String?
    /// `INCar.color` is a CGColor; here its sRGB value as "#RRGGBB".
    public var color: String?
    public var headUnit: HeadUnit?
    /// The connectors the car charges from, with their maximum power in kW when known.
    public var chargingConnectors: [ChargingConnector] = []

    /// `INCarHeadUnit`: how a phone recognises the head unit.
    public struct HeadUnit: Sendable, Hashable {
        public var bluetoothIdentifier: String?
        public var iAP2Identifier: String?

        public init(bluetoothIdentifier: String? = nil, iAP2Identifier: String? = nil) {
            self.bluetoothIdentifier = bluetoothIdentifier
            self.iAP2Identifier = iAP2Identifier
        }
    }

    public struct ChargingConnector: Sendable, Hashable {
        public var type: ChargingConnectorType
        public var maximumPowerKilowatts: Double?

        public init(type: ChargingConnectorType, maximumPowerKilowatts: Double? = nil) {
            self.type = type
            self.maximumPowerKilowatts = maximumPowerKilowatts
        }
    }

    public static let none = CarDescription()
}

/// SiriKit's `INCarChargingConnectorType`, by its Swift names.
public enum ChargingConnectorType: String, Sendable, Hashable, CaseIterable {
    case j1772, ccs1, ccs2, chaDeMo, gbtAC, gbtDC, tesla, mennekes
}
