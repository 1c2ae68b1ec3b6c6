extension Duration {
    /// Seconds as the interfaces write a duration (GetBusTraffic's uptime, Actuate's elapsed).
    package var wireSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// Whole milliseconds (Describe's confirmationTimeoutMs).
    package var wholeMilliseconds: Int { Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000) }
}
