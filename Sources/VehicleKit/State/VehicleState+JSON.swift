import CarplayJSON

extension PropertyValue {
    /// The JSON form of a state value: booleans, integers, numbers, enumeration case names.
    public var jsonValue: JSONValue {
        switch self {
        case let .bool(flag): .bool(flag)
        case let .integer(number): .integer(number)
        case let .number(number): .number(number)
        case let .enumeration(text): .string(text)
        }
    }

    /// A value of `kind` from its JSON form (a number may be written `21`); nil when the
    /// JSON is not one.
    public init?(json: JSONValue, kind: PropertyKind) {
        switch (kind, json) {
        case (.bool, let .bool(flag)): self = .bool(flag)
        case (.integer, let .integer(number)): self = .integer(number)
        case (.number, let .integer(number)): self = .number(Double(number))
        case (.number, let .number(number)): self = .number(number)
        case (let .enumeration(cases), let .string(text)):
            guard let name = cases.name(text) else { return nil }
            self = .enumeration(name)
        default: return nil
        }
    }
}

extension VehicleState {
    /// `{"climate.temperature.left": 21.5, "lock.locked": false, …}`.
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [:]
        for key in keys { object[key.rawValue] = self[key]!.jsonValue }
        return .object(object)
    }

    /// The same state grouped by the key's dot-separated parts, as the typed Varlink
    /// methods answer it: `{"climate": {"temperature": {"left": 21.5}}, "lock": {"locked": false}}`.
    /// One key of the vocabulary is a prefix of others: `climate.climateControl` (the
    /// whole car's switch) and `climate.climateControl.<zone>` (each zone's), so the zones'
    /// go under `climate.climateControlZones`.
    public var groupedJSON: JSONValue {
        var root: [String: JSONValue] = [:]
        for key in keys {
            var parts = key.rawValue.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if parts.count == 3, parts[0] == "climate", parts[1] == "climateControl" { parts[1] = "climateControlZones" }
            Self.insert(self[key]!.jsonValue, at: parts[...], into: &root)
        }
        return .object(root)
    }

    private static func insert(_ value: JSONValue, at path: ArraySlice<String>, into object: inout [String: JSONValue]) {
        guard let first = path.first else { return }
        if path.count == 1 {
            object[first] = value
            return
        }
        var child = object[first]?.objectValue ?? [:]
        insert(value, at: path.dropFirst(), into: &child)
        object[first] = .object(child)
    }

    /// The state in its JSON form, each value checked against its key's kind (what
    /// `--state` flags and saved car profiles hold).
    public init(json node: JSONNode) throws(JSONContentError) {
        self.init()
        for (name, value) in try node.map() {
            let key = PropertyKey(name)
            guard let kind = key.kind else { throw value.error("unknown property \(name) (VehicleProfiles/README.md lists them)") }
            guard let parsed = PropertyValue(json: value.value, kind: kind) else {
                throw value.error("\(value.value.serialized(sortedKeys: true)) is not a valid value of \(name)")
            }
            self[key] = parsed
        }
    }
}
