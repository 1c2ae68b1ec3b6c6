import CANKit
import CarplayJSON

/// Frame protection: `messages.<name>.protection`. The layouts a scheme accepts are
/// `FrameProtection`'s rules; this file only reads the profile's keys and puts the JSON
/// path before its errors.
extension ProfileReader {
    /// The schemes `protection.scheme` may name.
    static let protectionSchemes = [
        "none", "counter", "carplayd-e2e", "autosar-p1", "autosar-p2", "autosar-p5", "vw-mqb", "honda", "toyota", "hkg-can-fd", "vw-mlb", "xor",
        "subaru", "chrysler", "fca-giorgio", "body", "tesla", "psa", "declared",
    ]

    /// Every key of `protection` besides `scheme`.
    static let protectionKeys = ["dataID", "dataIDs", "dataIDMode", "xorStart", "checksum", "counter", "algorithm", "bytes", "frameID", "length"]

    /// One message's `protection`; nil for `none`.
    func parseProtection(_ node: JSONNode, message: DBCMessage) throws(ProfileError) -> MessageProtection? {
        let entry = try node.object(known: ["scheme"] + Self.protectionKeys)
        let schemeNode = try entry.required("scheme")
        let name = try schemeNode.string()
        // Which keys each scheme takes besides `scheme`.
        let keys: [String]
        switch name {
        case "none": keys = []
        case "counter": keys = ["counter"]
        case "carplayd-e2e", "autosar-p5": keys = ["dataID", "checksum", "counter"]
        case "autosar-p1": keys = ["dataID", "dataIDMode", "checksum", "counter"]
        case "autosar-p2", "vw-mqb": keys = ["dataIDs", "checksum", "counter"]
        case "vw-mlb": keys = ["xorStart", "dataIDs", "checksum", "counter"]
        case "honda", "toyota", "hkg-can-fd", "xor", "subaru", "chrysler", "fca-giorgio", "body", "tesla", "psa": keys = ["checksum", "counter"]
        case "declared": keys = ["algorithm", "bytes", "frameID", "length", "checksum", "counter"]
        default:
            throw schemeNode.error("unknown protection scheme \"\(name)\"; expected one of \(Self.protectionSchemes.joined(separator: ", "))")
        }
        for key in Self.protectionKeys where entry.has(key) && !keys.contains(key) {
            throw fail(entry.path(key), "scheme \"\(name)\" has no \(key)")
        }
        guard name != "none" else { return nil }

        let scheme: FrameProtection.Scheme
        switch name {
        case "counter": scheme = .counter
        case "carplayd-e2e": scheme = .carplaydE2E(dataID: try protectionDataID(entry))
        case "autosar-p1":
            var mode = AutosarP1DataIDMode.both
            if let modeNode = entry.optional("dataIDMode") {
                let text = try modeNode.string()
                guard let parsed = AutosarP1DataIDMode(rawValue: text) else {
                    throw modeNode.error("dataIDMode is one of \(AutosarP1DataIDMode.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(text)\"")
                }
                mode = parsed
            }
            scheme = .autosarP1(dataID: try protectionDataID(entry), mode: mode)
        case "autosar-p2": scheme = .autosarP2(dataIDs: try protectionDataIDs(entry))
        case "autosar-p5": scheme = .autosarP5(dataID: try protectionDataID(entry))
        case "vw-mqb":
            // Without `dataIDs`, opendbc's bytes for the frame ID (facts of VW's buses).
            if !entry.has("dataIDs"), let known = VolkswagenDataIDs.opendbc(frameID: message.frameID) {
                scheme = .vwMQB(dataIDs: known)
            } else {
                scheme = .vwMQB(dataIDs: try protectionDataIDs(entry))
            }
        case "vw-mlb": scheme = .vwMLB(try protectionMLBVariant(entry, message: message))
        case "honda": scheme = .honda
        case "toyota": scheme = .toyota
        case "hkg-can-fd": scheme = .hkgCANFD
        case "xor": scheme = .xor
        case "subaru": scheme = .subaru
        case "chrysler": scheme = .chrysler
        case "fca-giorgio": scheme = .fcaGiorgio
        case "body": scheme = .body
        case "tesla": scheme = .tesla
        case "psa": scheme = .psa
        default: scheme = .declared(try declaredChecksum(entry))
        }
        let checksum = try entry.optional("checksum").map { node throws(ProfileError) in try protectionSignal(node, message: message) }
        let counter = try entry.optional("counter").map { node throws(ProfileError) in try protectionSignal(node, message: message) }
        do {
            let protection = try FrameProtection(scheme: scheme, checksum: checksum.map(PayloadField.init), counter: counter.map(PayloadField.init))
            return MessageProtection(message: message.name, checksumSignal: checksum?.name, counterSignal: counter?.name, protection: protection)
        } catch {
            throw fail(Self.path(of: error, in: entry), error.description)
        }
    }

