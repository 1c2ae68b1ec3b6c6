import CANBus
import CANKit
import CarplayJSON

// io.carplayd.Vehicle's state replies, one type each, written by the daemon and read by
// its clients: the members are named and typed once, here.

/// GetState: the live state from trusted status frames (a flat map of property keys,
/// values as the vehicle reported them), whether the vehicle is reachable, and the bus.
public struct GetStateReply: CarplaydReply {
    public static let method = "io.carplayd.Vehicle.GetState"
    public var json: [String: JSONValue]
    public var state: [String: JSONValue]
    public var reachable: Bool
    public var bus: BusStatus
    /// The properties whose last status carried no value, with why.
    public var unreadable: [String: String]

    /// The reply the daemon sends; `json` is what it writes.
    public init(state: [String: JSONValue], reachable: Bool, bus: BusStatus, unreadable: [String: String]) {
        self.state = state
        self.reachable = reachable
        self.bus = bus
        self.unreadable = unreadable
        var members: [String: JSONValue] = ["state": .object(state), "reachable": .bool(reachable), "bus": bus.json]
        // Absent when every property read.
        if !unreadable.isEmpty { members["unreadable"] = .object(unreadable.mapValues { .string($0) }) }
        json = members
    }

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        state = try members.required("state").members()
        reachable = try members.required("reachable").bool()
        bus = try BusStatus(json: members.required("bus"))
        unreadable = [:]
        if let node = members.optional("unreadable") {
            for (key, reason) in try node.map() { unreadable[key] = try reason.string() }
        }
    }
}

/// The interface's CANBus: the bus the vehicle is on and its health.
public struct BusStatus: Sendable, Hashable {
    public var interface: String
    /// embedded (in-process, simulated) or socketcan.
    public var kind: String
    /// Frames that failed their E2E or checksum check.
    public var untrustedFrames: Int
    public var health: BusHealth

    public init(interface: String, kind: String, untrustedFrames: Int, health: BusHealth) {
        self.interface = interface
        self.kind = kind
        self.untrustedFrames = untrustedFrames
        self.health = health
    }

    /// The interface's CANBus object.
    public var json: JSONValue {
        var bus: [String: JSONValue] = [
            "interface": .string(interface), "kind": .string(kind), "untrustedFrames": .integer(untrustedFrames),
            "state": .string(health.state.rawValue), "droppedFrames": .integer(Int(health.droppedFrames)),
            "errorFrames": .integer(health.errorFrames), "restarts": .integer(health.restarts),
        ]
        if let lastError = health.lastError { bus["lastError"] = .string(lastError) }
        return .object(bus)
    }

    public init(json node: JSONNode) throws(JSONContentError) {
        let members = try node.object()
        interface = try members.required("interface").string()
        kind = try members.required("kind").string()
        untrustedFrames = try members.required("untrustedFrames").integer()
        health = BusHealth()
        health.state = try members.required("state").enumeration(BusHealth.State.self, what: "bus state")
        let dropped = try members.required("droppedFrames")
        guard let count = UInt32(exactly: try dropped.integer()) else { throw dropped.error("expected a count of frames") }
        health.droppedFrames = count
        health.errorFrames = try members.required("errorFrames").integer()
        health.restarts = try members.required("restarts").integer()
        health.lastError = try members.optional("lastError")?.string()
    }
}

/// GetBusTraffic: what the bus carried per CAN ID since the session started, and the
/// session's age in seconds, read with the counts.
public struct GetBusTrafficReply: CarplaydReply {
    public static let method = "io.carplayd.Vehicle.GetBusTraffic"
    public var json: [String: JSONValue]
    public var messages: [Message]
    public var uptime: Double

    /// The interface's MessageTraffic.
    public struct Message: Sendable, Hashable {
        public var id: CANID
        /// The DBC message's name.
        public var name: String?
        public var received: Int
        /// Of `received`, those that failed their E2E or checksum check.
        public var untrusted: Int
        public var sent: Int
        /// The last frame received, a candump -L line.
        public var lastFrame: String?

        public init(id: CANID, name: String?, received: Int, untrusted: Int, sent: Int, lastFrame: String?) {
            self.id = id
            self.name = name
            self.received = received
            self.untrusted = untrusted
            self.sent = sent
            self.lastFrame = lastFrame
        }
    }

    /// `uptime`: since the vehicle session started.
    public init(messages: [Message], uptime: Duration) { self.init(messages: messages, uptime: uptime.wireSeconds) }

    public init(messages: [Message], uptime: Double) {
        self.messages = messages
        self.uptime = uptime
        json = ["messages": .array(messages.map(\.json)), "uptime": .number(uptime)]
    }

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        uptime = try members.required("uptime").number()
        messages = try members.required("messages").array(Message.init)
    }
}

extension GetBusTrafficReply.Message {
    /// The interface's MessageTraffic object.
    public var json: JSONValue {
        var entry: [String: JSONValue] = [
            "id": .string(id.description), "received": .integer(received), "untrusted": .integer(untrusted), "sent": .integer(sent),
        ]
        if let name { entry["name"] = .string(name) }
        if let lastFrame { entry["lastFrame"] = .string(lastFrame) }
        return .object(entry)
    }

    init(json node: JSONNode) throws(JSONContentError) {
        let message = try node.object()
        let idNode = try message.required("id")
        guard let id = CANID(candump: try idNode.string()) else { throw idNode.error("expected a CAN ID as candump writes it") }
        self.id = id
        name = try message.optional("name")?.string()
        received = try message.required("received").integer()
        untrusted = try message.required("untrusted").integer()
        sent = try message.required("sent").integer()
        lastFrame = try message.optional("lastFrame")?.string()
    }
}
