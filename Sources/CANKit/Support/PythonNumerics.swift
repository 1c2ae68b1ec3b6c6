import CarplayJSON

/// The Python float arithmetic that cantools' results depend on, so that this codec
/// gives the same numbers, not just close ones (`repr`, the text, is CarplayJSON's).
extension PythonFloat {
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
