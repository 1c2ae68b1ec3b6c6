import CANBus
import CANKit
import VehicleKit

/// Cyclic command messages (`messages.<M>.send: cyclic`): a real receiver drops a
/// requester that goes silent, so such a message goes out every period, its idle frame
/// (setpoints without idle carrying the state) between commands. A command's own frames
/// take the place of the idle ones: the cycle restarts after each, and no idle frame
/// goes out while a command's frames are being sent (a held press stays held).
extension HeadUnit {
    /// Starts the cycles at `now`: the first idle frames are due at once.
    public mutating func startCyclicSending(at now: Instant) {
        for message in cyclicMessages where cyclicDue[message.name] == nil { cyclicDue[message.name] = now }
    }

    /// A frame of a cyclic message went out at `now`: the next idle one is a period later.
    public mutating func cyclicFrameSent(_ id: CANID, at now: Instant) {
        guard let message = cyclicMessages.first(where: { $0.id == id }), cyclicDue[message.name] != nil else { return }
        cyclicDue[message.name] = now + message.period
    }

    /// The idle frames due by `now`, as a `send` event.
    mutating func sendCyclicFrames(at now: Instant, _ events: inout [Event]) {
        var due: [CANFrame] = []
        for message in cyclicMessages {
            guard let at = cyclicDue[message.name], at <= now else { continue }
            // Late (a stalled timer): the next one a period from now, not a burst.
            let next = at + message.period
            cyclicDue[message.name] = next > now ? next : now + message.period
            if isSendingCommand(on: message.id) { continue }
            do throws(VehicleFramesError) {
                due += try frames.idleFrames(of: message.name, state: state, counters: &counters)
            } catch {
                // The profile loaded, so its idle frame encodes; nothing to send otherwise.
                continue
            }
        }
        if !due.isEmpty { events.append(.send(due)) }
    }

    /// A command on the message has frames still being sent (no deadline yet).
    func isSendingCommand(on id: CANID) -> Bool {
        commands.contains { $0.isOpen && $0.deadline == nil && $0.sent.contains { $0.id == id.rawValue } }
    }
}
