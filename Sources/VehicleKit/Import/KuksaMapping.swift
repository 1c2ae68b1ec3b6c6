import CANKit
import CarplayJSON

/// A vehicle profile from an Eclipse KUKSA CAN provider mapping (`vss_dbc.json`: the VSS
/// tree whose leaves carry `dbc2vss` -- a DBC signal read into the path, with a `mapping`
/// of choice names or a `math` expression -- and `vss2dbc`, a path written to a signal).
/// Each leaf whose path carplayd maps (`VSSCatalog`) and whose transform a profile can
/// say becomes a status binding; every other leaf is reported with why it was not taken.
public enum KuksaMapping {
    /// One leaf of the mapping that names a DBC signal.
    public struct Entry: Sendable, Equatable {
        public var path: String
        /// Where it is in the file (a JSON path), for the report.
        public var location: String
        public var signal: String?
        /// `dbc2vss.transform.mapping`: DBC choice name (or raw number) -> VSS value.
        public var mapping: [(from: String, to: JSONValue)]?
        public var math: String?
        public var writes: Bool

        public static func == (a: Entry, b: Entry) -> Bool {
            a.path == b.path && a.location == b.location && a.signal == b.signal && a.math == b.math && a.writes == b.writes
                && a.mapping?.map(\.from) == b.mapping?.map(\.from) && a.mapping?.map(\.to) == b.mapping?.map(\.to)
        }
    }

    /// What the import did with each leaf.
    public struct Outcome: Sendable {
        public var json: JSONValue
        /// Path, the property it binds, the DBC message and signal, how the value is read.
        public var taken: [(path: String, key: PropertyKey, message: String, signal: String, how: String)]
        public var notTaken: [(path: String, reason: String)]
        public var found: Int { taken.count + notTaken.count }
    }

    /// The leaves of a mapping file; a leaf without the fields KUKSA gives it is kept
    /// with nil where they lack, to be reported, not thrown: every problem in one run.
    public static func entries(_ bytes: [UInt8], file: String) throws(JSONContentError) -> [Entry] {
        let root = try JSONNode(parsing: bytes, file: file)
        var entries: [Entry] = []
        func walk(_ node: JSONNode, path: String) throws(JSONContentError) {
            guard case let .object(fields) = node.value else { return }
            if fields["dbc2vss"] != nil || fields["vss2dbc"] != nil || fields["dbc"] != nil {
                entries.append(try entry(node, path: path))
            }
            if case .object? = fields["children"] {
                for (name, child) in try node.object().required("children").map() { try walk(child, path: path + "." + name) }
            }
        }
        for (name, child) in try root.map() { try walk(child, path: name) }
        return entries.sorted { $0.path < $1.path }
    }

    private static func entry(_ node: JSONNode, path: String) throws(JSONContentError) -> Entry {
        let object = try node.object()
        // KUKSA's older form: "dbc": {"signal": ..., "transform": ...}.
        let read = object.optional("dbc2vss") ?? object.optional("dbc")
        var entry = Entry(path: path, location: node.path, signal: nil, mapping: nil, math: nil, writes: object.has("vss2dbc"))
        guard let read, case .object = read.value else { return entry }
        let readObject = try read.object()
        entry.signal = try readObject.optional("signal")?.string()
        if let transform = readObject.optional("transform"), case .object = transform.value {
            let transformObject = try transform.object()
            entry.math = try transformObject.optional("math")?.string()
            if let mapping = transformObject.optional("mapping") {
                entry.mapping = try mapping.array().map { (item) throws(JSONContentError) in
                    let pair = try item.object()
                    let from = try pair.required("from")
                    let text: String =
                        switch from.value {
                        case let .string(name): name
                        case .integer, .number: String(try from.integer())
                        default: throw from.error("expected a DBC choice name or a raw number")
                        }
                    return (text, try pair.required("to").value)
                }
            }
        }
        return entry
    }

