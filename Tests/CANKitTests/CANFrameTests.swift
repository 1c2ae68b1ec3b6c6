import Testing

@testable import CANKit

@Suite struct CANFrameTests {
    @Test func idWidths() {
        #expect(CANID(0x7FF, extended: false) != nil)
        #expect(CANID(0x800, extended: false) == nil)
        #expect(CANID(0x1FFF_FFFF, extended: true) != nil)
        #expect(CANID(0x2000_0000, extended: true) == nil)
        #expect(CANID(standard: 0x1F0).description == "1F0")
        #expect(CANID(extended: 0x1F0).description == "000001F0")
    }

    @Test func payloadLimits() throws {
        #expect(throws: CANFrameError.payloadTooLong(count: 9, limit: 8)) {
            try CANFrame(id: CANID(standard: 1), data: Array(repeating: 0, count: 9))
        }
        #expect(throws: CANFrameError.invalidFDLength(9)) {
            try CANFrame(id: CANID(standard: 1), data: Array(repeating: 0, count: 9), kind: .fd(bitRateSwitch: true, errorStateIndicator: false))
        }
        let fd = try CANFrame(id: CANID(standard: 1), data: Array(repeating: 0, count: 64), kind: .fd(bitRateSwitch: true, errorStateIndicator: false))
        #expect(fd.isFD)
        #expect(CANFrame.fdLength(atLeast: 9) == 12)
        #expect(CANFrame.fdLength(atLeast: 65) == nil)
    }
}
