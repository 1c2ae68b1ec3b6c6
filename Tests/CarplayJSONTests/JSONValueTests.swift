import Testing

@testable import CarplayJSON

@Suite struct JSONValueTests {
    @Test func booleansAreNotIntegers() throws {
        let value = try JSONValue(parsing: "[true, false, 1, 0]")
        #expect(value == .array([.bool(true), .bool(false), .integer(1), .integer(0)]))
    }

    @Test func integersAndNumbersStayApart() throws {
        #expect(try JSONValue(parsing: "21") == .integer(21))
        #expect(try JSONValue(parsing: "-3") == .integer(-3))
        #expect(try JSONValue(parsing: "21.5") == .number(21.5))
        #expect(try JSONValue(parsing: "21.0") == .number(21.0))
        #expect(try JSONValue(parsing: "1e2") == .number(100))
        #expect(try JSONValue(parsing: "12345678901234567890") == .number(12345678901234567890.0))
    }

    /// Integers read digit by digit: Int's ends exactly, one beyond them a number.
    @Test func integersToTheEndsOfInt() throws {
        #expect(try JSONValue(parsing: "0") == .integer(0))
        #expect(try JSONValue(parsing: "-0") == .integer(0))
        #expect(try JSONValue(parsing: "9223372036854775807") == .integer(.max))
        #expect(try JSONValue(parsing: "-9223372036854775808") == .integer(.min))
        #expect(try JSONValue(parsing: "9223372036854775808") == .number(9223372036854775808.0))
        #expect(try JSONValue(parsing: "-9223372036854775809") == .number(-9223372036854775809.0))
        #expect(try JSONValue(parsing: "[7,-42,1000000]") == .array([.integer(7), .integer(-42), .integer(1_000_000)]))
    }

    @Test func objectsStringsAndNull() throws {
        let value = try JSONValue(parsing: #"{"a": [null, "x\"y"], "b": {"c": 1.5}}"#)
        #expect(value == .object(["a": .array([.null, .string("x\"y")]), "b": .object(["c": .number(1.5)])]))
    }

    /// Nested objects keep their own members; the last of a duplicate key wins, at every level.
    @Test func nestedObjectsAndDuplicateKeys() throws {
        let value = try JSONValue(parsing: #"{"a": 1, "o": {"a": 2, "p": {"a": 3, "a": 4}, "b": 5}, "a": 6, "e": {}}"#)
        #expect(value == .object(["a": 6, "o": .object(["a": 2, "p": .object(["a": 4]), "b": 5]), "e": .object([:])]))
    }

    /// Members are written in UTF-8 byte order (Python's sort_keys): a prefix first,
    /// upper case before lower, a non-ASCII key by its bytes.
    @Test func membersAreWrittenInByteOrder() {
        let value: JSONValue = ["ab": 1, "a": 2, "B": 3, "é": 4, "z": 6, "": 7, "\u{1F697}": 8, "ÿ": 9]
        #expect(value.serialized() == "{\"\":7,\"B\":3,\"a\":2,\"ab\":1,\"z\":6,\"é\":4,\"ÿ\":9,\"\u{1F697}\":8}")
        #expect(JSONBytes.precedes("a", "ab") && !JSONBytes.precedes("ab", "a") && !JSONBytes.precedes("a", "a"))
    }

    @Test func serializesCompactSortedAndDeterministic() {
        let value: JSONValue = ["b": [1, 2.5, true, nil], "a": "q\"\\\n\u{01}é", "c": [:]]
        #expect(value.serialized() == #"{"a":"q\"\\\n\u0001é","b":[1,2.5,true,null],"c":{}}"#)
        // Escapes at the ends, next to each other and between runs copied whole.
        #expect(JSONValue.string("\"a\tb\r\\\u{1F}c\"").serialized() == #""\"a\tb\r\\\u001fc\"""#)
        #expect(JSONValue.string("").serialized() == #""""#)
        #expect(JSONValue.number(21.0).serialized() == "21.0")
        #expect(JSONValue.number(0.1).serialized() == "0.1")
        #expect(JSONValue.number(1e20).serialized() == "1e+20")
        #expect(JSONValue.number(.nan).serialized() == "null")
    }

    @Test func roundTrips() throws {
        let texts = [
            #"{"a":[1,2.5,true,false,null],"b":"text","c":{"d":-7,"e":1e+20,"f":0.1}}"#,
            "[]", "{}", #""é\n""#, "1.0", "-0.5",
        ]
        for text in texts {
            let value = try JSONValue(parsing: text)
            #expect(value.serialized() == text)
            #expect(try JSONValue(parsing: value.serialized()) == value)
        }
    }

    @Test func malformed() {
        #expect(throws: JSONError.self) { try JSONValue(parsing: "{") }
        #expect(throws: JSONError.self) { try JSONValue(parsing: "[1,]x") }
        #expect(throws: JSONError.self) { try JSONValue(parsing: "") }
    }
}
