// Fuzz target: the candump reader (CANKit `CandumpReader`) and its fast path
// (`scanCompactFrame`), with the writer as a round trip.
//
// Properties: any bytes either read as records or throw a CandumpParseError naming a
// line and a column inside it; the fast path, where it accepts a line, gives exactly
// the frame `parseLine` gives; `parseLine(_:reusing:)` equals `parseLine`; a record
// written with `CandumpWriter` reads back as the same frame; `CandumpToJSON` (the
// decoder of `carplayctl dbc decode`) writes one JSON line per input line, each an
// object, and counts the lines as the reader does.
import CANKit

/// A DBC with a standard, an extended and a multiplexed message, for `CandumpToJSON`.
let jsonDecoder: CandumpToJSON = {
    let dbc = """
        VERSION ""
        BU_: ECU
        BO_ 291 Plain: 8 ECU
         SG_ A : 0|12@1+ (0.5,-10) [0|0] "" Vector__XXX
         SG_ B : 12|4@1- (1,0) [0|0] "" Vector__XXX
         SG_ C : 16|32@1+ (1,0) [0|0] "" Vector__XXX
        BO_ 2566844926 Extended: 8 ECU
         SG_ Mux M : 0|8@1+ (1,0) [0|0] "" Vector__XXX
         SG_ X m1 : 8|16@0+ (0.1,0) [0|0] "" Vector__XXX
         SG_ Y m2 : 8|8@1- (1,0) [0|0] "" Vector__XXX
        VAL_ 291 B 0 "zero" 1 "one" -1 "minus one" ;
        """
    return CandumpToJSON(database: try! DBCDatabase(parsing: dbc, source: "fuzz.dbc"), choices: true)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    let whole: Result<[CandumpRecord], CandumpParseError> = Result { () throws(CandumpParseError) in try CandumpReader.records(in: bytes) }
    var storage: [UInt8] = []
    var payload = [UInt8](repeating: 0, count: 64)
    var records: [CandumpRecord] = []
    var firstError: CandumpParseError?
    bytes.withUnsafeBufferPointer { text in
        CandumpReader.forEachLine(in: text) { lineNumber, line in
            let parsed = Result { () throws(CandumpParseError) in try CandumpReader.parseLine(line) }
            let reused = Result { () throws(CandumpParseError) in try CandumpReader.parseLine(line, reusing: &storage) }
            require(parsed == reused, "line \(lineNumber): parseLine(reusing:) differs from parseLine")
            switch parsed {
            case let .failure(error):
                require(
                    error.column >= 1 && error.column <= line.count + 1,
                    "line \(lineNumber): error column \(error.column) outside a \(line.count)-byte line")
                if firstError == nil {
                    var located = error
                    located.line = lineNumber
                    firstError = located
                }
            case let .success(content):
                if let record = content.record, firstError == nil { records.append(record) }
            }
            let fast = payload.withUnsafeMutableBufferPointer { CandumpReader.scanCompactFrame(line, payload: $0) }
            if let fast {
                guard case let .success(.record(record)) = parsed else {
                    fatalError("line \(lineNumber): the fast path accepts a line parseLine does not read as a frame")
                }
                require(
                    record.frame.id == fast.id && record.frame.data == Array(payload[0..<fast.count])
                        && record.frame.kind == fast.kind && !record.frame.isRemote && !record.frame.isError,
                    "line \(lineNumber): the fast path reads \(fast.id) \(payload[0..<fast.count]), parseLine \(record.frame)")
            }
        }
    }
    switch whole {
    case let .success(all):
        require(firstError == nil, "records(in:) succeeded but line \(firstError!.line!) fails alone")
        require(all == records, "records(in:) differs from the lines parsed one by one")
    case let .failure(error):
        require(error == firstError, "records(in:) fails with \(error), the first bad line with \(String(describing: firstError))")
    }
    for record in records.prefix(64) {
        let line = CandumpWriter.logLine(record)
        guard case let .record(again)? = try? CandumpReader.parseLine(line) else {
            fatalError("the written line \(line) does not read back")
        }
        require(again.frame == record.frame, "\(line) reads back as \(again.frame), written from \(record.frame)")
    }
    var json = OutputBuffer(capacity: 64)
    defer { json.deallocate() }
    let summary = bytes.withUnsafeBufferPointer { jsonDecoder.decodeLines($0, firstLineNumber: 0, into: &json) }
    var lines = 0
    bytes.withUnsafeBufferPointer { text in CandumpReader.forEachLine(in: text) { _, _ in lines += 1 } }
    require(summary.lines == lines, "CandumpToJSON counted \(summary.lines) lines, the reader \(lines)")
    let output = Array(UnsafeRawBufferPointer(json.bytes))
    require(output.isEmpty || output.last == 0x0A, "CandumpToJSON's output ends mid-line")
    for line in output.split(separator: 0x0A) {
        require(line.first == UInt8(ascii: "{") && line.last == UInt8(ascii: "}"), "not a JSON object: \(String(decoding: line, as: UTF8.self))")
    }
    return 0
}
