import CANKit

/// A signal that a frame writes because the profile names it, with the JSON path of
/// profile.json that names it (for errors).
struct NamedSignal: Sendable, Hashable {
    let signal: String
    let path: String
}

/// Which signals a frame writes. A message may have signals that overlap (GMLAN's group
/// signals over a value and its validity bit): reading any of them needs no encoder,
/// but a frame carries only one of two overlapping signals. So a frame writes the
/// signals the profile names, and every signal that shares a bit with no other (at its
/// idle value); a signal that overlaps another is written only when named, and two named
/// signals that share a bit collide (the loader refuses that on a command message).
/// The loader and `FramePlan` both ask here, so they never disagree.
enum FrameWrites {
    /// By signal index (codec order): whether a frame of `message` writes it; and the
    /// named signals that share a bit with one named before them, each with that one.
    /// Of two colliding names the earlier is written.
    static func resolve(_ named: [NamedSignal], in message: DBCMessage) -> (written: [Bool], collisions: [(earlier: NamedSignal, later: NamedSignal)]) {
        let codec = message.codec
        var written = [Bool](repeating: false, count: message.signals.count)
        var collisions: [(earlier: NamedSignal, later: NamedSignal)] = []
        var writer: [Int: NamedSignal] = [:]
        for name in named {
            guard let index = codec.index(ofSignal: name.signal), !written[index] else { continue }
            if let other = codec.overlappingSignals(ofSignalAt: index).first(where: { written[$0] }) {
                collisions.append((writer[other]!, name))
                continue
            }
            written[index] = true
            writer[index] = name
        }
        for index in written.indices where codec.overlappingSignals(ofSignalAt: index).isEmpty { written[index] = true }
        return (written, collisions)
    }
}

extension VehicleProfile {
    /// The signals of `message` that the head unit's command frames write by name, in the
    /// order a collision is reported: the protection fields, the command signals of the
    /// bindings (by property), then `messages.<M>.defaults`.
    func commandSignalsNamed(in message: String) -> [NamedSignal] {
        var named = protectionSignalsNamed(in: message)
        for key in bindings.keys.sorted() {
            guard let command = bindings[key]?.command, command.message == message else { continue }
            let path = "bindings[\"\(key.rawValue)\"].command"
            switch command {
            case let .setpoint(setpoint):
                if setpoint.also.isEmpty {
                    named.append(NamedSignal(signal: setpoint.signal.signal, path: path + ".signal"))
                } else {
                    for (index, signal) in setpoint.signals.enumerated() { named.append(NamedSignal(signal: signal, path: path + ".signals[\(index)]")) }
                }
            case let .momentary(momentary):
                for value in momentary.requests.keys.sorted() {
                    named.append(NamedSignal(signal: momentary.requests[value]!.signal.signal, path: path + ".requests[\"\(value)\"].signal"))
                }
            case let .toggle(toggle): named.append(NamedSignal(signal: toggle.press.signal.signal, path: path + ".signal"))
            case let .step(step):
                named.append(NamedSignal(signal: step.up.signal.signal, path: path + ".up.signal"))
                named.append(NamedSignal(signal: step.down.signal.signal, path: path + ".down.signal"))
            }
        }
        for key in bindings.keys.sorted() {
            guard let binding = bindings[key], binding.command?.message == message else { continue }
            for companion in binding.companions {
                named.append(NamedSignal(signal: companion.signal.signal, path: "bindings[\"\(key.rawValue)\"].command.with[\"\(companion.signal.signal)\"]"))
            }
        }
        for signal in (messages[message]?.defaults.keys).map({ $0.sorted() }) ?? [] {
            named.append(NamedSignal(signal: signal, path: "messages[\"\(message)\"].defaults[\"\(signal)\"]"))
        }
        return named
    }

    /// The signals of `message` that the vehicle's frames (status, acknowledgement) write
    /// by name: the protection fields, the acknowledgement's signals, then the bound
    /// status signals (by property), each followed by its validity qualifier.
    func vehicleSignalsNamed(in message: String) -> [NamedSignal] {
        var named = protectionSignalsNamed(in: message)
        if let ack = acknowledgement, ack.message == message {
            named += [
                NamedSignal(signal: ack.commandIDSignal, path: "acknowledgement.commandId"),
                NamedSignal(signal: ack.counterSignal, path: "acknowledgement.counter"),
                NamedSignal(signal: ack.resultSignal, path: "acknowledgement.result"),
            ]
        }
        for key in bindings.keys.sorted() {
            guard let binding = bindings[key], binding.status.message == message else { continue }
            named.append(NamedSignal(signal: binding.status.signal, path: "bindings[\"\(key.rawValue)\"].status.signal"))
            if let validity = binding.validity {
                named.append(NamedSignal(signal: validity.signal.signal, path: "bindings[\"\(key.rawValue)\"].status.valid.signal"))
            }
        }
        return named
    }

    private func protectionSignalsNamed(in message: String) -> [NamedSignal] {
        guard let protection = protection[message] else { return [] }
        let path = "messages[\"\(message)\"].protection"
        return [
            protection.checksumSignal.map { NamedSignal(signal: $0, path: path + ".checksum") },
            protection.counterSignal.map { NamedSignal(signal: $0, path: path + ".counter") },
        ].compactMap { $0 }
    }
}
