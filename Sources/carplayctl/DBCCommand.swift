import CANKit
import CarplayText
import Dispatch
import LinuxSupport

/// `carplayctl dbc decode|encode|show|diff|watch`: tools over a DBC file (watch: live).
enum DBCCommand {
    static let usage = """
        usage: carplayctl dbc decode [--raw-choices] [--warnings] DBC_FILE < candump.log
               carplayctl dbc encode [--warnings] DBC_FILE MESSAGE SIGNAL=VALUE...
               carplayctl dbc show DBC_FILE
        \(DBCDiff.usage)
        \(DBCWatch.usage)

          decode   read candump lines (-L log or the default human format) on stdin and
                   write one JSON object per frame on stdout:
                   {"id":496,"name":"ExampleMessage","signals":{"Enable":"Disabled",...}}
                   Choices are written as names; --raw-choices writes their numbers.
                   Frames that cannot be decoded give {"id":...,"error":"..."}; lines that
                   are not frames give {"line":N,"error":"..."}; decoding goes on.
          encode   print the frame in cansend form (1F0#80000000..., 123##1... for CAN FD).
                   MESSAGE is a name or a frame ID (decimal or 0x hex). VALUE is a number
                   (42, 21.5) or a choice name. Exactly the signals of the message (and of
                   its selected multiplexer branch) must be given, each within its range.
          show     print the messages and signals as a table.
        \(DBCDiff.help)
        \(DBCWatch.help)

          --warnings   also print the DBC's warnings (skipped statements) on stderr
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let sub = arguments.first else { throw UsageError("missing decode, encode, show, diff or watch") }
        if sub == "diff" { return try DBCDiff.run(Array(arguments.dropFirst())) }
        if sub == "watch" { return try await DBCWatch.run(Array(arguments.dropFirst())) }
        var rest = Array(arguments.dropFirst())
        let showWarnings = rest.contains("--warnings")
        rest.removeAll { $0 == "--warnings" }
        switch sub {
        case "decode":
            let rawChoices = rest.contains("--raw-choices")
            rest.removeAll { $0 == "--raw-choices" }
            try rejectUnknownOptions(rest)
            guard rest.count == 1 else { throw UsageError("decode takes one DBC file") }
            let database = try load(rest[0], warnings: showWarnings)
            return try decode(database: database, rawChoices: rawChoices)
        case "encode":
            try rejectUnknownOptions(rest)
            guard rest.count >= 2 else { throw UsageError("encode needs a DBC file and a message") }
            let database = try load(rest[0], warnings: showWarnings)
            return try encode(database: database, message: rest[1], assignments: Array(rest.dropFirst(2)))
        case "show":
            try rejectUnknownOptions(rest)
            guard rest.count == 1 else { throw UsageError("show takes one DBC file") }
            let database = try load(rest[0], warnings: false)
            printWarnings(database.warnings, summarizingOverlaps: true)
            print(DBCTable.render(database), terminator: "")
            return ExitCode.success
        default:
            throw UsageError("unknown dbc command '\(sub)'")
        }
    }

    private static func rejectUnknownOptions(_ arguments: [String]) throws {
        if let option = arguments.first(where: { $0.hasPrefix("--") }) { throw UsageError("unknown option \(option)") }
    }

    /// The DBC at `path` with its imports. A data error is the operation's failure, never
    /// a usage error. Every problem of the file is printed at once (with its warnings when
    /// `warnings`); what could not be read is set aside and the rest loads.
    static func load(_ path: String, warnings: Bool) throws -> DBCDatabase {
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.readFile(atPath: path)
        } catch {
            throw OperationFailure("cannot read \(path): \(error)")
        }
        let database: DBCDatabase
        do {
            database = try DBCDatabase(parsing: bytes, source: path) { try? FileDescriptor.readFile(atPath: $0) }
        } catch {
            throw OperationFailure("\(error)")
        }
        if warnings { printWarnings(database.warnings, summarizingOverlaps: false) }
        for error in database.errors { printError(error.description) }
        if !database.unreadableMessages.isEmpty {
            let names = database.unreadableMessages.map { $0.name ?? "line \($0.line)" }
            printError("\(path): \(names.count) message(s) set aside, the rest loaded: \(names.joined(separator: ", "))")
        }
        return database
    }

    /// The DBC's warnings on stderr. A DBC with overlapping signals in many messages
    /// (GMLAN: 177 of 367) gets the first three of those and one line for the rest.
    static func printWarnings(_ warnings: [DBCDiagnostic], summarizingOverlaps: Bool) {
        var overlaps = 0
        for warning in warnings {
            if summarizingOverlaps, warning.isOverlap {
                overlaps += 1
                if overlaps > 3 { continue }
            }
            printError(warning.description)
        }
        if overlaps > 3 {
            printError(
                "... and \(overlaps - 3) more messages with overlapping signals, decoded the same way (carplayctl dbc decode --warnings lists every one)")
        }
    }

    // MARK: - decode

    private static func decode(database: DBCDatabase, rawChoices: Bool) throws -> Int32 {
        let decoder = CandumpToJSON(database: database, choices: !rawChoices)
        var reader = BlockReader(.standardInput)
        let standardOutput = FileDescriptor.standardOutput
        var lineNumber = 0
        // Blocks of whole lines; each is split in two halves decoded on both cores,
        // written in input order. The output buffers live across blocks (no fresh pages
        // per block). The second half starts with a provisional line number; it is decoded
        // again, once the first half's line count is known, only if it wrote an error that
        // names a line (malformed lines: rare), so no core counts newlines up front.
        let results = UnsafeSendableBuffer([OutputBuffer(), OutputBuffer()])
        let summaries = UnsafeSendableBuffer(count: 2, repeating: CandumpToJSON.Summary(lines: 0, numberedErrors: false))
        defer {
            results.buffer[0].deallocate()
            results.buffer[1].deallocate()
            results.deallocate()
            summaries.deallocate()
        }
        try reader.forEachBlock { (block: UnsafeBufferPointer<UInt8>) throws(Errno) in
            let split = block.count < 1 << 16 ? block.count : block.lineBoundary(near: block.count / 2)
            let halves = [0..<split, split..<block.count]
            let input = UnsafeSendableBuffer<UInt8>(borrowing: block)
            let first = lineNumber
            DispatchQueue.concurrentPerform(iterations: halves[1].isEmpty ? 1 : 2) { half in
                results.buffer[half].removeAll()
                summaries.buffer[half] = decoder.decodeLines(
                    UnsafeBufferPointer(rebasing: input.buffer[halves[half]]), firstLineNumber: first, into: &results.buffer[half])
            }
            if halves[1].isEmpty {
                summaries.buffer[1] = CandumpToJSON.Summary(lines: 0, numberedErrors: false)
                results.buffer[1].removeAll()
            } else if summaries.buffer[1].numberedErrors {
                results.buffer[1].removeAll()
                decoder.decodeLines(
                    UnsafeBufferPointer(rebasing: input.buffer[halves[1]]), firstLineNumber: first + summaries.buffer[0].lines, into: &results.buffer[1])
            }
            for half in 0..<2 {
                try standardOutput.writeAll(results.buffer[half].bytes)
            }
            lineNumber = first + summaries.buffer[0].lines + summaries.buffer[1].lines
        }
        // Undecodable frames are reported in the output; the run itself succeeded.
        return ExitCode.success
    }

    // MARK: - encode

    private static func encode(database: DBCDatabase, message name: String, assignments: [String]) throws -> Int32 {
        guard let message = lookUp(name, in: database) else {
            throw UsageError("no message '\(name)' in \(database.source) (give its name or frame ID)")
        }
        var values: [String: SignalInput] = [:]
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw UsageError("'\(assignment)' is not SIGNAL=VALUE")
            }
            let signal = String(assignment[..<equals])
            let value = String(assignment[assignment.index(after: equals)...])
            guard values[signal] == nil else { throw UsageError("signal \(signal) given twice") }
            values[signal] = SignalInput(parsing: value)
        }
        let payload: [UInt8]
        do {
            payload = try message.codec.encode(values)
        } catch {
            throw OperationFailure(error.description)
        }
        let frame: CANFrame
        if message.isFD {
            let length = CANFrame.fdLength(atLeast: payload.count) ?? 64
            frame = try CANFrame(
                id: message.canID, data: payload + [UInt8](repeating: 0, count: length - payload.count),
                kind: .fd(bitRateSwitch: true, errorStateIndicator: false))
        } else {
            guard payload.count <= 8 else {
                throw OperationFailure("message \(message.name) is \(payload.count) bytes but not CAN FD (VFrameFormat); a classic frame holds 8")
            }
            frame = try CANFrame(id: message.canID, data: payload)
        }
        print(CandumpWriter.compactFrame(frame))
        return ExitCode.success
    }

    static func lookUp(_ name: String, in database: DBCDatabase) -> DBCMessage? {
        if let message = database.message(named: name) { return message }
        let id: UInt32? = name.hasPrefix("0x") || name.hasPrefix("0X") ? UInt32(name.dropFirst(2), radix: 16) : UInt32(name)
        return id.flatMap { database.message(frameID: $0) }
    }
}
