/// The few Python float behaviours that cantools' results depend on, so that this
/// codec gives the same numbers, not just close ones.
enum PythonFloat {
    /// `repr(float)`: Swift's shortest round-trip description has the same digits and
    /// matches it everywhere but 2^53 <= |value| < 1e16, where Swift switches to
    /// exponent notation (`9.87862879174656e+15`) and Python still writes the integer
    /// (`9878628791746560.0`): that range is rewritten.
    static func repr(_ value: Double) -> String {
        let text = value.description
        guard value.magnitude >= 9_007_199_254_740_992, value.magnitude < 1e16,
              let e = text.firstIndex(of: "e"), text[text.index(after: e)...] == "+15" else { return text }
        // d.ddd…e+15: the digits without the point, padded with zeros to 16, then ".0".
        var digits = text[..<e].filter { $0 != "." }
        let negative = digits.hasPrefix("-")
        if negative { digits.removeFirst() }
        digits += String(repeating: "0", count: max(0, 16 - digits.count))
        return (negative ? "-" : "") + digits + ".0"
    }

    /// Python's `divmod(x, y)` for floats (Objects/floatobject.c, float_divmod).
    static func divmod(_ x: Double, _ y: Double) -> (quotient: Double, remainder: Double) {
        var mod = x.truncatingRemainder(dividingBy: y)
        var div = (x - mod) / y
        if mod != 0 {
            if (y < 0) != (mod < 0) {
                mod += y
                div -= 1.0
            }
        } else {
            mod = y.sign == .minus ? -0.0 : 0.0
        }
        var floordiv: Double
        if div != 0 {
            floordiv = div.rounded(.down)
            if div - floordiv > 0.5 { floordiv += 1.0 }
        } else {
            floordiv = (x / y).sign == .minus ? -0.0 : 0.0
        }
        return (floordiv, mod)
    }
}

extension Int128 {
    /// Python's `round(float)`: half to even; nil where Python raises (nan, inf) or
    /// where the result could not fit any CAN signal anyway.
    init?(pythonRounding value: Double) {
        guard value.isFinite else { return nil }
        let rounded = value.rounded(.toNearestOrEven)
        guard abs(rounded) < 1.0e38 else { return nil }
        // Most values fit 64 bits: skip the generic Double -> Int128 conversion.
        if abs(rounded) < 9.0e18 {
            self.init(Int64(rounded))
            return
        }
        self.init(rounded)
    }
}

extension Double {
    /// `Double(value)`, rounded the same way, without the standard library's generic
    /// integer conversion (`BinaryFloatingPoint._convert(from:)` is not specialized for
    /// Int128 and goes through witness tables) for the values that fit 64 bits.
    @inline(__always)
    init(int128 value: Int128) {
        if let small = Int64(exactly: value) {
            self.init(small)
        } else {
            self.init(value)
        }
    }
}
