import CarIntents
import CarplayJSON

/// One reply of Monitor: a change of the live state (the changed keys, their values,
/// the frame that changed them), or, with commands, a command's progress (then only
/// `command`).
public struct MonitorReply: CarplaydReply {
    public static let method = "io.carplayd.Vehicle.Monitor"
    public var json: [String: JSONValue]
    public var keys: [String]
    public var state: [String: JSONValue]
    /// The frame, a candump -L line.
    public var frame: String?
    public var command: Command?

    /// The interface's CommandProgress: a command in flight, sent for an intent of any
    /// client; `id` pairs its replies.
    public struct Command: Sendable, Hashable {
        public enum Status: String, Sendable, Hashable, CaseIterable {
            case pending, confirmed, failed, appliedLate
        }

        public var id: Int
        /// The intent it carries out (nil: a command not sent for an intent).
        public var intent: IntentName?
        /// Property key -> the value set, as in GetState.
        public var targets: [String: JSONValue]
        public var status: Status
        /// Why it failed, as an intent response's reason (timeout, rejectedByVehicle, ...).
        public var reason: String?
        /// What the vehicle reported, for people.
        public var detail: String?

        public init(id: Int, intent: IntentName?, targets: [String: JSONValue], status: Status, reason: String? = nil, detail: String? = nil) {
            self.id = id
            self.intent = intent
            self.targets = targets
            self.status = status
            self.reason = reason
            self.detail = detail
        }

        /// The interface's CommandProgress object.
        public var json: JSONValue {
            var command: [String: JSONValue] = ["id": .integer(id), "targets": .object(targets), "status": .string(status.rawValue)]
            if let intent { command["intent"] = .string(intent.rawValue) }
            if let reason { command["reason"] = .string(reason) }
            if let detail { command["detail"] = .string(detail) }
            return .object(command)
        }
    }

    /// A change of the state: the keys that changed, their values, the frame.
    public init(keys: [String], state: [String: JSONValue], frame: String) {
        self.keys = keys
        self.state = state
        self.frame = frame
        command = nil
        json = ["keys": .array(keys.map { .string($0) }), "state": .object(state), "frame": .string(frame)]
    }

    /// A command's progress: then only `command` is present.
    public init(command: Command) {
        keys = []
        state = [:]
        frame = nil
        self.command = command
        json = ["command": command.json]
    }

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        keys = try members.optional("keys")?.strings() ?? []
        state = try members.optional("state")?.members() ?? [:]
        frame = try members.optional("frame")?.string()
        command = try members.optional("command").map(Command.init)
    }
}

extension MonitorReply.Command {
    init(json node: JSONNode) throws(JSONContentError) {
        let command = try node.object()
        id = try command.required("id").integer()
        intent = try command.optional("intent")?.enumeration(IntentName.self, what: "intent")
        targets = try command.required("targets").members()
        status = try command.required("status").enumeration(Status.self, what: "status")
        reason = try command.optional("reason")?.string()
        detail = try command.optional("detail")?.string()
    }
}
