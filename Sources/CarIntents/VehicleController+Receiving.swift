import CANBus
import CANKit
import Synchronization
import VehicleKit

/// Frames from the vehicle: decoded and checked, the state updated, waiters and
/// observers told.
extension VehicleController {
    func handle(_ received: ReceivedFrame) {
        let context = core.withLock { $0.state }
        let content = decoder.withLock { checkers in frames.decodeFromVehicle(received.frame, context: context, checkers: &checkers) }
        let wakes = core.withLock { core -> [Wake] in
            var wakes: [Wake] = []
            handle(received, content, &core, &wakes)
            return wakes
        }
        for wake in wakes { wake.fire() }
    }

    func handle(_ received: ReceivedFrame, _ content: VehicleFrameContent, _ core: inout Core, _ wakes: inout [Wake]) {
        // Every waiter records the frames of its window, related or not, as candump would.
        for id in core.waiters.keys { core.waiters[id]?.frames.append(received) }
        let canID = received.frame.id
        core.traffic[canID, default: MessageTraffic(id: canID)].count(received)
        switch content {
        case let .status(message, values):
            core.lastTrustedStatus = clock.now
            core.lastStatusStamp[message] = received.timestamp
            core.heardFrom.insert(message)
            var changed: [PropertyKey] = []
            for (key, value) in values where core.state[key] != value {
                core.state[key] = value
                changed.append(key)
            }
            if !changed.isEmpty { core.stateVersion &+= 1 }
            if !changed.isEmpty, !core.observers.isEmpty {
                let change = VehicleEvent.changed(StateChange(keys: changed.sorted(), state: core.state, frame: received))
                for observer in core.observers.values { observer.continuation.yield(change) }
            }
            for (id, waiter) in core.waiters where waiter.statusMessages.contains(message) {
                var confirmed = waiter.confirmed
                for (key, want) in waiter.expected {
                    guard let value = values[key] else { continue }
                    if Self.matches(value, want) { confirmed[key] = value } else { confirmed[key] = nil }
                }
                core.waiters[id]?.confirmed = confirmed
                if confirmed.count == waiter.expected.count { Self.finish(id, with: nil, &core, &wakes) }
            }
            checkConditions(&core, &wakes)
        case let .acknowledgement(ack):
            core.lastTrustedStatus = clock.now
            core.acknowledgements += 1
            checkConditions(&core, &wakes)
            guard !ack.accepted else { return }
            for (id, waiter) in core.waiters {
                if let sent = waiter.sent.first(where: { $0.id == ack.commandFrameID && ($0.counter == nil || $0.counter == ack.counter) }) {
                    Self.finish(id, with: .rejected(message: sent.message, result: ack.result), &core, &wakes)
                }
            }
        case let .e2eError(message, status):
            core.untrustedFrames += 1
            core.traffic[canID]?.untrusted += 1
            core.lastUntrustedFrame = "\(message) \(received.frame.id): \(Self.describe(status))"
            // A status message a waiter needs, or the acknowledgement message: an untrusted
            // acknowledgement may have been any waiter's (its command ID cannot be trusted
            // either), so a wait that then times out reports the E2E error, not a timeout.
            let isAcknowledgement = message == profile.acknowledgement?.message
            for (id, waiter) in core.waiters where isAcknowledgement || waiter.statusMessages.contains(message) {
                core.waiters[id]?.lastE2EError = (message, status)
            }
        case .undecodable, .unrelated:
            break
        }
    }

    /// An E2E verdict for the log: "wrongCRC", "repeated counter",
    /// "wrongSequence: counter 8, expected 7", "invalidLength: 3 bytes, 8 needed".
    static func describe(_ status: E2EStatus) -> String {
        switch status {
        case .ok: "ok"
        case .wrongCRC: "wrongCRC"
        case .repeated: "repeated counter"
        case let .wrongSequence(expected?, received): "wrongSequence: counter \(received), expected \(expected)"
        case let .wrongSequence(nil, received): "wrongSequence: counter \(received)"
        case let .invalidLength(required, received): "invalidLength: \(received) bytes, \(required) needed"
        }
    }

    /// Numbers compare with a tolerance (status signals carry them scaled).
    static func matches(_ value: PropertyValue, _ expected: PropertyValue) -> Bool {
        switch (value, expected) {
        case let (.number(a), .number(b)): return abs(a - b) <= 1e-6 * max(1, abs(b))
        case let (.integer(a), .number(b)), let (.number(b), .integer(a)): return abs(Double(a) - b) <= 1e-6 * max(1, abs(b))
        default: return value == expected
        }
    }
}

/// One change of the live state and the status frame that caused it.
public struct StateChange: Sendable {
    public var keys: [PropertyKey]
    public var state: VehicleState
    public var frame: ReceivedFrame
}

/// What an observer of the controller hears, in the order it happened.
public enum VehicleEvent: Sendable {
    case changed(StateChange)
    /// Only for observers that asked (`events(commands: true)`).
    case command(CommandProgress)
}

/// A command in flight, as observers see it: sent with its targets (pending), then
/// settled -- confirmed by the status frames, or failed. `id` pairs the two.
public struct CommandProgress: Sendable {
    public enum Stage: Sendable {
        case pending
        case confirmed
        case failed(CommandFailure)
    }

    public var id: Int
    /// The intent the command carries out (nil for a command not sent for an intent).
    public var intent: IntentName?
    public var targets: [PropertyKey: PropertyValue]
    public var stage: Stage
}
