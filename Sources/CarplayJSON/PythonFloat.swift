/// Floats as Python writes them: cantools' output (and so this project's JSON, DBC
/// and decoder output) is Python's `repr`.
public enum PythonFloat {
    /// `repr(float)`: Swift's shortest round-trip description has the same digits and
    /// matches it everywhere but 2^53 <= |value| < 1e16, where Swift switches to
    /// exponent notation (`9.87862879174656e+15`) and Python still writes the integer
    /// (`9878628791746560.0`): that range is rewritten.
    public static func repr(_ value: Double) -> String {
        let text = value.description
        guard value.magnitude >= 9_007_199_254_740_992, value.magnitude < 1e16,
            let e = text.firstIndex(of: "e"), text[text.index(after: e)...] == "+15"
        else { return text }
        // d.ddd…e+15: the digits without the point, padded with zeros to 16, then ".0".
        var digits = text[..<e].filter { $0 != "." }
        let negative = digits.hasPrefix("-")
        if negative { digits.removeFirst() }
        digits += String(repeating: "0", count: max(0, 16 - digits.count))
        return (negative ? "-" : "") + digits + ".0"
    }
}
