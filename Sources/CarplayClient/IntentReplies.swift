import CarIntents
import CarplayJSON
import CarplayProtocol
import VehicleKit

/// Resolve: how each parameter resolves; ready when all are success or notRequired.
public struct ResolveReply: CarplaydReply {
    public static let method = "io.carplayd.Vehicle.Resolve"
    public var json: [String: JSONValue]
    public var resolutions: [String: ResolutionResult]
    public var ready: Bool

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        resolutions = try Self.resolutions(members)
        ready = try members.required("ready").bool()
    }
}

/// Confirm: the resolutions and the response (code ready, or a failure).
public struct ConfirmReply: CarplaydReply {
    public static let method = "io.carplayd.Vehicle.Confirm"
    public var json: [String: JSONValue]
    public var resolutions: [String: ResolutionResult]
    public var response: IntentResponse

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        resolutions = try Self.resolutions(members)
        response = try IntentResponse(json: members.required("response"))
    }
}

/// Handle: the response, every frame sent and received (candump -L lines), the state after.
public struct HandleReply: CarplaydReply {
    public static let method = "io.carplayd.Vehicle.Handle"
    public var json: [String: JSONValue]
    public var response: IntentResponse
    public var frames: [String]
    public var state: [String: JSONValue]

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        response = try IntentResponse(json: members.required("response"))
        frames = try members.required("frames").strings()
        state = try members.required("state").members()
    }
}

/// Perform: all three phases' members (what `carplayctl perform --simulate` prints).
public struct PerformReply: CarplaydReply {
    public static let method = "io.carplayd.Vehicle.Perform"
    public var json: [String: JSONValue]
    public var resolutions: [String: ResolutionResult]
    public var response: IntentResponse
    public var frames: [String]
    public var state: [String: JSONValue]

    public init(members: JSONObject) throws(JSONContentError) {
        json = members.fields
        resolutions = try Self.resolutions(members)
        let handled = try HandleReply(members: members)
        response = handled.response
        frames = handled.frames
        state = handled.state
    }
}

extension CarplaydReply {
    /// `resolutions`: each parameter's ResolutionResult, by name.
    static func resolutions(_ members: JSONObject) throws(JSONContentError) -> [String: ResolutionResult] {
        let object = try members.required("resolutions").object()
        var resolutions: [String: ResolutionResult] = [:]
        for name in object.fields.keys.sorted() { resolutions[name] = try ResolutionResult(json: object.required(name)) }
        return resolutions
    }
}
