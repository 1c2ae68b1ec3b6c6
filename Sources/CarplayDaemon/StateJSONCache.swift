import CarIntents
import CarplayJSON
import Synchronization
import VehicleKit

/// One vehicle session's state as JSON text, made once per state version (flat for the
/// generic methods, grouped for the typed ones): every Handle and Perform reply carries
/// the whole state, and most replies between two changes are to intents that changed
/// nothing. A new version re-serializes only the properties whose value changed (per
/// property its `"key":value` text is kept), so the cost of a reply does not grow with
/// the number of properties. One per session (`DaemonState`): versions count from the
/// session's start.
final class StateJSONCache: Sendable {
    private struct Entry {
        var version: Int
        /// Per property its value and `"key":value` text, in the order `JSONValue`
        /// writes keys.
        var fragments: [(key: PropertyKey, value: PropertyValue, text: [UInt8])]
        /// Per property in the state's own iteration order, its place in `fragments`: a
        /// refresh walks the state instead of looking each property up.
        var places: [Int]
        var bytes: [UInt8]
    }

    private let entry = Mutex<Entry?>(nil)
    /// The typed methods' grouped state (VehicleState), whole per version: its nesting
    /// does not split into per-property fragments.
    private let grouped = Mutex<(version: Int, bytes: [UInt8])?>(nil)

    func groupedJSON(_ state: VehicleState, version: Int) -> [UInt8] {
        if let cached = grouped.withLock({ $0 }), cached.version == version { return cached.bytes }
        let bytes = state.groupedJSON.serializedBytes()
        grouped.withLock { current in
            if current == nil || current!.version <= version { current = (version, bytes) }
        }
        return bytes
    }

    func json(_ state: VehicleState, version: Int) -> [UInt8] {
        // Made under the lock, in place: a copy of the fragments out of the cache and back
        // cost as much as the properties' lookups. Each version is made once, by the
        // first reply that needs it; the others wait for it rather than make it too.
        entry.withLock { current in
            if let cached = current {
                if cached.version == version { return cached.bytes }
                // A slower reply of an older version: made for it alone, the cache keeps the newer.
                if cached.version > version { return Self.made(Self.fragments(of: state).fragments) }
            }
            if current == nil || !Self.refresh(&current!, from: state) {
                let (fragments, places) = Self.fragments(of: state)
                current = Entry(version: version, fragments: fragments, places: places, bytes: [])
            }
            current!.version = version
            current!.bytes = Self.made(current!.fragments)
            return current!.bytes
        }
    }

    /// `state`'s fragments, made anew, in `JSONValue`'s key order, and their places in the
    /// order the state iterates.
    private static func fragments(of state: VehicleState) -> (
        fragments: [(key: PropertyKey, value: PropertyValue, text: [UInt8])], places: [Int]
    ) {
        let fragments = state.values.sorted { JSONBytes.precedes($0.key.rawValue, $1.key.rawValue) }.map {
            (key: $0.key, value: $0.value, text: fragment($0.key, $0.value))
        }
        let place = Dictionary(uniqueKeysWithValues: fragments.enumerated().map { ($0.element.key, $0.offset) })
        return (fragments, state.values.keys.map { place[$0]! })
    }

    /// The object of `fragments`.
    private static func made(_ fragments: [(key: PropertyKey, value: PropertyValue, text: [UInt8])]) -> [UInt8] {
        var count = 1
        for index in fragments.indices { count += fragments[index].text.count + 1 }
        // Each fragment's text read in place: a loop over the tuples would copy each (its
        // key, value and text retained and released).
        return [UInt8](unsafeUninitializedCapacity: max(count, 2)) { buffer, written in
            buffer[0] = UInt8(ascii: "{")
            written = 1
            for index in fragments.indices {
                if index > 0 {
                    buffer[written] = UInt8(ascii: ",")
                    written += 1
                }
                fragments[index].text.withUnsafeBufferPointer { text in
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[written..<written + text.count]).initialize(from: text)
                    written += text.count
                }
            }
            buffer[written] = UInt8(ascii: "}")
            written += 1
        }
    }

    /// Brings `entry`'s fragments up to `state`, re-making those whose value moved, without
    /// a lookup: the state is walked in its own order, which stays as long as its keys do
    /// (a dictionary reorders only when it grows). False (left half done) when a key is not
    /// where it was: other properties, or the same ones reordered.
    private static func refresh(_ entry: inout Entry, from state: VehicleState) -> Bool {
        guard entry.places.count == state.values.count else { return false }
        for (place, property) in zip(entry.places, state.values) {
            guard entry.fragments[place].key == property.key else { return false }
            if property.value != entry.fragments[place].value {
                entry.fragments[place].value = property.value
                entry.fragments[place].text = fragment(property.key, property.value)
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
