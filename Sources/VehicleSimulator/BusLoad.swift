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
/// vcan has no bit rate: `fitted(toBitrate:)` keeps the load one a real bus could carry.
public struct BusLoad: Sendable {
    public struct Message: Sendable, Equatable {
        public var frame: CANFrame
        public var name: String
        public var period: Duration
        /// Neither the profile nor the DBC gives the message's cycle time: `period` is a guess.
        public var periodIsAssumed: Bool
    }

    public static let defaultPeriod = Duration.milliseconds(100)
    /// The share of its bus a car's traffic is fitted to: buses are laid out to run well
    /// below full, and half is a common ceiling.
    public static let targetShare = 0.5

    public let messages: [Message]

    public init(profile: VehicleProfile, defaultPeriod: Duration = BusLoad.defaultPeriod) {
        let frames = VehicleFrames(profile: profile)
        var excluded = Set(frames.statusMessages.keys).union(frames.commandMessages)
        if let ack = profile.acknowledgement?.message { excluded.insert(ack) }
        excluded.formUnion(profile.protection.keys)
        messages = profile.database.messages.filter { !excluded.contains($0.name) }.sorted { $0.frameID < $1.frameID }.compactMap { message in
            let kind: CANFrame.Kind = message.isFD ? .fd(bitRateSwitch: false, errorStateIndicator: false) : .classic
            guard let frame = try? CANFrame(id: message.canID, data: [UInt8](repeating: 0, count: message.length), kind: kind) else { return nil }
            let stated = profile.cycleTime(of: message).flatMap { $0 > .zero ? $0 : nil }
            return Message(frame: frame, name: message.name, period: stated ?? defaultPeriod, periodIsAssumed: stated == nil)
        }
    }

    init(messages: [Message]) { self.messages = messages }

    /// Frames per second the load puts on the bus.
    public var framesPerSecond: Double {
        messages.reduce(0) { $0 + 1 / ($1.period / .seconds(1)) }
    }

    /// The share (1: full) of a bus of `bitrate` bit/s the messages take, stuffed at worst.
    public func share(ofBitrate bitrate: Int) -> Double {
        Self.share(of: messages, bitrate: bitrate)
    }

    /// The load as a bus of `bitrate` bit/s could carry it: when it would take more than
    /// `target` of the bus, the messages whose period is assumed are sent less often, all
    /// by one factor, to fill what the stated periods leave of `target` (at least 1 % of
    /// the bus). Stated periods are kept as the car has them, even when they alone exceed it.
    public func fitted(toBitrate bitrate: Int, target: Double = BusLoad.targetShare) -> BusLoad {
        let stated = Self.share(of: messages.lazy.filter { !$0.periodIsAssumed }, bitrate: bitrate)
        let assumed = Self.share(of: messages.lazy.filter(\.periodIsAssumed), bitrate: bitrate)
        let room = max(target - stated, 0.01)
        guard assumed > room else { return self }
        let factor = assumed / room
        return BusLoad(
            messages: messages.map { message in
                guard message.periodIsAssumed else { return message }
                var stretched = message
                // Whole milliseconds, rounded up: never more than `room`.
                stretched.period = .milliseconds(Int((message.period / .milliseconds(1) * factor).rounded(.up)))
                return stretched
            })
    }

    /// Bits one frame takes on the wire: its fields, and a stuff bit for every four bits of
    /// the stuffed part (the worst case). A CAN FD frame is counted as if its data went at
    /// the nominal rate too (no bit-rate switch): an upper bound.
    public static func bitsOnWire(_ frame: CANFrame) -> Int {
        let identifier = frame.id.isExtended ? 31 : 11  // an extended one adds SRR, IDE and 18 bits
        let stuffed: Int
        if frame.isFD {
            // SOF, ID, RRS IDE FDF res BRS ESI, DLC, data, stuff count, CRC-17 or CRC-21.
            stuffed = 1 + identifier + 6 + 4 + 8 * frame.data.count + 4 + (frame.data.count > 16 ? 21 : 17)
        } else {
            // SOF, ID, RTR IDE r0, DLC, data, CRC-15.
            stuffed = 1 + identifier + 3 + 4 + 8 * frame.data.count + 15
        }
        return stuffed + (stuffed - 1) / 4 + 1 + 2 + 7 + 3  // CRC delimiter, ACK, EOF, intermission
    }

    static func share(of messages: some Sequence<Message>, bitrate: Int) -> Double {
        messages.reduce(0) { $0 + Double(bitsOnWire($1.frame)) / ($1.period / .seconds(1)) } / Double(bitrate)
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
