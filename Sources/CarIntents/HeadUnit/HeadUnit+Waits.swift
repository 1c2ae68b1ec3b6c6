import VehicleKit

/// What a caller may wait for: reachability, a complete or a known state. Checked after
/// every trusted frame; a wait that does not hold by its deadline ends unmet.
extension HeadUnit {
    public enum Condition: Sendable {
        case reachable
        case complete
        case knowing([PropertyKey])
    }

    struct PendingWait {
        var condition: Condition
        var deadline: Instant
    }

    public func holds(_ condition: Condition, at now: Instant) -> Bool {
        switch condition {
        case .reachable: isReachable(at: now)
        case .complete: heardFrom.count >= frames.statusMessages.count
        case let .knowing(keys): keys.allSatisfy { state[$0] != nil }
        }
    }

    /// Starts waiting for `condition` until `now + timeout`; nil when it holds already.
    public mutating func wait(for condition: Condition, timeout: Duration, at now: Instant) -> Token? {
        if holds(condition, at: now) { return nil }
        let token = makeToken()
        waits[token] = PendingWait(condition: condition, deadline: now + timeout)
        return token
    }

    /// Every wait in progress.
    public var waitCount: Int { waits.count }

    mutating func endWaits(at now: Instant, _ events: inout [Event]) {
        guard !waits.isEmpty else { return }
        for token in waits.keys.sorted() where holds(waits[token]!.condition, at: now) {
            waits[token] = nil
            events.append(.waitEnded(token, met: true))
        }
    }
}
