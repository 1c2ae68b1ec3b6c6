import CarplayJSON
import VehicleKit

/// `INCar` in its JSON form, from the profile: what `ListCars` answers.
///
/// `{"carIdentifier": "...", "displayName": "Example Sedan", "make": ..., "model": ...,
///   "year": "2015", "color": "#1F3A5F", "headUnit": {"bluetoothIdentifier": ..., "iAP2Identifier": ...},
///   "supportedChargingConnectors": ["ccs2"], "maximumPower": {"ccs2": {"value": 150, "unit": "kilowatts"}}}`
/// Members the profile does not give are left out. `maximumPower` stands for Apple's
/// `maximumPower(forChargingConnectorType:)`, a method, so its JSON shape is carplayd's;
/// `color` is a CGColor in SiriKit, here its sRGB hex text.
public enum CarListing {
    public static func json(_ profile: VehicleProfile, identifier: String) -> JSONValue {
        let car = profile.car
        var object: [String: JSONValue] = ["carIdentifier": .string(identifier), "displayName": .string(profile.displayName)]
        if let make = car.make { object["make"] = .string(make) }
        if let model = car.model { object["model"] = .string(model) }
        if let year = car.year { object["year"] = .string(year) }
        if let color = car.color { object["color"] = .string(color) }
        if let headUnit = car.headUnit {
            var unit: [String: JSONValue] = [:]
            if let bluetooth = headUnit.bluetoothIdentifier { unit["bluetoothIdentifier"] = .string(bluetooth) }
            if let iAP2 = headUnit.iAP2Identifier { unit["iAP2Identifier"] = .string(iAP2) }
            object["headUnit"] = .object(unit)
        }
        object["supportedChargingConnectors"] = .array(car.chargingConnectors.map { .string($0.type.rawValue) })
        var power: [String: JSONValue] = [:]
        for connector in car.chargingConnectors {
            if let kilowatts = connector.maximumPowerKilowatts { power[connector.type.rawValue] = ["value": .number(kilowatts), "unit": "kilowatts"] }
        }
        if !power.isEmpty { object["maximumPower"] = .object(power) }
        return .object(object)
    }
}
