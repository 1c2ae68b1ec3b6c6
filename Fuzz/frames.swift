// Fuzz target: the frame decoder -- arbitrary CAN frames (ID + payload) decoded the way
// the daemon and the simulated vehicle decode them: `VehicleFrames.decodeFromVehicle`
// and `decodeFromHeadUnit` of the shipped profiles (DBC codec, E2E check, signal ->
// property mapping), and `MessageCodec.decode` of corpus DBCs (multiplexing, big-endian,
// signed, float, CAN FD); plus the E2E checker with a layout taken from the input.
//
// Input: a sequence of frames, each `selector, ID (4 bytes, big-endian), length, payload`.
// The selector picks the profile or corpus DBC, whether the ID is extended, and whether
// the ID is replaced by the ID of one of the database's messages (so most frames hit a
// message). E2E checkers persist across the frames of one input (sequences of counters).
// Properties: decoding never traps; a frame the codec decodes yields each signal at most
// once per multiplexer path; E2E never calls a frame ok whose CRC is wrong.
import CANKit
import VehicleKit

struct Vehicle {
    let frames: VehicleFrames
    let messages: [DBCMessage]
}

let vehicles: [Vehicle] = FuzzFixtures.profiles.map { (name, json, dbcName, dbc) in
    let jsonBytes = fixtureBytes(json)
    let dbcBytes = fixtureBytes(dbc)
    do {
        let profile = try ProfileLoader.load(directory: name) { path in
            path.hasSuffix("profile.json") ? jsonBytes : path.hasSuffix(dbcName) ? dbcBytes : nil
        }
        return Vehicle(frames: VehicleFrames(profile: profile), messages: profile.database.messages)
    } catch {
        fatalError("the shipped profile \(name) does not load: \(error)")
    }
}

