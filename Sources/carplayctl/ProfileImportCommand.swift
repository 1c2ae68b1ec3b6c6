import CANKit
import CarplayJSON
import LinuxSupport
import VehicleKit

/// `carplayctl profile import-kuksa`: a profile folder from a KUKSA CAN provider mapping
/// and its DBC (`KuksaMapping`).
enum ProfileImportCommand {
    static let usage = """
          import-kuksa  carplayctl profile import-kuksa MAPPING.json DBC_FILE --out DIR [--name NAME]
                  write DIR/profile.json from an Eclipse KUKSA CAN provider mapping
                  (vss_dbc.json: dbc2vss entries with their mapping transforms), with a
                  copy of the DBC and DIR/IMPORT.md: every entry found, taken (the
                  property it binds, read-only) or not taken, and why. Paths are VSS
                  (carplayctl vss catalog lists those carplayd knows); math transforms and
                  vss2dbc writes are reported, not imported. DIR must not hold a profile.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var rest = arguments
        let out = try DBCDiff.takeValue("--out", from: &rest)
        let name = try DBCDiff.takeValue("--name", from: &rest)
        if let option = rest.first(where: { $0.hasPrefix("-") }) { throw UsageError("unknown option \(option)") }
        guard rest.count == 2 else { throw UsageError("import-kuksa takes a mapping file and a DBC file") }
        guard let out else { throw UsageError("import-kuksa needs --out DIR (the new profile folder)") }
        let (mappingPath, dbcPath) = (rest[0], rest[1])
        let entries: [KuksaMapping.Entry]
        do {
            entries = try KuksaMapping.entries(try read(mappingPath), file: mappingPath)
        } catch let error as JSONContentError {
            printError(error.description)
            return ExitCode.failure
        }
        let bytes = try read(dbcPath)
        let database = try DBCCommand.load(dbcPath, warnings: false)
        let profilePath = out + "/" + ProfileLoader.profileFileName
        guard !FileSystem.exists(profilePath) else { throw UsageError("\(profilePath) exists: import into a new folder, nothing is overwritten") }
        let file = dbcPath.split(separator: "/").last.map(String.init) ?? dbcPath
        let outcome = KuksaMapping.profile(
            entries, database: database, dbcFile: file, bytes: bytes, name: name ?? (file.hasSuffix(".dbc") ? String(file.dropLast(4)) : file))
        do {
            try FileSystem.makeDirectories(out)
            if !FileSystem.exists(out + "/" + file) { try FileSystem.writeAtomically(bytes, to: out + "/" + file, mode: 0o644) }
            try FileSystem.writeAtomically(Array((ProfileDraftCommand.pretty(outcome.json) + "\n").utf8), to: profilePath, mode: 0o644)
            try FileSystem.writeAtomically(Array(report(outcome, mapping: mappingPath, dbc: file).utf8), to: out + "/IMPORT.md", mode: 0o644)
        } catch {
            throw OperationFailure("cannot write \(out): \(error)")
        }
        print("\(profilePath): \(outcome.found) entries found, \(outcome.taken.count) taken, \(outcome.notTaken.count) not taken (IMPORT.md)")
        for item in outcome.taken { print("  \(item.key.rawValue)  \(item.message).\(item.signal)  <- \(item.path)") }
        print("next: carplayctl profile check \(out)")
        return ExitCode.success
    }

    private static func read(_ path: String) throws -> [UInt8] {
        do { return try FileDescriptor.readFile(atPath: path) } catch { throw OperationFailure("cannot read \(path): \(error)") }
    }

    /// Found, taken and not taken, for a person.
    static func report(_ outcome: KuksaMapping.Outcome, mapping: String, dbc: String) -> String {
        var text = "# Profile imported from a KUKSA mapping\n\n"
        text += "Written by `carplayctl profile import-kuksa` from `\(mapping)` and `\(dbc)`: \(outcome.found) entries found, "
        text += "\(outcome.taken.count) taken, \(outcome.notTaken.count) not taken. Every binding is a status (read-only).\n"
        if !outcome.taken.isEmpty {
            text += "\n## Taken\n\n| VSS path | property | message.signal | read |\n| --- | --- | --- | --- |\n"
            for item in outcome.taken { text += "| `\(item.path)` | `\(item.key.rawValue)` | `\(item.message).\(item.signal)` | \(item.how) |\n" }
        }
        if !outcome.notTaken.isEmpty {
            text += "\n## Not taken\n\n| VSS path | why |\n| --- | --- |\n"
            for item in outcome.notTaken { text += "| `\(item.path)` | \(item.reason) |\n" }
        }
        return text
    }
}
