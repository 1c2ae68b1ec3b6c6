// Fuzz target: the candump reader (CANKit `CandumpReader`) and its fast path
// (`scanCompactFrame`), with the writer as a round trip.
//
// Properties: any bytes either read as records or throw a CandumpParseError naming a
// line and a column inside it; the fast path, where it accepts a line, gives exactly
// the frame `parseLine` gives; `parseLine(_:reusing:)` equals `parseLine`; a record
// written with `CandumpWriter` reads back as the same frame.
import CANKit

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
                require(error.column >= 1 && error.column <= line.count + 1,
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
                require(record.frame.id == fast.id && record.frame.data == Array(payload[0..<fast.count])
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
    return 0
}
