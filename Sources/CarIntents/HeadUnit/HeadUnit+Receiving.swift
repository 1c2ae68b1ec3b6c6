import CANBus
import CANKit
import VehicleKit

/// Frames from the vehicle: decoded and checked, the state updated, commands and waits
/// settled.
extension HeadUnit {
    /// Handles one received frame at `now` (the time its trust counts from).
    public mutating func receive(_ received: ReceivedFrame, at now: Instant) -> [Event] {
        let content = frames.decodeFromVehicle(received.frame, context: state, checkers: &checkers)
        var events: [Event] = []
        // Every command records the frames of its window, related or not, as candump would.
        for index in commands.indices { commands[index].frames.append(received) }
        let canID = received.frame.id
        traffic[canID, default: MessageTraffic(id: canID)].count(received)
        switch content {
        case let .status(message, values, noValue):
            lastTrustedStatus = now
            lastStatusStamp[message] = received.timestamp
            heardFrom.insert(message)
            var changed: [PropertyKey] = []
            for (key, value) in values where state[key] != value {
                state[key] = value
                changed.append(key)
            }
            // A value the car says nothing trustworthy about is forgotten, never kept stale.
            for (key, reason) in noValue {
                unreadable[key] = reason
                if state[key] != nil {
                    state[key] = nil
                    changed.append(key)
                }
            }
            if !unreadable.isEmpty { for key in values.keys { unreadable[key] = nil } }
            if !changed.isEmpty {
                stateVersion &+= 1
                events.append(.changed(StateChange(keys: changed.sorted(), state: state, frame: received)))
                if !lateWatches.isEmpty { reportLateApplications(among: changed, frame: received, at: now, &events) }
            }
            for index in commands.indices where commands[index].statusMessages.contains(message) {
                if Self.update(&commands[index], message: message, values: values, noValue: noValue) {
                    settle(at: index, with: nil, &events)
                }
            }
            endWaits(at: now, &events)
        case let .acknowledgement(ack):
            lastTrustedStatus = now
            acknowledgements += 1
            endWaits(at: now, &events)
            guard !ack.accepted else { break }
            for index in commands.indices {
                guard let sent = commands[index].sent.first(where: { $0.id == ack.commandFrameID && ($0.counter == nil || $0.counter == ack.counter) })
                else { continue }
                settle(at: index, with: .rejected(message: sent.message, result: ack.result), &events)
            }
        case let .e2eError(message, status):
            untrustedFrames += 1
            traffic[canID]?.untrusted += 1
            lastUntrustedFrame = "\(message) \(received.frame.id): \(Self.describe(status))"
            // A status message a command needs, or the acknowledgement message: an untrusted
            // acknowledgement may have been any command's (its command ID cannot be trusted
            // either), so a wait that then times out reports the E2E error, not a timeout.
            let isAcknowledgement = message == profile.acknowledgement?.message
            for index in commands.indices where isAcknowledgement || commands[index].statusMessages.contains(message) {
                commands[index].lastE2EError = (message, status)
            }
        case .undecodable, .unrelated:
            break
        }
        return events
    }

    /// `command`'s confirmed targets after a status frame of `message` with `values` (and
    /// nothing trustworthy for `noValue`); true once every target shows.
    /// A trusted frame of `message` also clears an E2E error of that message: its status is
    /// trusted again, and a timeout then is a timeout, not the error of a frame made good.
    private static func update(
        _ command: inout PendingCommand, message: String, values: [PropertyKey: PropertyValue], noValue: [PropertyKey: String]
    ) -> Bool {
        if command.lastE2EError?.message == message { command.lastE2EError = nil }
        for (key, want) in command.expected {
            if !noValue.isEmpty, noValue[key] != nil { command.confirmed[key] = nil }
            guard let value = values[key] else { continue }
            command.confirmed[key] = matches(value, want) ? value : nil
        }
        return command.isConfirmed
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
