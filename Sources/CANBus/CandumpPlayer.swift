import CANKit

/// Sends a `CandumpReplay` on a port: each frame at its recorded offset from the start
/// (timed), or when `step` returns (step mode: the recorded times are ignored).
public struct CandumpPlayer: Sendable {
    public let replay: CandumpReplay
    public let port: any CANPort
    /// Start again after each pass (`CandumpReplay.period`), until cancelled.
    public let loop: Bool

    public init(replay: CandumpReplay, port: any CANPort, loop: Bool = false) {
        self.replay = replay
        self.port = port
        self.loop = loop
    }

    /// Plays the log; returns the number of frames sent, when done, cancelled, or when the
    /// port refuses a frame for good (closed). A frame the bus cannot take now (a full
    /// transmit queue) is lost, as with `canplayer`, and counted in `failed`.
    /// `step`, when given, is awaited before each frame; returning false stops.
    /// `clock`: the timekeeper's loop by default, so that a replayed car keeps its timing
    /// whatever holds Swift's cooperative pool.
    public func play(
        clock: any MonotonicClock = Timekeeper.loop, step: (@Sendable (Int, CANFrame) async -> Bool)? = nil, sent: @Sendable (CANFrame) -> Void = { _ in }
    )
        async -> (sent: Int, failed: Int)
    {
        var count = 0
        var failed = 0
        guard !replay.entries.isEmpty else { return (0, 0) }
        let origin = clock.now
        var pass = 0
        while !Task.isCancelled {
            for (index, entry) in replay.entries.enumerated() {
                if let step {
                    guard await step(index, entry.frame) else { return (count, failed) }
                } else {
                    do { try await clock.sleep(until: origin.advanced(by: replay.time(of: index, pass: pass))) } catch {
                        return (count, failed)
                    }
                }
                if Task.isCancelled { return (count, failed) }
                switch port.send(entry.frame) {
                case .sent, .queued:
                    count += 1
                    sent(entry.frame)
                case .failed(.closed):
                    return (count, failed)
                case .failed:
                    failed += 1
                }
            }
            guard loop else { break }
            pass += 1
        }
        return (count, failed)
    }
}
