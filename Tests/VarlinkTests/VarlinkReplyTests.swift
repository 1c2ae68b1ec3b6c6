import CarplayJSON
import Testing

@testable import Varlink

@Suite struct VarlinkReplyTests {
    /// A reply with a pre-serialized parameter is byte for byte the reply with the parsed value.
    @Test(arguments: [false, true])
    func serializedAddingRawEqualsSerialized(_ continues: Bool) throws {
        let state: JSONValue = ["lock.locked": false, "climate.temperature.left": 21.5, "audio.source": "sourceRadio"]
        let raw = state.serializedBytes(sortedKeys: true)
        let base: [String: JSONValue] = ["response": ["code": "success"], "frames": ["(1.000001) vcan0 123#00"], "zeta": 1, "resolutions": [:]]
        for error in [nil, "io.example.Failed"] as [String?] {
            var full = base
            full["state"] = state
            let expected = VarlinkReply(parameters: full, continues: continues, error: error).serialized()
            let spliced = VarlinkReply(parameters: base, continues: continues, error: error).serialized(adding: "state", raw: raw)
            #expect(String(decoding: spliced, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
            #expect(spliced.last == 0)
        }
        // The raw value replaces a parameter of the same name.
        var clash = base
        clash["state"] = "old"
        var full = base
        full["state"] = state
        #expect(VarlinkReply(parameters: clash).serialized(adding: "state", raw: raw) == VarlinkReply(parameters: full).serialized())
        // An empty object of parameters gets just the one.
        #expect(String(decoding: VarlinkReply().serialized(adding: "s", raw: Array("[]".utf8)), as: UTF8.self) == "{\"parameters\":{\"s\":[]}}\u{0}")
    }
}
