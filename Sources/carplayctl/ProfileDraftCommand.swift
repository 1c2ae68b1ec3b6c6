import CANKit
import CarplayJSON
import LinuxSupport
import VehicleKit

/// `carplayctl profile draft`: a starting profile folder from a DBC (`ProfileDraft`).
enum ProfileDraftCommand {
    static let usage = """
          draft   carplayctl profile draft DBC_FILE --out DIR [--role NODE] [--name NAME]
                  write DIR/profile.json, a schema-2 profile that `profile check` accepts,
                  with a copy of the DBC and DIR/DRAFT.md: the signals found for each
                  property of the vocabulary by the words of their names, in English,
                  German and French (Temp/Aussentemp, AC/Klima, Defog/Dfg/degivrage,
                  Blower/Blw/Geblaese, Lock/Verriegelung, Fuel/Tank, DTE/Reichweite, ...),
                  units, ranges and value tables (ON/OFF choices), each with a confidence
                  and the reason; qualifiers (QBit, Invalid, Fehler) are never values.
                  Every binding is read-only: the request signals found are listed, to
                  bind once the car has shown what they do (carplayctl dbc diff).
                  --role NODE: the node carplayd plays (messages it sends are requests,
                  those it receives statuses). DIR must not hold a profile already.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var rest = arguments
        let out = try DBCDiff.takeValue("--out", from: &rest)
        let role = try DBCDiff.takeValue("--role", from: &rest)
        let name = try DBCDiff.takeValue("--name", from: &rest)
        if let option = rest.first(where: { $0.hasPrefix("-") }) { throw UsageError("unknown option \(option)") }
        guard rest.count == 1 else { throw UsageError("draft takes one DBC file") }
        guard let out else { throw UsageError("draft needs --out DIR (the new profile folder)") }
        let path = rest[0]
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.readFile(atPath: path)
        } catch {
            throw OperationFailure("cannot read \(path): \(error)")
        }
        let database = try DBCCommand.load(path, warnings: false)
        if let role, !database.nodes.contains(where: { $0.name == role }) {
            throw UsageError("\(path) has no node \(role) (its nodes: \(database.nodes.map(\.name).joined(separator: ", ")))")
        }
        let profilePath = out + "/" + ProfileLoader.profileFileName
        guard !FileSystem.exists(profilePath) else { throw UsageError("\(profilePath) exists: draft into a new folder, nothing is overwritten") }
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let draft = ProfileDraft.draft(
            database, dbcFile: file, bytes: bytes, role: role, name: name ?? (file.hasSuffix(".dbc") ? String(file.dropLast(4)) : file))
        do {
            try FileSystem.makeDirectories(out)
            if !FileSystem.exists(out + "/" + file) { try FileSystem.writeAtomically(bytes, to: out + "/" + file, mode: 0o644) }
            try FileSystem.writeAtomically(Array((pretty(draft.json) + "\n").utf8), to: profilePath, mode: 0o644)
            try FileSystem.writeAtomically(Array(report(draft, dbc: file, role: role).utf8), to: out + "/DRAFT.md", mode: 0o644)
        } catch {
            throw OperationFailure("cannot write \(out): \(error)")
        }
        let requests = draft.notes.filter { $0.kind == .request }.count
        print("\(profilePath): \(draft.bindings.count) properties bound read-only, \(requests) request candidates (DRAFT.md)")
        for key in draft.bindings.keys.sorted() { print("  \(key.rawValue)  \(draft.bindings[key]!.message).\(draft.bindings[key]!.signal)") }
        print("next: carplayctl profile check \(out)")
        return ExitCode.success
    }

    /// The draft's findings, for a person: what is bound and why, what to check.
    static func report(_ draft: ProfileDraft.Draft, dbc: String, role: String?) -> String {
        var out = "# Draft profile from \(dbc)\n\n"
        out += "Written by `carplayctl profile draft`\(role.map { " for node `\($0)`" } ?? ""). Every binding is a status (read-only):\n"
        out += "check each with `carplayctl dbc watch` or `dbc diff` on your car, then bind commands.\n"
        for (kind, title) in [
            (ProfileDraft.Note.Kind.bound, "Bound (read-only)"), (.assumed, "Assumed"), (.request, "Request signals found (not bound)"),
            (.dropped, "Found, but refused by the loader"),
        ] {
            let notes = draft.notes.filter { $0.kind == kind }
            guard !notes.isEmpty else { continue }
            out += "\n## \(title)\n\n| property | message.signal | confidence | why |\n| --- | --- | --- | --- |\n"
            for note in notes {
                out += "| `\(note.property)` | `\(note.message).\(note.signal)` | \(Int((note.confidence * 100).rounded())) % | \(note.reason) |\n"
            }
        }
        return out
    }

    /// JSON with one member per line, two spaces per level, keys sorted.
    static func pretty(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case let .object(members) where !members.isEmpty:
            let lines = members.keys.sorted().map { "\(inner)\(JSONValue.string($0).serialized()): \(pretty(members[$0]!, indent: inner))" }
            return "{\n" + lines.joined(separator: ",\n") + "\n\(indent)}"
        case let .array(items) where !items.isEmpty && items.contains(where: { if case .object = $0 { true } else { false } }):
            return "[\n" + items.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        default:
            return value.serialized()
        }
    }
}
