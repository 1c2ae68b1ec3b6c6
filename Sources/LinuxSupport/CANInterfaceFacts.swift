import CSocketCAN

/// What libsocketcan can tell about a CAN network device. Virtual devices (vcan)
/// have no controller, so each fact is optional: `nil` means "not applicable".
public struct CANInterfaceFacts: Sendable, Equatable {
    public enum ControllerState: String, Sendable {
        case errorActive = "error-active"
        case errorWarning = "error-warning"
        case errorPassive = "error-passive"
        case busOff = "bus-off"
        case stopped
        case sleeping
    }

    public var name: String
    public var state: ControllerState?
    public var restartMilliseconds: UInt32?
    public var transmitErrors: UInt16?
    public var receiveErrors: UInt16?

    /// Reads every fact the device has; a fact the device lacks stays `nil`.
    public static func read(interface name: String) -> CANInterfaceFacts {
        var facts = CANInterfaceFacts(name: name)
        var rawState: Int32 = 0
        if can_get_state(name, &rawState) == 0 {
            facts.state = ControllerState(netlinkValue: rawState)
        }
        var restart: UInt32 = 0
        if can_get_restart_ms(name, &restart) == 0 { facts.restartMilliseconds = restart }
        var counters = can_berr_counter()
        if can_get_berr_counter(name, &counters) == 0 {
            facts.transmitErrors = counters.txerr
            facts.receiveErrors = counters.rxerr
        }
        return facts
    }

    public init(name: String) { self.name = name }

    /// True when the device answered none of the controller queries (vcan, or no such device).
    public var hasController: Bool { state != nil || restartMilliseconds != nil || transmitErrors != nil }
}

extension CANInterfaceFacts.ControllerState {
    /// `enum can_state` from linux/can/netlink.h.
    init?(netlinkValue: Int32) {
        switch netlinkValue {
        case 0: self = .errorActive
        case 1: self = .errorWarning
        case 2: self = .errorPassive
        case 3: self = .busOff
        case 4: self = .stopped
        case 5: self = .sleeping
        default: return nil
        }
    }
}
