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
        // Made under the lock, in place: a copy of the fragments out of the cache and back
        // cost as much as the properties' lookups. Each version is made once, by the
        // first reply that needs it; the others wait for it rather than make it too.
        entry.withLock { current in
            if let cached = current, cached.controller == controller {
                if cached.version == version { return cached.bytes }
                // A slower reply of an older version: made for it alone, the cache keeps the newer.
                if cached.version > version { return Self.made(Self.fragments(of: state)) }
            }
            if current == nil || !Self.refresh(&current!.fragments, from: state) {
                current = Entry(controller: controller, version: version, fragments: Self.fragments(of: state), bytes: [])
            }
            current!.controller = controller
            current!.version = version
            current!.bytes = Self.made(current!.fragments)
            return current!.bytes
        }
    }

    /// `state`'s fragments, made anew, in `JSONValue`'s key order.
    private static func fragments(of state: VehicleState) -> [(key: PropertyKey, value: PropertyValue, text: [UInt8])] {
        state.values.sorted { JSONBytes.precedes($0.key.rawValue, $1.key.rawValue) }.map { ($0.key, $0.value, fragment($0.key, $0.value)) }
    }

    /// The object of `fragments`.
    private static func made(_ fragments: [(key: PropertyKey, value: PropertyValue, text: [UInt8])]) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(fragments.reduce(2) { $0 + $1.text.count + 1 })
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: fragment.text)
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Brings `fragments` up to `state` with one lookup per property, re-making those
    /// whose value moved; false (left half done) when `state` has other properties.
    private static func refresh(_ fragments: inout [(key: PropertyKey, value: PropertyValue, text: [UInt8])], from state: VehicleState) -> Bool {
        guard fragments.count == state.values.count else { return false }
        for index in fragments.indices {
            guard let value = state[fragments[index].key] else { return false }
            if value != fragments[index].value {
                fragments[index].value = value
                fragments[index].text = fragment(fragments[index].key, value)
            }
        }
        return true
    }

    private static func fragment(_ key: PropertyKey, _ value: PropertyValue) -> [UInt8] {
        var text: [UInt8] = []
        JSONBytes.appendString(key.rawValue, to: &text)
        text.append(UInt8(ascii: ":"))
        value.jsonValue.write(to: &text)
        return text
    }
}