    /// The key a protection error is about (its text names it in backquotes), else the entry.
    static func path(of error: FrameProtectionError, in entry: JSONObject) -> String {
        let text = error.description
        for key in ["checksum", "counter", "dataIDs", "dataID", "bytes", "frameID"] where text.contains("`\(key)`") { return entry.path(key) }
        for key in ["polynomial", "init", "xorOut", "reflectIn"] where text.contains("`\(key)`") {
            return (try? entry.required("algorithm").object())?.path(key) ?? entry.path("algorithm")
        }
        return entry.path
    }

    /// `vw-mlb`: `xorStart` (the XOR variant) or `dataIDs` (MQB's CRC); with neither, opendbc's
    /// tables for the frame ID, XOR first as opendbc looks them up.
    func protectionMLBVariant(_ entry: JSONObject, message: DBCMessage) throws(ProfileError) -> VolkswagenMLBVariant {
        if let startNode = entry.optional("xorStart") {
            guard !entry.has("dataIDs") else {
                throw fail(entry.path("dataIDs"), "vw-mlb takes `xorStart` (the XOR checksum) or `dataIDs` (the CRC), not both")
            }
            return .xor(start: try byteValue(startNode, what: "an XOR start value"))
        }
        if entry.has("dataIDs") { return .crc(dataIDs: try protectionDataIDs(entry)) }
        if let start = VolkswagenDataIDs.mlbXORStart(frameID: message.frameID) { return .xor(start: start) }
        if let known = VolkswagenDataIDs.opendbc(frameID: message.frameID) { return .crc(dataIDs: known) }
        throw fail(
            entry.path,
            "opendbc knows no VW MLB checksum for frame ID 0x\(String(message.frameID, radix: 16, uppercase: true)): give `xorStart` (the XOR checksum's start value) or `dataIDs` (16 bytes, the CRC)"
        )
    }

