import CarplayJSON
import Testing

@testable import Varlink

@Suite struct VarlinkMethodTableTests {
    static let interface = try! VarlinkInterfaceDefinition(
        parsing: """
            interface io.example.Car
            type Zone (name: string, level: ?int)
            method Heat(zone: Zone, on: bool) -> ()
            method Read() -> (value: float)
            """)

    static let table = VarlinkMethodTable<String>(
        ["io.example.Car.Heat": "heat", "io.example.Car.Read": "read", "io.example.Other.Anything": "other"],
        declaredBy: [interface])

    func lookUp(_ method: String, _ parameters: [String: JSONValue] = [:]) -> Result<String, VarlinkMethodTable<String>.Refusal> {
        Self.table.handler(for: VarlinkCall(method: method, parameters: parameters))
    }

    @Test func aCallThatFitsItsDeclarationReachesItsHandler() {
        #expect(lookUp("io.example.Car.Heat", ["zone": ["name": "left"], "on": true]) == .success("heat"))
        #expect(lookUp("io.example.Car.Heat", ["zone": ["name": "left", "level": 2], "on": false]) == .success("heat"))
        #expect(lookUp("io.example.Car.Read") == .success("read"))
        // Null counts as absent, for an optional field.
        #expect(lookUp("io.example.Car.Heat", ["zone": ["name": "left", "level": nil], "on": true]) == .success("heat"))
        #expect(Self.table.methodNames == ["io.example.Car.Heat", "io.example.Car.Read", "io.example.Other.Anything"])
    }

    @Test func aCallThatDoesNotFitIsNamedByItsPath() {
        func path(_ result: Result<String, VarlinkMethodTable<String>.Refusal>) -> String? {
            guard case let .failure(.invalidParameter(mismatch)) = result else { return nil }
            return mismatch.path
        }
        #expect(path(lookUp("io.example.Car.Heat", ["zone": ["name": "left"]])) == "on", "missing")
        #expect(path(lookUp("io.example.Car.Heat", ["zone": ["name": "left"], "on": "yes"])) == "on", "mistyped")
        #expect(path(lookUp("io.example.Car.Heat", ["zone": ["name": 3], "on": true])) == "zone.name", "nested")
        #expect(path(lookUp("io.example.Car.Heat", ["zone": ["name": "left", "fan": 1], "on": true])) == "zone.fan", "unknown nested")
        #expect(path(lookUp("io.example.Car.Read", ["now": true])) == "now", "a method without parameters")
        let refusal = lookUp("io.example.Car.Read", ["now": true])
        if case let .failure(error) = refusal {
            #expect(
                error.error(in: "io.example.Car")
                    == VarlinkError("io.example.Car.InvalidParameter", ["parameter": "now", "reason": "no such field (expected none)"]))
        }
    }

    @Test func anUnknownMethodIsNotFoundAndAnotherInterfacesIsLeftToItsService() {
        #expect(lookUp("io.example.Car.Fly") == .failure(.methodNotFound("io.example.Car.Fly")))
        #expect(lookUp("io.example.Car") == .failure(.methodNotFound("io.example.Car")))
        if case let .failure(error) = lookUp("io.example.Car.Fly") {
            #expect(error.error(in: "io.example.Car") == .methodNotFound("io.example.Car.Fly"))
        }
        // io.example.Other was not given: bound without a check (its own service checks).
        #expect(lookUp("io.example.Other.Anything", ["whatever": [1, 2]]) == .success("other"))
    }
}
