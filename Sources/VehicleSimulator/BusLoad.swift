import CANKit
import VehicleKit

/// The rest of a real car's bus: every message of the profile's DBC that neither the
/// simulated vehicle nor the head unit sends, at its cycle time, so that a head unit
/// meets the traffic of the car it was written for and not only the few IDs it reads.
/// Pure: what to send and when; `BusLoadPlayer` sends it.
///
/// A message's period is the profile's `cycleTimeMs`, else the DBC's `GenMsgCycleTime`,
/// else `defaultPeriod`. Its data is all zeros (the load is the point, not the values);
/// the messages start spread over their period, as ECUs that booted at different times.
public struct BusLoad: Sendable {
    public struct Message: Sendable, Equatable {
        public var frame: CANFrame
        public var name: String
        public var period: Duration
    }

    public static let defaultPeriod = Duration.milliseconds(100)

    public let messages: [Message]

    public init(profile: VehicleProfile, defaultPeriod: Duration = BusLoad.defaultPeriod) {
        let frames = VehicleFrames(profile: profile)
        var excluded = Set(frames.statusMessages.keys).union(frames.commandMessages)
        if let ack = profile.acknowledgement?.message { excluded.insert(ack) }
        excluded.formUnion(profile.protection.keys)
        messages = profile.database.messages.filter { !excluded.contains($0.name) }.sorted { $0.frameID < $1.frameID }.compactMap { message in
            let kind: CANFrame.Kind = message.isFD ? .fd(bitRateSwitch: false, errorStateIndicator: false) : .classic
            guard let frame = try? CANFrame(id: message.canID, data: [UInt8](repeating: 0, count: message.length), kind: kind) else { return nil }
            let period = profile.cycleTime(of: message).flatMap { $0 > .zero ? $0 : nil } ?? defaultPeriod
            return Message(frame: frame, name: message.name, period: period)
        }
    }

    /// Frames per second the load puts on the bus.
    public var framesPerSecond: Double {
        messages.reduce(0) { $0 + 1 / ($1.period / .seconds(1)) }
    }

    /// When each message is next due, from the start of the load.
    public struct Schedule: Sendable {
        let load: BusLoad
        var due: [Duration]

        /// The frames due at `elapsed` (each message once, however late), and the next
        /// of them rescheduled one period on.
        public mutating func frames(at elapsed: Duration) -> [CANFrame] {
            var frames: [CANFrame] = []
            for index in due.indices where due[index] <= elapsed {
                frames.append(load.messages[index].frame)
                let period = load.messages[index].period
                due[index] += period
                // Far behind (a stalled sender): skip the missed periods, do not burst them.
                if due[index] <= elapsed { due[index] = elapsed + period }
            }
            return frames
        }

        /// When the next frame is due; nil when there are no messages.
        public var nextDue: Duration? { due.min() }
    }

    /// A schedule starting at 0, each message's first frame spread over its period
    /// (by the golden ratio of its place, so that no two periods start together).
    public func schedule() -> Schedule {
        let due = messages.indices.map { index in
            let fraction = (Double(index) * 0.618_033_988_75).truncatingRemainder(dividingBy: 1)
            return messages[index].period * fraction
        }
        return Schedule(load: self, due: due)
    }
}