    /// `declared`: the checksum's computation, all of it in the profile.
    func declaredChecksum(_ entry: JSONObject) throws(ProfileError) -> DeclaredChecksum {
        let algorithmObject = try entry.required("algorithm").object(known: ["type", "polynomial", "init", "xorOut", "reflectIn", "reflectOut"])
        let type = try algorithmObject.required("type").enumeration(DeclaredChecksum.Algorithm.self, what: "checksum algorithm")
        var declared = DeclaredChecksum(algorithm: type)
        let largest = (1 << type.width) - 1
        func value(_ key: String) throws(ProfileError) -> UInt16 {
            guard let node = algorithmObject.optional(key) else { return 0 }
            let number = try numberValue(node)
            guard (0...largest).contains(number) else {
                throw node.error(
                    "\(type.rawValue) has \(type.width)-bit values: \(key) is 0...\(largest) (0x\(String(largest, radix: 16, uppercase: true))), not \(number)")
            }
            return UInt16(number)
        }
        for key in ["polynomial", "reflectIn", "reflectOut"] where !type.isCRC && algorithmObject.has(key) {
            throw fail(algorithmObject.path(key), "\(type.rawValue) is not a CRC: \(key) is for crc8 and crc16")
        }
        if type.isCRC && !algorithmObject.has("polynomial") {
            throw fail(algorithmObject.path, "\(type.rawValue) needs polynomial (without its top bit, e.g. \"0x1D\" for SAE J1850)")
        }
        declared.polynomial = try value("polynomial")
        declared.initial = try value("init")
        declared.xorOut = try value("xorOut")
        declared.reflectIn = try algorithmObject.optional("reflectIn")?.bool() ?? false
        declared.reflectOut = try algorithmObject.optional("reflectOut")?.bool() ?? false

        if let bytesNode = entry.optional("bytes") {
            let bytes = try bytesNode.object(known: ["first", "last", "order", "checksumBits"])
            func index(_ key: String, _ fallback: Int) throws(ProfileError) -> Int {
                guard let node = bytes.optional(key) else { return fallback }
                let number = try node.integer()
                guard (-64...63).contains(number) else {
                    throw node.error("a byte of a payload of up to 64 bytes: 0...63, or -64...-1 counting from the end (-1 is the last), not \(number)")
                }
                return number
            }
            declared.firstByte = try index("first", 0)
            declared.lastByte = try index("last", -1)
            if let orderNode = bytes.optional("order") {
                let text = try orderNode.string()
                guard let order = DeclaredChecksum.ByteOrder(rawValue: text) else {
                    throw orderNode.error("order is \"forward\" (first byte first) or \"reverse\" (last byte first), not \"\(text)\"")
                }
                declared.byteOrder = order
            }
            if let bitsNode = bytes.optional("checksumBits") {
                declared.checksumBits = try bitsNode.enumeration(DeclaredChecksum.ChecksumBits.self, what: "checksumBits")
            }
        }
        if let idNode = entry.optional("frameID") {
            let id = try idNode.object(known: ["bytes", "order", "position"])
            let countNode = try id.required("bytes")
            let count = try countNode.integer()
            guard (1...4).contains(count) else { throw countNode.error("a frame ID has 1...4 bytes (29 bits at most), not \(count)") }
            declared.frameIDBytes = count
            if let orderNode = id.optional("order") {
                let text = try orderNode.string()
                guard let order = DeclaredChecksum.FrameIDOrder(rawValue: text) else {
                    throw orderNode.error("order is \"little\" (low byte first) or \"big\" (high byte first), not \"\(text)\"")
                }
                declared.frameIDOrder = order
            }
            if let positionNode = id.optional("position") {
                declared.frameIDPosition = try positionNode.enumeration(DeclaredChecksum.Position.self, what: "frame ID position")
            }
        }
        if let lengthNode = entry.optional("length") {
            declared.length = try lengthNode.enumeration(DeclaredChecksum.Position.self, what: "length position")
        }
        return declared
    }

    /// An integer, or a string of one in hexadecimal ("0x1D"): polynomials read better so.
    func numberValue(_ node: JSONNode) throws(ProfileError) -> Int {
        if case let .string(text) = node.value {
            let digits = text.lowercased().hasPrefix("0x") ? String(text.dropFirst(2)) : ""
            guard !digits.isEmpty, digits.count <= 8, let number = Int(digits, radix: 16) else {
                throw node.error("expected an integer or a hexadecimal string such as \"0x1D\", found \"\(text)\"")
            }
            return number
        }
        return try node.integer()
    }

    func byteValue(_ node: JSONNode, what: String) throws(ProfileError) -> UInt8 {
        let number = try numberValue(node)
        guard (0...0xFF).contains(number) else { throw node.error("\(what) is one byte (0...255), not \(number)") }
        return UInt8(number)
    }

    /// `dataID`: 16 bits.
    func protectionDataID(_ entry: JSONObject) throws(ProfileError) -> UInt16 {
        let idNode = try entry.required("dataID")
        let value = try idNode.integer()
        guard (0...0xFFFF).contains(value) else { throw idNode.error("a data ID is 16 bits (0...65535), not \(value)") }
        return UInt16(value)
    }

    /// `dataIDs`: one byte per counter value.
    func protectionDataIDs(_ entry: JSONObject) throws(ProfileError) -> DataIDs {
        let listNode = try entry.required("dataIDs")
        let items = try listNode.array()
        guard items.count == 16 else { throw listNode.error("one data-ID byte per counter value: 16 bytes, not \(items.count)") }
        var bytes = [UInt8](repeating: 0, count: 16)
        for (index, item) in items.enumerated() {
            let value = try item.integer()
            guard (0...0xFF).contains(value) else { throw item.error("a data-ID byte is 0...255, not \(value)") }
            bytes[index] = UInt8(value)
        }
        return DataIDs(bytes)
    }

    func protectionSignal(_ node: JSONNode, message: DBCMessage) throws(ProfileError) -> DBCSignal {
        let name = try node.string()
        guard let signal = message.signal(named: name) else { throw node.error("no signal \"\(name)\" in message \"\(message.name)\" of \(dbcName)") }
        guard signal.valueType == .integer(signed: false) else { throw node.error("signal \"\(name)\" must be an unsigned integer") }
        return signal
    }
}
