/// The vehicle's state: every known property and its value. Unknown until a status
/// frame (or a starting state) says otherwise.
public struct VehicleState: Sendable, Hashable {
    public private(set) var values: [PropertyKey: PropertyValue]

    public init(_ values: [PropertyKey: PropertyValue] = [:]) { self.values = values }

    public subscript(key: PropertyKey) -> PropertyValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    public var keys: [PropertyKey] { values.keys.sorted() }

    /// The keys whose values differ between the two states (either side missing counts).
    public func changes(from other: VehicleState) -> [PropertyKey] {
        Set(values.keys).union(other.values.keys).filter { values[$0] != other.values[$0] }.sorted()
    }

    public mutating func merge(_ other: VehicleState) {
        for (key, value) in other.values { values[key] = value }
    }
}
