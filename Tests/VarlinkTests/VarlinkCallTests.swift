import CarplayJSON
import Testing

@testable import Varlink

/// A call as the server reads it: its members, and a clear error for each wrong one.
@Suite struct VarlinkCallTests {
    static func call(_ text: String) throws(VarlinkError) -> VarlinkCall { try VarlinkCall(parsing: Array(text.utf8)) }

    @Test func membersAreRead() throws {
        let full = try Self.call(#"{"method":"io.carplayd.Vehicle.Perform","parameters":{"intent":"X"},"oneway":true,"more":false,"upgrade":true}"#)
        #expect(full.method == "io.carplayd.Vehicle.Perform" && full.parameters == ["intent": "X"])
        #expect(full.oneway && !full.more && full.upgrade)
        #expect(full.interface == "io.carplayd.Vehicle" && full.member == "Perform")
        let bare = try Self.call(#"{"method":"a.B","parameters":null,"more":null}"#)
        #expect(bare.parameters.isEmpty && !bare.oneway && !bare.more && !bare.upgrade)
        #expect(try Self.call(#"{"method":"NoDot"}"#).interface == "" && (try Self.call(#"{"method":"NoDot"}"#).member) == "NoDot")
    }

    @Test(arguments: [
        (#"{"method":"a.B","colour":1}"#, "unknown field \"colour\" in the call"),
        (#"{"parameters":{}}"#, "the call has no \"method\" string"),
        (#"{"method":""}"#, "the call has no \"method\" string"),
        (#"{"method":7}"#, "the call has no \"method\" string"),
        (#"{"method":"a.B","more":1}"#, "\"more\" must be a boolean"),
        (#"{"method":"a.B","oneway":"yes"}"#, "\"oneway\" must be a boolean"),
        (#"[1]"#, "a call is a JSON object"),
    ])
    func wrongMembersAreNamed(text: String, message: String) {
        do {
            _ = try Self.call(text)
            Issue.record("\(text) was read as a call")
        } catch {
            #expect(error == .invalidMessage(message), "\(text)")
        }
    }

    @Test func parametersMustBeAnObject() {
        #expect(throws: VarlinkError.invalidParameter("parameters")) { try Self.call(#"{"method":"a.B","parameters":[1]}"#) }
    }
}
