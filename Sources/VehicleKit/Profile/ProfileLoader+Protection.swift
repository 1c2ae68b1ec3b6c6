import CANKit
import CarplayJSON

/// Frame protection: `messages.<name>.protection`. The layouts a scheme accepts are
/// `FrameProtection`'s rules; this file only reads the profile's keys and puts the JSON
/// path before its errors.
extension ProfileReader {
    /// The schemes `protection.scheme` may name.
    static let protectionSchemes = ["none", "counter", "carplayd-e2e", "autosar-p1", "autosar-p2", "autosar-p5", "vw-mqb", "honda", "toyota"]

    /// One message's `protection`; nil for `none`.
    func parseProtection(_ node: JSONNode, message: DBCMessage) throws(ProfileError) -> MessageProtection? {
        let entry = try node.object(known: ["scheme", "dataID", "dataIDs", "dataIDMode", "checksum", "counter"])
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
        case "honda", "toyota": keys = ["checksum", "counter"]
        default:
            throw schemeNode.error("unknown protection scheme \"\(name)\"; expected one of \(Self.protectionSchemes.joined(separator: ", "))")
        }
        for key in ["dataID", "dataIDs", "dataIDMode", "checksum", "counter"] where entry.has(key) && !keys.contains(key) {
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
        case "vw-mqb": scheme = .vwMQB(dataIDs: try protectionDataIDs(entry))
        case "honda": scheme = .honda
        default: scheme = .toyota
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
        for key in ["checksum", "counter", "dataIDs", "dataID"] where text.contains("`\(key)`") { return entry.path(key) }
        return entry.path
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
