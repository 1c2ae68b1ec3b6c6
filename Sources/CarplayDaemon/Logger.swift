import LinuxSupport

/// Log lines on stderr (the journal's structured fields come with the systemd issue).
public struct Logger: Sendable {
    public let level: DaemonConfiguration.LogLevel

    public init(level: DaemonConfiguration.LogLevel) { self.level = level }

    public func debug(_ text: @autoclosure () -> String) { write(.debug, text()) }
    public func info(_ text: @autoclosure () -> String) { write(.info, text()) }
    public func warning(_ text: @autoclosure () -> String) { write(.warning, text()) }
    public func error(_ text: @autoclosure () -> String) { write(.error, text()) }

    /// One handled intent: what was asked, how it resolved, the frames, the outcome.
    public func intent(
        name: String, parameters: String, resolutions: String, frames: [String], response: String, reason: String?, detail: String?,
        latency: Duration, peer: PeerCredentials
    ) {
        let milliseconds = Double(latency.components.seconds) * 1000 + Double(latency.components.attoseconds) / 1e15
        var line = "intent \(name) \(parameters) [\(resolutions)] -> \(response)"
        if let reason { line += " (\(reason))" }
        if let detail { line += ": \(detail)" }
        line += " in \(String(format3(milliseconds))) ms, uid \(peer.uid)"
        info(line)
        for frame in frames { debug("  frame \(frame)") }
        if level > .debug, !frames.isEmpty { info("  \(frames.count) frames: " + frames.map { $0.split(separator: " ").last.map(String.init) ?? $0 }.joined(separator: " ")) }
    }

    private func write(_ severity: DaemonConfiguration.LogLevel, _ text: String) {
        guard severity >= level else { return }
        try? FileDescriptor.standardError.writeAll("carplayd: \(severity == .info ? "" : "\(severity.rawValue): ")\(text)\n")
    }
}

private func format3(_ value: Double) -> String {
    let scaled = (value * 1000).rounded() / 1000
    return scaled.description
}
