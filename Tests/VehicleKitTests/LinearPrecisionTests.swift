import CANKit
import Testing

@testable import VehicleKit

/// A number read through a linear mapping (°F to °C, miles to km) kept the float noise of
/// the conversion (71 °F read as 21.666666666666664 °C, 68 °F as 20.000000000000004). It
/// is rounded below any signal's resolution instead.
@Suite struct LinearPrecisionTests {
    static let dbc = """
        VERSION ""
        BU_: CAR
        BO_ 1 Temperatures: 8 CAR
         SG_ Setpoint : 0|8@1+ (1,0) [0|255] "degF" CAR
         SG_ Distance : 8|16@1+ (0.1,0) [0|6553.5] "mi" CAR

        """

    static func codec(_ signal: String, from unit: String) throws -> ValueCodec {
        let database = try DBCDatabase(parsing: dbc)
        let message = try #require(database.message(named: "Temperatures"))
        let linear = try #require(LinearTransform.converting(from: unit))
        return ValueCodec(kind: .number, mapping: ValueMapping(linear: linear), signal: try #require(message.signal(named: signal)), codec: message.codec)
    }

    @Test func fahrenheitReadsWithoutNoise() throws {
        let codec = try Self.codec("Setpoint", from: "fahrenheit")
        #expect(codec.value(.integer(68)) == .number(20))
        #expect(codec.value(.integer(71)) == .number(21.666666667))
        #expect(codec.value(.integer(32)) == .number(0))
    }

    @Test func milesReadWithoutNoise() throws {
        let codec = try Self.codec("Distance", from: "mi")
        // 0.3 mi decodes as 0.30000000000000004 and converts to 0.48280320000000006 km.
        #expect(codec.value(.float(0.30000000000000004)) == .number(0.4828032))
    }
}
