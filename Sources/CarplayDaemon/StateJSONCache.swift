import CarplayJSON
import Synchronization
import VehicleKit

/// The state's JSON text, made once per state version (flat for the generic methods,
/// grouped for the typed ones): every Handle and Perform reply carries the whole state, and most replies between two changes are to intents that
/// changed nothing. A new version re-serializes only the properties whose value
/// changed (per property its `"key":value` text is kept), so the cost of a reply does
/// not grow with the number of properties. Keyed by the controller too: a reload starts
/// a new one, which counts versions from its own start.
final class StateJSONCache: Sendable {
    private struct Entry {
        var controller: ObjectIdentifier
        var version: Int
        /// Per property its value and `"key":value` text, in the order `JSONValue`
        /// writes keys.
        var fragments: [(key: PropertyKey, value: PropertyValue, text: [UInt8])]
        var bytes: [UInt8]
    }

    private let entry = Mutex<Entry?>(nil)
    /// The typed methods' grouped state (VehicleState), whole per version: its nesting
    /// does not split into per-property fragments.
    private let grouped = Mutex<(controller: ObjectIdentifier, version: Int, bytes: [UInt8])?>(nil)

    func groupedJSON(_ state: VehicleState, version: Int, of controller: ObjectIdentifier) -> [UInt8] {
        if let cached = grouped.withLock({ $0 }), cached.controller == controller, cached.version == version { return cached.bytes }
        let bytes = state.groupedJSON.serializedBytes()
        grouped.withLock { current in
            if current == nil || current!.controller != controller || current!.version <= version { current = (controller, version, bytes) }
        }
        return bytes
    }

    func json(_ state: VehicleState, version: Int, of controller: ObjectIdentifier) -> [UInt8] {
        let cached = entry.withLock { $0 }
        if let cached, cached.controller == controller, cached.version == version { return cached.bytes }
        // One lookup per property: the cached fragments are reused when the state has
        // the same properties (same count, each found), re-made where the value moved.
        let fragments = Self.refreshed(cached?.fragments, from: state)
            ?? state.values.sorted { JSONBytes.precedes($0.key.rawValue, $1.key.rawValue) }.map { ($0.key, $0.value, Self.fragment($0.key, $0.value)) }
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(fragments.reduce(2) { $0 + $1.text.count + 1 })
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: fragment.text)
        }
        bytes.append(UInt8(ascii: "}"))
        let made = Entry(controller: controller, version: version, fragments: fragments, bytes: bytes)
        entry.withLock { current in
            // Keep the newest version (a slower reply may serialize an older one).
            if current == nil || current!.controller != controller || current!.version <= version { current = made }
        }
        return bytes
    }

    /// `cached` brought up to `state`, or nil when `state` has other properties.
    private static func refreshed(_ cached: [(key: PropertyKey, value: PropertyValue, text: [UInt8])]?, from state: VehicleState)
        -> [(key: PropertyKey, value: PropertyValue, text: [UInt8])]?
    {
        guard var fragments = cached, fragments.count == state.values.count else { return nil }
        for index in fragments.indices {
            guard let value = state[fragments[index].key] else { return nil }
            if value != fragments[index].value { fragments[index] = (fragments[index].key, value, fragment(fragments[index].key, value)) }
        }
        return fragments
    }

    private static func fragment(_ key: PropertyKey, _ value: PropertyValue) -> [UInt8] {
        var text: [UInt8] = []
        JSONBytes.appendString(key.rawValue, to: &text)
        text.append(UInt8(ascii: ":"))
        value.jsonValue.write(to: &text)
        return text
    }
}