    /// The profile for `entries` on `database` (the DBC beside it as `dbcFile`, whose
    /// content is `bytes`), named `name`: what the loader takes of what the mapping gives.
    public static func profile(_ entries: [Entry], database: DBCDatabase, dbcFile: String, bytes: [UInt8], name: String) -> Outcome {
        let catalog = VSSCatalog.everything
        var chosen: [PropertyKey: ProfileDraft.Candidate] = [:]
        var taken: [(path: String, key: PropertyKey, message: String, signal: String, how: String)] = []
        var notTaken: [(path: String, reason: String)] = []
        for entry in entries {
            let standard = sameQuantity[entry.path]
            guard let vss = catalog.signal(entry.path) ?? standard.flatMap({ catalog.signal($0.path) }) else {
                notTaken.append((entry.path, "carplayd has no property for this VSS path (carplayctl vss catalog)"))
                continue
            }
            let key = vss.keys[0]
            guard let signalName = entry.signal else {
                notTaken.append((entry.path, "\(entry.location): no dbc2vss.signal: only reading a DBC signal is imported"))
                continue
            }
            let found = find(signalName, in: database)
            guard let (message, signal) = found.first, found.count == 1 else {
                let reason =
                    found.isEmpty
                    ? "signal \(signalName) is in no message of the DBC"
                    : "signal \(signalName) is in several cyclic messages (\(found.map(\.0.name).joined(separator: ", "))), and the mapping names only the signal"
                notTaken.append((entry.path, reason))
                continue
            }
            if let math = entry.math {
                notTaken.append((entry.path, "transform math \"\(math)\": a profile maps values by table or by the DBC's scale, not by an expression"))
                continue
            }
            if chosen[key] != nil {
                notTaken.append((entry.path, "\(key) is bound already, by an earlier path"))
                continue
            }
            var status: [String: JSONValue] = [:]
            let readAs = standard.map { "as \($0.path), the same quantity (\($0.why)); " } ?? ""
            var how = readAs + "as the DBC scales it"
            if let mapping = entry.mapping {
                switch values(mapping, for: vss) {
                case let .success(values):
                    status["values"] = .object(values)
                    let table = values.keys.sorted().map { "\($0) <- \(readable(values[$0]!))" }
                    how = readAs + "by table: " + table.joined(separator: "; ")
                case let .failure(reason):
                    notTaken.append((entry.path, reason.description))
                    continue
                }
            } else {
                guard case .identity = vss.conversion, vss.datatype != .string else {
                    notTaken.append((entry.path, "the value needs a conversion into carplayd's \(key) that the mapping does not give"))
                    continue
                }
            }
            chosen[key] = ProfileDraft.Candidate(
                key: key, message: message, signal: signal, confidence: 1, reason: "KUKSA mapping \(entry.path)", isRequest: false, status: status)
            taken.append((entry.path, key, message.name, signal.name, how + (entry.writes ? " (vss2dbc not imported: status only)" : "")))
        }
        var refused: [PropertyKey: String] = [:]
        let (json, _) = ProfileDraft.loadable(chosen, database: database, dbcFile: dbcFile, bytes: bytes, name: name) { candidate, reason in
            refused[candidate.key] = "carplayd's profile loader refuses it alone: \(reason)"
        }
        for item in taken { if let reason = refused[item.key] { notTaken.append((item.path, reason)) } }
        taken.removeAll { refused[$0.key] != nil }
        notTaken.sort { $0.path < $1.path }
        return Outcome(json: json, taken: taken, notTaken: notTaken)
    }

    /// OBD paths (a branch VSS deprecated in 5.0, which KUKSA's published mappings, written
    /// for VSS 3 and 4, still use) that carry the same quantity as one of carplayd's.
    static let sameQuantity: [String: (path: String, why: String)] = [
        "Vehicle.OBD.AmbientAirTemperature": ("Vehicle.Exterior.AirTemperature", "OBD PID 46 is the air outside the car"),
        "Vehicle.OBD.FuelLevel": ("Vehicle.Powertrain.FuelSystem.RelativeLevel", "OBD PID 2F is the tank's level in percent"),
    ]

    /// The messages that carry a signal of that name. KUKSA names only the signal; where a
    /// request and its status share the name, the status is the cyclic one.
    private static func find(_ name: String, in database: DBCDatabase) -> [(DBCMessage, DBCSignal)] {
        let all = database.messages.compactMap { message in message.signals.first { $0.name == name }.map { (message, $0) } }
        guard all.count > 1 else { return all }
        return all.filter { $0.0.cycleTime != nil }
    }

    /// KUKSA's `from -> to` table as a profile's `values`: carplayd's value -> the DBC
    /// names that mean it.
    private static func values(_ mapping: [(from: String, to: JSONValue)], for vss: VSSSignal) -> Result<[String: JSONValue], Reason> {
        var values: [String: [String]] = [:]
        for (from, to) in mapping {
            let property: String
            switch (vss.conversion, to) {
            case let (.identity, .bool(flag)) where vss.datatype == .boolean: property = String(flag)
            case let (.recirculation, .bool(recirculate)):
                property = recirculate ? AirCirculationMode.recirculateAir.rawValue : AirCirculationMode.freshAir.rawValue
            case let (.names(names), .string(text)):
                guard let name = names.first(where: { $0.value == text })?.key else {
                    return .failure(Reason("\"\(text)\" is none of \(vss.path)'s values carplayd knows"))
                }
                property = name
            case let (.identity, number) where number.doubleValue != nil && vss.datatype != .string:
                property = number.doubleValue!.plainText()
            default:
                return .failure(Reason("maps \(from) to \(to.serialized()), which carplayd cannot read as \(vss.keys[0])"))
            }
            values[property, default: []].append(from)
        }
        return .success(values.mapValues { names in names.count == 1 ? .string(names[0]) : .array(names.map { .string($0) }) })
    }

    struct Reason: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private static func readable(_ value: JSONValue) -> String {
        if case let .array(items) = value { return items.compactMap(\.stringValue).joined(separator: ", ") }
        return value.stringValue ?? value.serialized()
    }
}
