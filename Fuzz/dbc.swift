// Fuzz target: the DBC parser and assembler (CANKit `DBCDatabase(parsing:)`), then
// every message's compiled codec on a payload taken from the input.
//
// Properties: parsing any bytes either throws a DBCParseError or yields a database
// whose messages can be looked up by ID and name, decoded and re-encoded without a
// crash (errors are fine, traps are not).
import CANKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    let database: DBCDatabase
    do {
        database = try DBCDatabase(parsing: bytes, source: "fuzz.dbc")
    } catch {
        require(!error.description.isEmpty, "an empty parse error")
        return 0
    }
    _ = database.warnings.map(\.description)
    // A payload from the input's last bytes: different per input, stable per input.
    let tail = Array(bytes.suffix(64))
    for message in database.messages.prefix(64) {
        let id = message.canID
        require(database.message(id: id) != nil, "message \(message.name) not found by its ID \(id)")
        _ = database.message(named: message.name)
        _ = message.isMultiplexed
        var payload = tail
        while payload.count < message.length { payload.append(0xA5) }
        for choices in [true, false] {
            guard let decoded = try? message.codec.decode(payload, choices: choices) else { continue }
            var inputs: [String: SignalInput] = [:]
            for (name, value) in decoded {
                _ = value.description
                switch value {
                case let .integer(number): inputs[name] = .integer(number)
                case let .float(number): inputs[name] = .float(number)
                case let .choice(name2, _): inputs[name] = .choice(name2)
                }
            }
            _ = try? message.codec.encode(inputs)
        }
        for signal in message.signals.prefix(64) {
            require(
                message.signal(named: signal.name) != nil || message.signals.filter({ $0.name == signal.name }).count > 1,
                "signal \(signal.name) of \(message.name) not found by its name")
            _ = message.codec.input(forRaw: 0, signal: signal.name)
            _ = message.codec.input(forRaw: 1, signal: signal.name)
            if let maximum = signal.maximum?.integralValue {
                _ = message.codec.input(forRaw: maximum, signal: signal.name)
            }
            _ = message.codec.roundTrip(.integer(1), signal: signal.name)
            _ = message.codec.roundTrip(.float(-1.5), signal: signal.name)
        }
    }
    return 0
}
