import CANKit
import CarplayJSON
import CarplayText
import LinuxSupport

/// `carplayctl dbc diff`: the signals that changed between two candump logs of a bus
/// (before and after pressing a button), ranked by `SignalDiff`.
enum DBCDiff {
    static let usage = """
               carplayctl dbc diff [--json] [--top N] DBC_FILE BEFORE.log AFTER.log
               carplayctl dbc diff [--json] [--top N] --at SECONDS DBC_FILE LOG
        """

    static let help = """
          diff     the signals whose values changed between two candump logs (or one log
                   split at a moment: --at, a timestamp as candump -L writes it), ranked by
                   how cleanly they changed: flip (one value before, another after, held),
                   pulse (a short run of another value: a request while a button was
                   down), step (several values), noise (changing on both sides: a sensor,
                   a counter). "Press A/C, record, diff" names the A/C's status and request.
                   A table (the first 20 rows, --top N for more), or --json for scripts.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var rest = arguments
        let json = take("--json", from: &rest)
        let top = try takeValue("--top", from: &rest).map { text -> Int in
            guard let count = Int(text), count > 0 else { throw UsageError("--top takes a positive number, not '\(text)'") }
            return count
        }
        let moment = try takeValue("--at", from: &rest).map { text -> Double in
            guard let seconds = Double(text), seconds.isFinite else { throw UsageError("--at takes a timestamp in seconds (1700000000.123456), not '\(text)'") }
            return seconds
        }
        if let option = rest.first(where: { $0.hasPrefix("--") }) { throw UsageError("unknown option \(option)") }
        let before: [CANFrame]
        let after: [CANFrame]
        let database: DBCDatabase
        if let moment {
            guard rest.count == 2 else { throw UsageError("diff --at takes a DBC file and one log") }
            database = try DBCCommand.load(rest[0], warnings: false)
            let records = try read(rest[1])
            guard records.allSatisfy({ $0.timestamp != nil }) else {
                throw UsageError("\(rest[1]): --at needs timestamps on every line (record with candump -L)")
            }
            let split = records.partitioned { seconds($0.timestamp!) < moment }
            before = split.before.map(\.frame)
            after = split.after.map(\.frame)
            if before.isEmpty || after.isEmpty {
                throw UsageError(
                    "\(rest[1]): no frames \(before.isEmpty ? "before" : "after") \(moment) (the log runs from \(seconds(records.first!.timestamp!)) to \(seconds(records.last!.timestamp!)))"
                )
            }
        } else {
            guard rest.count == 3 else { throw UsageError("diff takes a DBC file and two logs (or one log with --at)") }
            database = try DBCCommand.load(rest[0], warnings: false)
            before = try read(rest[1]).map(\.frame)
            after = try read(rest[2]).map(\.frame)
        }
        let changes = SignalDiff.changes(in: database, before: before, after: after)
        if json {
            print(JSONValue.array(changes.enumerated().map { object($0.element, rank: $0.offset + 1) }).serialized())
        } else {
            print(table(changes, limit: top ?? 20, before: before.count, after: after.count), terminator: "")
        }
        return ExitCode.success
    }

    static func read(_ path: String) throws -> [CandumpRecord] {
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.readFile(atPath: path)
        } catch {
            throw UsageError("cannot read \(path): \(error)")
        }
        do {
            return try CandumpReader.records(in: bytes)
        } catch {
            throw UsageError("\(path): \(error)")
        }
    }

    static func seconds(_ stamp: CandumpTimestamp) -> Double { Double(stamp.seconds) + Double(stamp.microseconds) / 1e6 }

    static func take(_ flag: String, from arguments: inout [String]) -> Bool {
        guard let index = arguments.firstIndex(of: flag) else { return false }
        arguments.remove(at: index)
        return true
    }

    static func takeValue(_ option: String, from arguments: inout [String]) throws -> String? {
        guard let index = arguments.firstIndex(of: option) else { return nil }
        guard index + 1 < arguments.count else { throw UsageError("\(option) needs a value") }
        let value = arguments[index + 1]
        arguments.removeSubrange(index...(index + 1))
        return value
    }

    static func json(_ value: SignalValue) -> JSONValue {
        switch value {
        case let .integer(number): Int(exactly: number).map(JSONValue.integer) ?? .string(number.description)
        case let .float(number): .number(number)
        case let .choice(name, _): .string(name)
        }
    }

    static func object(_ change: SignalDiff.Change, rank: Int) -> JSONValue {
        .object([
            "rank": .integer(rank), "message": .string(change.message), "id": .string(change.id.description), "signal": .string(change.signal),
            "kind": .string(change.kind.rawValue), "score": .number((change.score * 1000).rounded() / 1000),
            "before": .array(change.before.map(json)), "after": .array(change.after.map(json)),
            "framesBefore": .integer(change.framesBefore), "framesAfter": .integer(change.framesAfter),
        ])
    }

    /// The first values of a side, the most frequent first.
    static func values(_ values: [SignalValue]) -> String {
        values.prefix(3).map(\.description).joined(separator: ",") + (values.count > 3 ? ",…(\(values.count))" : "")
    }

    static func table(_ changes: [SignalDiff.Change], limit: Int, before: Int, after: Int) -> String {
        var out = "\(changes.count) signals changed (\(before) frames before, \(after) after)\n"
        guard !changes.isEmpty else { return out }
        let rows = changes.prefix(limit).enumerated().map { index, change in
            [
                "\(index + 1)", change.kind.rawValue, String(format3(change.score)), change.message, change.signal,
                "\(values(change.before)) -> \(values(change.after))",
            ]
        }
        let header = ["#", "kind", "score", "message", "signal", "before -> after"]
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max()! }
        for row in [header] + rows {
            out += row.indices.map { $0 == row.count - 1 ? row[$0] : padded(row[$0], widths[$0] + 2) }.joined() + "\n"
        }
        if changes.count > limit { out += "… \(changes.count - limit) more (--top N, or --json)\n" }
        return out
    }

    static func format3(_ score: Double) -> String {
        let scaled = Int((score * 100).rounded())
        return "\(scaled / 100).\(scaled % 100 < 10 ? "0" : "")\(scaled % 100)"
    }
}

extension Array {
    /// The elements for which `isBefore` holds, then the rest, each in order.
    func partitioned(_ isBefore: (Element) -> Bool) -> (before: [Element], after: [Element]) {
        var before: [Element] = []
        var after: [Element] = []
        for element in self {
            if isBefore(element) { before.append(element) } else { after.append(element) }
        }
        return (before, after)
    }
}