let databases: [DBCDatabase] = FuzzFixtures.databases.map { (name, dbc) in
    do {
        return try DBCDatabase(parsing: fixtureBytes(dbc), source: name)
    } catch {
        fatalError("corpus DBC \(name) does not parse: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(fuzzBytes(start, count))
    var checkers: [[String: FrameChecker]] = Array(repeating: [:], count: vehicles.count)
    var latches: [[String: [Int128]]] = Array(repeating: [:], count: vehicles.count)
    var state = VehicleState()
    var rawCheckers: [FrameChecker] = []
    var frameCount = 0
    while !input.isAtEnd, frameCount < 256 {
        frameCount += 1
        let selector = input.byte()
        var rawID = input.uint32()
        let length = Int(input.byte() % 65)
        let payload = input.take(length)
        let extended = selector & 0x80 != 0
        let pickMessage = selector & 0x40 != 0
        let target = Int(selector & 0x3F) % (vehicles.count + databases.count + 1)

        if target < vehicles.count {
            let vehicle = vehicles[target]
            if pickMessage, !vehicle.messages.isEmpty {
                let message = vehicle.messages[Int(rawID % UInt32(vehicle.messages.count))]
                rawID = message.frameID | (message.isExtended ? 0x8000_0000 : 0)
            }
            let isExtended = pickMessage ? rawID & 0x8000_0000 != 0 : extended
            guard let id = CANID(rawID & (isExtended ? CANID.maxExtended : CANID.maxStandard), extended: isExtended) else { continue }
            let kind: CANFrame.Kind = payload.count > 8 ? .fd(bitRateSwitch: true, errorStateIndicator: false) : .classic
            guard let frame = try? CANFrame(id: id, data: payload, kind: kind) else { continue }
            switch vehicle.frames.decodeFromVehicle(frame, context: state, checkers: &checkers[target]) {
            case let .status(_, values, _):
                for (key, value) in values { state[key] = value }
            default:
                break
            }
            _ = vehicle.frames.decodeFromHeadUnit(frame, context: state, checkers: &checkers[target], latches: &latches[target])
        } else if target < vehicles.count + databases.count {
            let database = databases[target - vehicles.count]
            guard !database.messages.isEmpty else { continue }
            let message: DBCMessage
            if pickMessage {
                message = database.messages[Int(rawID % UInt32(database.messages.count))]
            } else {
                guard let id = CANID(rawID & (extended ? CANID.maxExtended : CANID.maxStandard), extended: extended),
                    let found = database.message(id: id)
                else { continue }
                message = found
            }
            for choices in [true, false] {
                guard let decoded = try? message.codec.decode(payload, choices: choices) else { continue }
                let names = decoded.map(\.name)
                require(Set(names).count == names.count, "\(message.name): a signal decoded twice: \(names)")
            }
        } else {
            // A protection scheme on its own: the scheme and its fields from the ID bytes.
            guard let protection = fuzzProtection(rawID, selector) else { continue }
            if rawCheckers.isEmpty || rawCheckers[0].protection != protection {
                rawCheckers = [FrameChecker(protection: protection, maxDeltaCounter: selector & 0x0F)]
            }
            let status = rawCheckers[0].check(payload, frameID: rawID)
            if status == .ok {
                require(
                    payload.count >= protection.minimumLength && protection.checksumMatches(payload, frameID: rawID),
                    "\(protection.scheme.name) accepted a payload with a wrong checksum")
            }
            var copy = payload
            let counter = UInt8(Int(selector & 0x0F) % protection.counterModulus)
            if (try? protection.protect(&copy, frameID: rawID, counter: counter)) != nil {
                require(protection.checksumMatches(copy, frameID: rawID), "\(protection.scheme.name): a protected payload fails its own checksum")
                if protection.counter != nil {
                    require(protection.counter(in: copy) == counter, "\(protection.scheme.name): a protected payload lost its counter")
                }
            }
        }
    }
    return 0
}

/// A protection of any scheme, its checksum and counter fields placed by the ID's bytes
/// (nil when `FrameProtection` refuses the layout). The ID's top 3 bits pick one of the
/// first eight schemes as they always did (the corpus keeps its meaning); bits 14...15
/// add the later ones.
func fuzzProtection(_ rawID: UInt32, _ selector: UInt8) -> FrameProtection? {
    let dataIDs = DataIDs((0..<16).map { UInt8(truncatingIfNeeded: rawID >> (($0 % 4) * 8)) &+ UInt8($0) })
    let dataID = UInt16(truncatingIfNeeded: rawID >> 16)
    let schemes: [FrameProtection.Scheme] = [
        .counter, .carplaydE2E(dataID: dataID), .autosarP1(dataID: dataID & 0x0FFF, mode: AutosarP1DataIDMode.allCases[Int(selector & 3)]),
        .autosarP2(dataIDs: dataIDs), .autosarP5(dataID: dataID), .vwMQB(dataIDs: dataIDs), .honda, .toyota,
        .hkgCANFD, .vwMLB(.xor(start: UInt8(truncatingIfNeeded: dataID))), .vwMLB(.crc(dataIDs: dataIDs)), .xor, .subaru, .chrysler,
        .fcaGiorgio, .body, .tesla, .psa, .declared(fuzzDeclared(rawID, selector)), .declared(fuzzDeclared(~rawID, ~selector)),
    ]
    let index = (Int(rawID >> 29) + 8 * Int((rawID >> 14) & 3)) % schemes.count
    let scheme = schemes[index]
    let order: DBCByteOrder = selector & 0x20 != 0 ? .bigEndian : .littleEndian
    let checksumLength = [8, 4, 16, 8][Int(selector >> 6)]
    let counterLength = [4, 2, 8, 4][Int((selector >> 4) & 3)]
    let checksumStart = Int(rawID & 0x3F)
    let counterStart = Int((rawID >> 8) & 0x3F)
    let checksum: PayloadField? = if case .counter = scheme { nil } else { PayloadField(startBit: checksumStart, length: checksumLength, byteOrder: order) }
    let counter: PayloadField? =
        if index >= 7, selector & 1 == 0 { nil } else { PayloadField(startBit: counterStart, length: counterLength, byteOrder: order) }
    return try? FrameProtection(scheme: scheme, checksum: checksum, counter: counter)
}

/// A declared checksum of any algorithm and options, from the ID's and the selector's bits.
func fuzzDeclared(_ rawID: UInt32, _ selector: UInt8) -> DeclaredChecksum {
    var declared = DeclaredChecksum(algorithm: DeclaredChecksum.Algorithm.allCases[Int(rawID >> 16) & 3])
    let bits = UInt16(truncatingIfNeeded: rawID >> 16)
    let width8 = declared.algorithm.width == 8
    if declared.algorithm.isCRC {
        declared.polynomial = (width8 ? bits & 0xFF : bits) | 1
        declared.reflectIn = selector & 2 != 0
        declared.reflectOut = selector & 4 != 0
    }
    declared.initial = width8 ? UInt16(selector) : bits
    declared.xorOut = UInt16(truncatingIfNeeded: rawID >> 6) & (width8 ? 0xFF : 0xFFFF)
    declared.firstByte = Int((rawID >> 20) & 0x7F) - 64
    declared.lastByte = Int((rawID >> 7) & 0x7F) - 64
    declared.byteOrder = selector & 8 != 0 ? .reverse : .forward
    declared.checksumBits = selector & 16 != 0 ? .zero : .skip
    declared.frameIDBytes = Int((rawID >> 27) & 7) % 5
    declared.frameIDOrder = rawID & 0x40 != 0 ? .big : .little
    declared.frameIDPosition = rawID & 0x80 != 0 ? .after : .before
    declared.length = [nil, .before, .after, nil][Int((rawID >> 4) & 3)]
    return declared
}
