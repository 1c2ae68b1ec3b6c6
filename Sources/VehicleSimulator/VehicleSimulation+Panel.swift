import CarplayJSON
import VehicleKit

/// The car's own panel: values the driver sets (a knob, a seat button, the key fob, the
/// fuel falling), checked as the car's controls allow before `override` applies them.
/// The same limits as a command (a driver cannot turn the knob past the car's range
/// either), plus the status-only properties a test rig sets (fuel, charge, cabin).
public struct PanelValueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The property key as given.
    public var key: String
    public var reason: String

    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }

    public var description: String { "\(key): \(reason)" }
}

extension VehicleSimulation {
    /// `{"climate.temperature.left": 19, "lock.locked": true}` as the values to override:
    /// each key of the vocabulary, its value of the key's kind (`PropertyValue(json:kind:)`,
    /// as `--state` reads them), a property the profile binds, within the car's limits
    /// (numbers snapped to its step). All or nothing: the first error, keys in order.
    public func panelValues(_ values: [String: JSONValue]) -> Result<[PropertyKey: PropertyValue], PanelValueError> {
        guard !values.isEmpty else { return .failure(PanelValueError(key: "", reason: "no values: give at least one property key and value")) }
        var decoded: [PropertyKey: PropertyValue] = [:]
        for name in values.keys.sorted() {
            let key = PropertyKey(name)
            func fail(_ reason: String) -> Result<[PropertyKey: PropertyValue], PanelValueError> { .failure(PanelValueError(key: name, reason: reason)) }
            guard let kind = key.kind else { return fail("unknown property (VehicleProfiles/README.md lists them)") }
            guard let value = PropertyValue(json: values[name]!, kind: kind) else {
                return fail("expected \(Self.expected(kind)), found \(values[name]!.serialized(sortedKeys: true))")
            }
            guard profile.bindings[key] != nil else { return fail("this car has no such property (the profile binds no signal to it)") }
            var checked = value
            if let reason = panelCheck(key, &checked, in: decoded) { return fail(reason) }
            decoded[key] = checked
        }
        return .success(decoded)
    }

    /// Why the car would not take `value` for `key` (nil: it would; `value` snapped).
    private func panelCheck(_ key: PropertyKey, _ value: inout PropertyValue, in changes: [PropertyKey: PropertyValue]) -> String? {
        guard key.isStatusOnly else {
            switch check(key, value, in: changes) {
            case let .success(snapped): value = snapped; return nil
            // The error names the key already: "19.0 outside 16...28", not "key=19.0 outside ...".
            case let .failure(violation):
                return violation.detail.hasPrefix("\(key)=") ? String(violation.detail.dropFirst(key.rawValue.count + 1)) : violation.detail
            }
        }
        let number = value.doubleValue ?? 0
        switch key {
        case .activeConnector: return "plugging in is the drive state: SetDriveState (carplayctl car plug CONNECTOR|none)"
        case .charging: return nil
        case .fuelPercent, .chargePercent: return (0...100).contains(number) ? nil : "outside 0...100 %"
        case .cabinTemperature, .outsideTemperature: return (-40...85).contains(number) ? nil : "outside -40...85 °C"
        case .autoDefog: return nil
        default: return number >= 0 ? nil : "must not be negative"
        }
    }

    private static func expected(_ kind: PropertyKind) -> String {
        switch kind {
        case .bool: "true or false"
        case .integer: "an integer"
        case .number: "a number"
        case let .enumeration(cases): "one of \(cases.names.joined(separator: ", "))"
        }
    }
}
