/// A name as it is spoken: `carName` is an `INSpeakableString` in SiriKit, so "My SUV",
/// "my suv" and "my-S.U.V." name the same car. The key keeps letters and digits, in
/// lower case, and drops spaces and punctuation.
public enum SpokenName {
    public static func key(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil }.map(Character.init))
    }
}
