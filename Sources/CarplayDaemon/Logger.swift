import CANBus
import CANKit
import LinuxSupport

/// Log lines on stderr, or journal entries with structured fields under systemd
/// (`JOURNAL_STREAM` or `INVOCATION_ID` set): `MESSAGE`, `PRIORITY`,
/// `SYSLOG_IDENTIFIER=carplayd` and, for each handled intent, `CARPLAYD_INTENT`,
/// `CARPLAYD_PARAMETERS`, `CARPLAYD_RESULT`, `CARPLAYD_REASON`, `CARPLAYD_LATENCY_MS`,
/// `CARPLAYD_CAN_IDS` (docs/SYSTEMD.md).
public struct Logger: Sendable {
    public enum Sink: Sendable, Equatable {
        case standardError
        case journal
    }

    public let level: DaemonConfiguration.LogLevel
    public let sink: Sink

    public init(level: DaemonConfiguration.LogLevel, environment: [String: String] = ProcessEnvironment.current()) {
        self.level = level
        self.sink = SystemdJournal.isWanted(environment: environment) ? .journal : .standardError
    }

    public init(level: DaemonConfiguration.LogLevel, sink: Sink) {
        self.level = level
        self.sink = sink
    }

    public func debug(_ text: @autoclosure () -> String) { write(.debug, text()) }
    public func info(_ text: @autoclosure () -> String) { write(.info, text()) }
    public func warning(_ text: @autoclosure () -> String) { write(.warning, text()) }
    public func error(_ text: @autoclosure () -> String) { write(.error, text()) }

    /// One handled intent: what was asked, how it resolved, the frames, the outcome.
    public func intent(
        name: String, parameters: String, resolutions: String, frames: [ReceivedFrame], response: String, reason: String?, detail: String?,
        latency: Duration, peer: PeerCredentials
    ) {
        guard level <= .info else { return }
        let milliseconds = Double(latency.components.seconds) * 1000 + Double(latency.components.attoseconds) / 1e15
        // The line as bytes (one per intent, on the event loop's thread: string
        // interpolation cost ~5% of an intent).
        var line: [UInt8] = []
        line.reserveCapacity(160 + parameters.utf8.count + resolutions.utf8.count + frames.count * 48)
        line.append(contentsOf: "intent ".utf8)
        line.append(contentsOf: name.utf8)
        line.append(0x20)
        line.append(contentsOf: parameters.utf8)
        line.append(contentsOf: " [".utf8)
        line.append(contentsOf: resolutions.utf8)
        line.append(contentsOf: "] -> ".utf8)
        line.append(contentsOf: response.utf8)
        if let reason {
            line.append(contentsOf: " (".utf8)
            line.append(contentsOf: reason.utf8)
            line.append(0x29)
        }
        if let detail {
            line.append(contentsOf: ": ".utf8)
            line.append(contentsOf: detail.utf8)
        }
        line.append(contentsOf: " in ".utf8)
        line.append(contentsOf: format3(milliseconds).utf8)
        line.append(contentsOf: " ms, uid ".utf8)
        line.append(contentsOf: String(peer.uid).utf8)
        guard sink == .journal else {
            // stderr: the line, then the frames (each at debug, or their IDs and data in
            // one line), written with one system call.
            var text = Array("carplayd: ".utf8)
            text.append(contentsOf: line)
            text.append(0x0A)
            if level <= .debug {
                for frame in frames {
                    text.append(contentsOf: "carplayd: debug:   frame ".utf8)
                    CandumpWriter.appendLogLine(CandumpRecord(timestamp: frame.timestamp, interface: frame.interface, frame: frame.frame), to: &text)
                    text.append(0x0A)
                }
            } else if !frames.isEmpty {
                text.append(contentsOf: "carplayd:   \(frames.count) frames:".utf8)
                for frame in frames {
                    text.append(0x20)
                    CandumpWriter.appendCompactFrame(frame.frame, to: &text)
                }
                text.append(0x0A)
            }
            try? FileDescriptor.standardError.writeAll(text)
            return
        }
        let lines = frames.map(\.logLine)
        var fields: [(name: String, value: String)] = [
            ("CARPLAYD_INTENT", name),
            ("CARPLAYD_PARAMETERS", parameters),
            ("CARPLAYD_RESOLUTIONS", resolutions),
            ("CARPLAYD_RESULT", response),
            ("CARPLAYD_LATENCY_MS", format3(milliseconds)),
            ("CARPLAYD_CAN_IDS", Self.canIDs(lines).joined(separator: " ")),
            ("CARPLAYD_PEER_UID", String(peer.uid)),
        ]
        if let reason { fields.append(("CARPLAYD_REASON", reason)) }
        if let detail { fields.append(("CARPLAYD_DETAIL", detail)) }
        if !lines.isEmpty { fields.append(("CARPLAYD_FRAMES", lines.joined(separator: "\n"))) }
        write(.info, String(decoding: line, as: UTF8.self), fields: fields)
    }

    /// The distinct CAN IDs of candump log lines ("(t) vcan0 1A0#0011"), in order of appearance.
    static func canIDs(_ frames: [String]) -> [String] {
        var seen: [String] = []
        for frame in frames {
            guard let last = frame.split(separator: " ").last, let hash = last.firstIndex(of: "#") else { continue }
            let id = String(last[..<hash])
            if !id.isEmpty, !seen.contains(id) { seen.append(id) }
        }
        return seen
    }

    private func write(_ severity: DaemonConfiguration.LogLevel, _ text: String, fields: [(name: String, value: String)] = []) {
        guard severity >= level else { return }
        if sink == .journal {
            let priority =
                switch severity {
                case .debug: "7"
                case .info: "6"
                case .warning: "4"
                case .error: "3"
                }
            let entry: [(name: String, value: String)] = [("MESSAGE", text), ("PRIORITY", priority), ("SYSLOG_IDENTIFIER", "carplayd")] + fields
            do {
                try SystemdJournal.send(entry)
                return
            } catch {
                // No journal after all: fall through to stderr (which systemd may still collect).
            }
        }
        try? FileDescriptor.standardError.writeAll("carplayd: \(severity == .info ? "" : "\(severity.rawValue): ")\(text)\n")
    }
}

private func format3(_ value: Double) -> String {
    let scaled = (value * 1000).rounded() / 1000
    return scaled.description
}
