import CANKit
import LinuxSupport

/// `carplayctl can status [IFACE]`: what libsocketcan knows about a CAN interface.
enum CANCommand {
    static let usage = """
        usage: carplayctl can status [IFACE]   (default vcan0)

          Shows the controller state (error-active, error-warning, error-passive,
          bus-off, stopped), restart-ms and the error counters where the device has
          them (a real controller); on vcan these are "not applicable". For the bus
          as carplayd sees it (dropped frames, error frames, reconnects), use
          `carplayctl status`.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard arguments.first == "status" else { throw UsageError("unknown can command; try `carplayctl can status [IFACE]`") }
        guard arguments.count <= 2 else { throw UsageError("can status takes at most one interface") }
        let name = arguments.count == 2 ? arguments[1] : "vcan0"
        guard CANSocket.interfaceExists(name) else {
            throw OperationFailure("no network interface \(name)")
        }
        let facts = CANInterfaceFacts.read(interface: name)
        func show<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "not applicable" }
        print("\(name):")
        print("  controller state: \(facts.state?.rawValue ?? "not applicable")")
        print("  restart-ms:       \(show(facts.restartMilliseconds))")
        print("  tx/rx errors:     \(facts.transmitErrors.map { "\($0) / \(facts.receiveErrors ?? 0)" } ?? "not applicable")")
        if !facts.hasController { print("  (no CAN controller: a virtual interface such as vcan)") }
        return ExitCode.success
    }
}
