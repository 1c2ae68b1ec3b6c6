/// Matching what a user says ("jazz", "Jazz FM") against the profile's station vocabulary.
///
/// The rule (VehicleProfiles/README.md, "Station names"): names are compared as words,
/// case-insensitively, ignoring punctuation ("Hits-1" is the words "hits", "1").
/// 1. A station whose whole name equals the spoken words is the match (names are unique).
/// 2. Otherwise every station whose name contains the spoken words as a run of whole
///    words matches ("jazz" matches "Jazz FM" and "Smooth Jazz", not "Jazzy Beats").
/// No match: the station is unknown; several: the caller asks which one (disambiguation).
extension RadioCapabilities {
    /// Lowercased words of a name: runs of letters and digits.
    public static func words(of name: String) -> [String] {
        name.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// The stations a spoken name matches, in profile order: one for an exact name,
    /// all stations containing the words otherwise (none, one, or several).
    public func stations(matching spoken: String) -> [RadioStation] {
        let query = Self.words(of: spoken)
        guard !query.isEmpty else { return [] }
        if let exact = stations.first(where: { Self.words(of: $0.name) == query }) { return [exact] }
        return stations.filter { station in
            let words = Self.words(of: station.name)
            guard words.count >= query.count else { return false }
            return (0...(words.count - query.count)).contains { Array(words[$0..<($0 + query.count)]) == query }
        }
    }
}
