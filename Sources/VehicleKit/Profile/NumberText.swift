extension Double {
    /// The number as a message shows it: `21`, not `21.0`; `21.5`; at most `decimals`
    /// decimals (the loader's and the simulation's errors, the profile summary).
    package func plainText(decimals: Int = 6) -> String {
        if rounded() == self, abs(self) < 1e15 { return String(Int(self)) }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (self * scale).rounded() / scale
        return rounded.rounded() == rounded && abs(rounded) < 1e15 ? String(Int(rounded)) : "\(rounded)"
    }
}
