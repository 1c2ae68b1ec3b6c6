import CANBus
import CANKit
import CarIntents
import CarplayText
import LinuxSupport
import SocketCAN
import Synchronization
import VehicleKit

/// `carplayctl profile try`: a profile against the real bus. Read-only first: each
/// binding's status as the bus carries it, flagged when its message never arrives, when
/// its value cannot be read, or (a warning) when it never changes. With `--commands`,
/// then one command at a time, each confirmed by the status or not.
enum ProfileTryCommand {
    static let usage = """
          try     carplayctl profile try DIR --can IFACE [--seconds N] [--commands]
                  listen N seconds (default 5), sending nothing, and print per binding
                  its status message's frames, the values read, and a verdict: ok,
                  never arrives, unreadable (why), or constant (it did not change: change
                  it on the car to check). --commands: then set each commanded property
                  to another value, one at a time, and say whether the status confirmed
                  it. Exit 1 when a binding never arrives, cannot be read, or a command
                  is not confirmed.
        """

    /// What the bus showed of one binding.
    struct Reading: Sendable {
        var frames = 0
        var values: [PropertyValue] = []
        var unreadable: String?
    }

    static func run(_ arguments: [String]) async throws -> Int32 {
        var rest = arguments
        let interface = try DBCDiff.takeValue("--can", from: &rest)
        let seconds = try DBCDiff.takeValue("--seconds", from: &rest).map { text -> Double in
            guard let value = Double(text), value > 0, value <= 3600 else { throw UsageError("--seconds takes 0 < N <= 3600, not '\(text)'") }
            return value
        }
        let commands = DBCDiff.take("--commands", from: &rest)
        if let option = rest.first(where: { $0.hasPrefix("-") }) { throw UsageError("unknown option \(option)") }
        guard rest.count == 1 else { throw UsageError("try takes one profile directory") }
        guard let interface else { throw UsageError("try needs --can IFACE (the car's bus)") }
        let profile: VehicleProfile
        do {
            profile = try ProfileCommand.load(rest[0])
        } catch {
            printError(error.description)
            return ExitCode.usage
        }
        let frames = VehicleFrames(profile: profile)
        let ids = frames.statusMessages.values.map(\.message.canID)
        let fd = profile.database.messages.contains(where: \.isFD)

        // Read-only: the statuses as they come.
        let readings = Mutex<[PropertyKey: Reading]>([:])
        let checkers = Mutex<[String: FrameChecker]>([:])
        let port: SocketCANPort
        do {
            port = try SocketCANPort(interface: interface, fd: fd, acceptedIDs: ids)
        } catch {
            throw OperationFailure("cannot open CAN interface \(interface): \(error)")
        }
        port.startReceiving(
            CANReceiver(
                frame: { received in
                    let content = checkers.withLock { frames.decodeFromVehicle(received.frame, checkers: &$0) }
                    guard case let .status(message, values, unreadable) = content else { return }
                    readings.withLock { readings in
                        for key in frames.statusMessages[message]?.properties.keys ?? [:].keys {
                            readings[key, default: Reading()].frames += 1
                        }
                        for (key, value) in values where readings[key]?.values.contains(value) != true {
                            readings[key, default: Reading()].values.append(value)
                        }
                        for (key, why) in unreadable { readings[key, default: Reading()].unreadable = why }
                    }
                }, finished: {}))
        let listen = seconds ?? 5
        print("listening on \(interface) for \(readableNumber(listen)) s, sending nothing ...")
        try? await Task.sleep(for: .milliseconds(Int(listen * 1000)))
        await port.close()

        var failed = false
        let read = readings.withLock { $0 }
        var rows: [[String]] = [["property", "message.signal", "frames", "values", "verdict"]]
        for key in profile.bindings.keys.sorted() {
            let binding = profile.bindings[key]!
            let reading = read[key] ?? Reading()
            let verdict: String
            if reading.frames == 0 {
                verdict = "NEVER ARRIVES"
                failed = true
            } else if reading.values.isEmpty {
                verdict = "UNREADABLE: \(reading.unreadable ?? "no value")"
                failed = true
            } else if reading.values.count == 1 {
                verdict = "constant (change it on the car to check)"
            } else {
                verdict = "ok"
            }
            let shown = reading.values.prefix(4).map(\.description).joined(separator: ",") + (reading.values.count > 4 ? ",…" : "")
            rows.append([key.rawValue, "\(binding.status.message).\(binding.status.signal)", "\(reading.frames)", shown.isEmpty ? "-" : shown, verdict])
        }
        print(table(rows), terminator: "")

        if commands {
            failed = try await tryCommands(profile, interface: interface, fd: fd, ids: ids) || failed
        }
        return failed ? ExitCode.failure : ExitCode.success
    }

    /// Sets each commanded property to another value than the car shows, one at a time;
    /// true when one was not confirmed.
    static func tryCommands(_ profile: VehicleProfile, interface: String, fd: Bool, ids: [CANID]) async throws -> Bool {
        let port: SocketCANPort
        do {
            port = try SocketCANPort(interface: interface, fd: fd, acceptedIDs: ids)
        } catch {
            throw OperationFailure("cannot open CAN interface \(interface): \(error)")
        }
        let controller = VehicleController(profile: profile, port: port)
        controller.start()
        defer { controller.stop() }
        guard await controller.waitUntilComplete(timeout: .seconds(10)) else {
            print("commands: not every status message arrived within 10 s; nothing sent")
            await port.close()
            return true
        }
        var failed = false
        for key in profile.bindings.keys.sorted() where profile.bindings[key]?.command != nil {
            let state = controller.currentState
            guard let target = anotherValue(key, from: state[key], in: profile) else { continue }
            let outcome = await controller.apply([key: target], timeout: profile.policies.confirmationTimeout)
            if let failure = outcome.failure {
                print("\(key.rawValue) -> \(target): NOT CONFIRMED: \(failure)")
                failed = true
            } else {
                print("\(key.rawValue) -> \(target): confirmed by the status")
            }
        }
        controller.stop()
        await port.close()
        return failed
    }

    /// A value the property can take other than `current`.
    static func anotherValue(_ key: PropertyKey, from current: PropertyValue?, in profile: VehicleProfile) -> PropertyValue? {
        switch key.kind {
        case .bool?: return .bool(current != .bool(true))
        case let .enumeration(cases)?:
            let mapped = profile.bindings[key]?.statusValues.values.keys.sorted() ?? []
            return (mapped.isEmpty ? cases.names : mapped).first { PropertyValue.enumeration($0) != current }.map { .enumeration($0) }
        case .integer?:
            let value = current.flatMap { if case let .integer(number) = $0 { number } else { nil } } ?? 0
            let top = key == .fanSpeed ? (profile.climate?.fanSpeedLevels ?? 1) : value + 1
            return .integer(value + 1 <= top ? value + 1 : max(0, value - 1))
        case .number?:
            guard key.rawValue.hasPrefix("climate.temperature."), let range = profile.climate?.celsius, let value = current?.doubleValue else { return nil }
            return .number(value + range.step <= range.max ? value + range.step : value - range.step)
        case nil: return nil
        }
    }

    static func table(_ rows: [[String]]) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max()! }
        return rows.map { row in row.indices.map { $0 == row.count - 1 ? row[$0] : padded(row[$0], widths[$0] + 1) }.joined() }.joined(separator: "\n") + "\n"
    }
}
