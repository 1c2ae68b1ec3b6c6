import CANKit
import LinuxSupport
import Testing

@testable import SocketCAN

/// The frame conversions of the SocketCAN port (the kernel side runs in the vcan bench).
@Suite struct SocketCANConversionTests {
    @Test func flagsFollowTheKernelLayout() throws {
        let extended = SocketCANPort.raw(try CANFrame(id: CANID(extended: 0x18A0_1010), data: [1, 2]))
        #expect(extended.canID == 0x18A0_1010 | 0x8000_0000)
        let remote = SocketCANPort.raw(try CANFrame(id: CANID(standard: 0x123), data: [], isRemote: true))
        #expect(remote.canID == 0x123 | 0x4000_0000)
        let fd = SocketCANPort.raw(
            try CANFrame(id: CANID(standard: 0x7FF), data: [UInt8](repeating: 7, count: 12), kind: .fd(bitRateSwitch: true, errorStateIndicator: true)))
        #expect(fd.isFD && fd.fdFlags == 0x03 && fd.data.count == 12)
    }

    @Test func openingWithoutTheInterfaceFailsWithAnError() {
        // Here (no such interface, or no CAN in the kernel) opening must throw, not crash.
        #expect(throws: Errno.self) { try SocketCANPort(interface: "nosuchcan7", fd: false) }
    }
}
