import CarplayJSON
import VehicleKit

// io.carplayd.VSS's replies (docs/io.carplayd.VSS.varlink), one type each: carplayd writes
// them, carplayctl reads them, and carplayd-kuksa reads the same members in Python.

/// The interface's `Signal`: one VSS path as this car carries it, with VSS's metadata and
/// the carplayd property keys it reads.
public struct VSSSignalDescription: Sendable, Hashable {
    public var path: String
    public var datatype: VSSDatatype
    public var entryType: VSSEntryType
    public var unit: String?
    public var min: Double?
    public var max: Double?
    public var allowed: [String]?
    public var description: String
    /// From carplayd's overlay (vss/carplayd.vspec) rather than the standard catalog.
    public var overlay: Bool
    public var keys: [String]

    public init(_ signal: VSSSignal) {
        path = signal.path
        datatype = signal.datatype
        entryType = signal.entryType
        unit = signal.unit
        min = signal.min
        max = signal.max
        allowed = signal.allowed
        description = signal.description
        overlay = signal.overlay
        keys = signal.keys.map(\.rawValue)
    }

    public var json: JSONValue {
        var entry: [String: JSONValue] = [
            "path": .string(path), "datatype": .string(datatype.rawValue), "entryType": .string(entryType.rawValue),
            "description": .string(description), "overlay": .bool(overlay), "keys": .array(keys.map { .string($0) }),
        ]
        if let unit { entry["unit"] = .string(unit) }
        if let min { entry["min"] = .number(min) }
        if let max { entry["max"] = .number(max) }
        if let allowed { entry["allowed"] = .array(allowed.map { .string($0) }) }
        return .object(entry)
    }

    init(json node: JSONNode) throws(JSONContentError) {
        let members = try node.object()
        path = try members.required("path").string()
        datatype = try members.required("datatype").enumeration(VSSDatatype.self, what: "VSS datatype")
        entryType = try members.required("entryType").enumeration(VSSEntryType.self, what: "entry type")
        unit = try members.optional("unit")?.string()
        min = try members.optional("min")?.number()
        max = try members.optional("max")?.number()
        allowed = try members.optional("allowed")?.strings()
        description = try members.required("description").string()
        overlay = try members.required("overlay").bool()
        keys = try members.required("keys").strings()
    }
}

/// Describe: the VSS release and every signal this car's profile binds.
public struct VSSDescribeReply: CarplaydReply {
    public static let method = "io.carplayd.VSS.Describe"
    public var json: [String: JSONValue]
    public var release: String
    public var signals: [VSSSignalDescription]

    public init(release: String, signals: [VSSSignal]) {
        self.release = release
        self.signals = signals.map(VSSSignalDescription.init)
        json = ["release": .string(release), "signals": .array(self.signals.map(\.json))]
    }

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        release = try members.required("release").string()
        signals = try members.required("signals").array { node throws(JSONContentError) in try VSSSignalDescription(json: node) }
    }

    /// Property key -> the VSS paths that read it, in Describe's order.
    public var pathsByKey: [String: [String]] {
        var paths: [String: [String]] = [:]
        for signal in signals {
            for key in signal.keys { paths[key, default: []].append(signal.path) }
        }
        return paths
    }
}

/// Get: the value of each signal asked for that the car has reported (VSS's units and
/// datatypes), and whether the car is reachable.
public struct VSSGetReply: CarplaydReply {
    public static let method = "io.carplayd.VSS.Get"
    public var json: [String: JSONValue]
    public var values: [String: JSONValue]
    public var reachable: Bool

    public init(values: [String: JSONValue], reachable: Bool) {
        self.values = values
        self.reachable = reachable
        json = ["values": .object(values), "reachable": .bool(reachable)]
    }

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        values = try members.required("values").members()
        reachable = try members.required("reachable").bool()
    }
}

/// Monitor: first every subscribed value, then each change (only what changed).
public struct VSSMonitorReply: CarplaydReply {
    public static let method = "io.carplayd.VSS.Monitor"
    public var json: [String: JSONValue]
    public var values: [String: JSONValue]

    public init(values: [String: JSONValue]) {
        self.values = values
        json = ["values": .object(values)]
    }

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        values = try members.required("values").members()
    }
}

/// Actuate: the targets' values once the car confirmed them, and how long that took.
public struct VSSActuateReply: CarplaydReply {
    public static let method = "io.carplayd.VSS.Actuate"
    public var json: [String: JSONValue]
    public var values: [String: JSONValue]
    public var elapsedSeconds: Double

    public init(values: [String: JSONValue], elapsed: Duration) { self.init(values: values, elapsedSeconds: elapsed.wireSeconds) }

    public init(values: [String: JSONValue], elapsedSeconds: Double) {
        self.values = values
        self.elapsedSeconds = elapsedSeconds
        json = ["values": .object(values), "elapsed": .number(elapsedSeconds)]
    }

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        values = try members.required("values").members()
        elapsedSeconds = try members.required("elapsed").number()
    }
}
