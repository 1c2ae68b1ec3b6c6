import CarplayJSON

extension VSSSignal {
    /// io.carplayd.VSS's `Signal`: what Describe and `carplayctl vss catalog --json` print.
    public var json: JSONValue {
        var entry: [String: JSONValue] = [
            "path": .string(path), "datatype": .string(datatype.rawValue), "entryType": .string(entryType.rawValue),
            "description": .string(description), "overlay": .bool(overlay), "keys": .array(keys.map { .string($0.rawValue) }),
        ]
        if let unit { entry["unit"] = .string(unit) }
        if let min { entry["min"] = .number(min) }
        if let max { entry["max"] = .number(max) }
        if let allowed { entry["allowed"] = .array(allowed.map { .string($0) }) }
        return .object(entry)
    }
}
