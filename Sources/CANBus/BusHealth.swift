import CANKit

/// How a CAN bus is doing, from the controller's error frames and the socket.
public struct BusHealth: Sendable, Hashable, CustomStringConvertible {
    public enum State: String, Sendable, Hashable, CaseIterable {
        case errorActive = "error-active"
        case errorWarning = "error-warning"
        case errorPassive = "error-passive"
        case busOff = "bus-off"
        /// The interface is down or gone; the port is reconnecting.
        case down
    }

    public var state: State = .errorActive
    /// Frames the kernel dropped because the socket's queue was full (SO_RXQ_OVFL).
    public var droppedFrames: UInt32 = 0
    /// Error frames received.
    public var errorFrames: Int = 0
    /// Controller restarts after bus-off, and reconnects after the interface came back.
    public var restarts: Int = 0
    public var lastError: String?

    public init() {}

    public var description: String {
        var text = state.rawValue
        if droppedFrames > 0 { text += ", \(droppedFrames) frames dropped" }
        if errorFrames > 0 { text += ", \(errorFrames) error frames" }
        if let lastError { text += ", last: \(lastError)" }
        return text
    }

    /// Applies one error frame (linux/can/error.h): the class in the ID, details in data.
    public mutating func apply(errorFrame frame: CANFrame) {
        errorFrames += 1
        let errorClass = frame.id.rawValue
        let data = frame.data + [UInt8](repeating: 0, count: max(0, 8 - frame.data.count))
        var notes: [String] = []
        if errorClass & 0x040 != 0 {
            state = .busOff
            notes.append("bus-off")
        }
        if errorClass & 0x100 != 0 {
            state = .errorActive
            restarts += 1
            notes.append("controller restarted")
        }
        if errorClass & 0x004 != 0 {
            let controller = data[1]
            if controller & 0x30 != 0 {
                state = .errorPassive
                notes.append("error-passive")
            } else if controller & 0x0C != 0, state != .errorPassive, state != .busOff {
                state = .errorWarning
                notes.append("error-warning")
            }
            if controller & 0x40 != 0 {
                state = .errorActive
                notes.append("back to error-active")
            }
            if controller & 0x03 != 0 { notes.append("controller buffer overflow") }
        }
        if errorClass & 0x001 != 0 { notes.append("TX timeout") }
        if errorClass & 0x008 != 0 { notes.append("protocol violation") }
        if errorClass & 0x020 != 0 { notes.append("no ACK") }
        if errorClass & 0x080 != 0 { notes.append("bus error") }
        if !notes.isEmpty { lastError = notes.joined(separator: ", ") }
    }
}
