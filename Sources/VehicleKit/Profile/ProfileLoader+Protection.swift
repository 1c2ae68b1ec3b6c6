import CANKit

/// Frame protection: schema 1's `e2e` table and schema 2's `messages.<name>.protection`.
extension ProfileReader {
    /// The schemes `protection.scheme` may name.
    static let protectionSchemes = ["none", "carplayd-e2e"]

    /// Schema 2: one message's `protection`; nil for `none`.
    func parseProtection(_ node: JSONNode, message: DBCMessage) throws(ProfileError) -> E2EBinding? {
        let entry = try node.object(known: ["scheme", "dataID", "dataIDs", "checksum", "counter", "dataIDMode"])
        let schemeNode = try entry.required("scheme")
        let scheme = try schemeNode.string()
        switch scheme {
        case "none":
            for key in ["dataID", "dataIDs", "checksum", "counter", "dataIDMode"] where entry.has(key) {
                throw fail(entry.path(key), "scheme \"none\" protects nothing; remove \(key)")
            }
            return nil
        case "carplayd-e2e":
            return try carplaydE2E(entry, message: message, checksumKey: "checksum")
        default:
            throw schemeNode.error("unknown protection scheme \"\(scheme)\"; expected one of \(Self.protectionSchemes.joined(separator: ", "))")
        }
    }

    /// Schema 1: `e2e`, every entry carplayd's E2E (data IDs unique).
    func resolveE2E(_ node: JSONNode, database: DBCDatabase) throws(ProfileError) -> [String: E2EBinding] {
        var result: [String: E2EBinding] = [:]
        var dataIDs: [UInt16: String] = [:]
        for (name, entryNode) in try node.map() {
            let entry = try entryNode.object(known: ["dataID", "crc", "counter"])
            guard let message = database.message(named: name) else { throw entryNode.error("no message \"\(name)\" in \(dbcName)") }
            let binding = try carplaydE2E(entry, message: message, checksumKey: "crc")
            if let other = dataIDs[binding.protection.dataID] {
                throw fail(entry.path("dataID"), "data ID \(binding.protection.dataID) is also used by \(other)")
            }
            dataIDs[binding.protection.dataID] = name
            result[name] = binding
        }
        return result
    }

    /// carplayd's E2E: an 8-bit CRC filling one byte, a 4-bit counter in one nibble of
    /// another byte, a 16-bit data ID.
    func carplaydE2E(_ entry: JSONObject, message: DBCMessage, checksumKey: String) throws(ProfileError) -> E2EBinding {
        let idNode = try entry.required("dataID")
        let dataID = try idNode.integer()
        guard (0...0xFFFF).contains(dataID) else { throw idNode.error("a data ID is 16 bits (0...65535), not \(dataID)") }

        let crcNode = try entry.required(checksumKey)
        let crc = try protectionSignal(crcNode, message: message)
        guard crc.length == 8 else { throw crcNode.error("the CRC signal \"\(crc.name)\" must be 8 bits, not \(crc.length)") }
        let crcBit = crc.byteOrder == .littleEndian ? crc.startBit % 8 : 7 - crc.startBit % 8
        guard crcBit == 0 else {
            throw crcNode.error("the CRC signal \"\(crc.name)\" (start bit \(crc.startBit)) is not byte-aligned: it must fill one byte")
        }
        let crcOffset = crc.startBit / 8

        let counterNode = try entry.required("counter")
        let counter = try protectionSignal(counterNode, message: message)
        guard counter.length == 4 else { throw counterNode.error("the alive counter \"\(counter.name)\" must be 4 bits, not \(counter.length)") }
        let nibble: E2ENibble
        switch (counter.byteOrder, counter.startBit % 8) {
        case (.littleEndian, 0), (.bigEndian, 3): nibble = .low
        case (.littleEndian, 4), (.bigEndian, 7): nibble = .high
        default:
            throw counterNode.error("the alive counter \"\(counter.name)\" (start bit \(counter.startBit)) is not one nibble of a byte")
        }
        let counterOffset = counter.startBit / 8
        guard counterOffset != crcOffset else {
            throw counterNode.error("the alive counter \"\(counter.name)\" is in the CRC's byte \(crcOffset); it must be in another byte")
        }
        do {
            let protection = try E2EProtection(dataID: UInt16(dataID), crcOffset: crcOffset, counterOffset: counterOffset, counterNibble: nibble)
            return E2EBinding(message: message.name, crcSignal: crc.name, counterSignal: counter.name, protection: protection)
        } catch {
            throw entry.node.error(error.description)
        }
    }

    func protectionSignal(_ node: JSONNode, message: DBCMessage) throws(ProfileError) -> DBCSignal {
        let name = try node.string()
        guard let signal = message.signal(named: name) else { throw node.error("no signal \"\(name)\" in message \"\(message.name)\" of \(dbcName)") }
        guard signal.valueType == .integer(signed: false) else { throw node.error("signal \"\(name)\" must be an unsigned integer") }
        return signal
    }
}
