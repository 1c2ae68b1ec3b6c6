import Testing
@testable import CANKit

/// Bit-by-bit CRC-8 (poly 0x1D, init 0xFF, xorout 0xFF), written independently
/// of the table-driven implementation.
private func referenceCRC8(_ bytes: [UInt8]) -> UInt8 {
    var crc: UInt8 = 0xFF
    for byte in bytes {
        for bit in (0..<8).reversed() {
            let inBit = (byte >> UInt8(bit)) & 1
            let topBit = crc >> 7
            crc <<= 1
            if inBit ^ topBit == 1 { crc ^= 0x1D }
        }
    }
    return crc ^ 0xFF
}

@Suite struct CRC8Tests {
    @Test func checkValue() {
        let ascii = Array("123456789".utf8)
        #expect(CRC8SAEJ1850.checksum(ascii) == 0x4B)
        #expect(referenceCRC8(ascii) == 0x4B)
    }

    /// The sample results from the AUTOSAR CRC specification (SWS_Crc, 8-bit SAE J1850).
    @Test(arguments: [
        ([0x00, 0x00, 0x00, 0x00], 0x59),
        ([0xF2, 0x01, 0x83], 0x37),
        ([0x0F, 0xAA, 0x00, 0x55], 0x79),
        ([0x00, 0xFF, 0x55, 0x11], 0xB8),
        ([0x33, 0x22, 0x55, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF], 0xCB),
        ([0x92, 0x6B, 0x55], 0x8C),
        ([0xFF, 0xFF, 0xFF, 0xFF], 0x74),
    ] as [([UInt8], UInt8)])
    func autosarVectors(input: [UInt8], expected: UInt8) {
        #expect(referenceCRC8(input) == expected)
        #expect(CRC8SAEJ1850.checksum(input) == expected)
    }

    @Test func tableMatchesBitwiseReferenceOnManyInputs() {
        var generator = SplitMix64(seed: 0xC0FFEE)
        for length in 0..<40 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            #expect(CRC8SAEJ1850.checksum(bytes) == referenceCRC8(bytes), "length \(length)")
        }
        #expect(CRC8SAEJ1850.checksum([]) == 0x00)
        #expect(CRC8SAEJ1850.table.count == 256)
        #expect(CRC8SAEJ1850.table[1] == 0x1D)
    }

    @Test func incrementalEqualsOneShot() {
        let bytes = Array("123456789".utf8)
        var crc = CRC8SAEJ1850()
        crc.update(bytes[..<4])
        crc.update(byte: bytes[4])
        crc.update(bytes[5...])
        #expect(crc.finalize() == 0x4B)
        #expect(crc.finalize() == 0x4B, "finalize does not change the state")
    }
}

@Suite struct E2EProfile1Tests {
    let layout = try! E2EProtection(dataID: 0x1234, crcOffset: 0, counterOffset: 1, counterNibble: .low)

    @Test func counterWraps() {
        #expect(E2EProtection.nextCounter(after: 0) == 1)
        #expect(E2EProtection.nextCounter(after: 13) == 14)
        #expect(E2EProtection.nextCounter(after: 14) == 0)
        #expect(E2EProtection.nextCounter(after: 15) == 0)
        var counter: UInt8 = 0
        var seen: [UInt8] = []
        for _ in 0..<16 {
            seen.append(counter)
            counter = E2EProtection.nextCounter(after: counter)
        }
        #expect(seen == Array(0...14) + [0])
        #expect(E2EProtection.counterDelta(from: 14, to: 0) == 1)
        #expect(E2EProtection.counterDelta(from: 3, to: 3) == 0)
        #expect(E2EProtection.counterDelta(from: 3, to: 2) == 14)
    }

    @Test func protectWritesCounterAndCRCOverDataIDAndPayload() throws {
        var payload: [UInt8] = [0x00, 0xA0, 0x11, 0x22, 0x33]
        try layout.protect(&payload, counter: 5)
        #expect(payload[1] == 0xA5, "high nibble kept, counter in low nibble")
        // Data ID low byte, high byte, then payload without the CRC byte.
        #expect(payload[0] == referenceCRC8([0x34, 0x12, 0xA5, 0x11, 0x22, 0x33]))

        let high = try E2EProtection(dataID: 0x00FF, crcOffset: 7, counterOffset: 6, counterNibble: .high)
        var frame: [UInt8] = [1, 2, 3, 4, 5, 6, 0x0C, 0xEE]
        try high.protect(&frame, counter: 14)
        #expect(frame[6] == 0xEC)
        #expect(frame[7] == referenceCRC8([0xFF, 0x00, 1, 2, 3, 4, 5, 6, 0xEC]))
        #expect(high.counter(in: frame) == 14)
    }

    @Test func protectRejectsBadInput() throws {
        var short: [UInt8] = [0]
        #expect(throws: E2EError.payloadTooShort(required: 2, actual: 1)) { try layout.protect(&short, counter: 0) }
        var payload: [UInt8] = [0, 0]
        #expect(throws: E2EError.invalidCounter(15)) { try layout.protect(&payload, counter: 15) }
        #expect(throws: E2EError.self) { try E2EProtection(dataID: 1, crcOffset: 2, counterOffset: 2) }
        #expect(throws: E2EError.self) { try E2EProtection(dataID: 1, crcOffset: -1, counterOffset: 2) }
    }

    @Test func roundTripThroughManyWraps() throws {
        var sender = E2ESender(protection: layout)
        var checker = E2EChecker(protection: layout)
        #expect(checker.isInitial)
        for index in 0..<40 {
            var payload: [UInt8] = [0, 0, UInt8(index), 0x55]
            try sender.protect(&payload)
            #expect(layout.counter(in: payload) == UInt8(index % 15))
            #expect(checker.check(payload) == .ok, "frame \(index)")
        }
        #expect(checker.referenceCounter == UInt8(39 % 15))
    }

    private func frame(_ counter: UInt8, value: UInt8 = 0x42, layout: E2EProtection? = nil) -> [UInt8] {
        var payload: [UInt8] = [0, 0, value, 0x00]
        try! (layout ?? self.layout).protect(&payload, counter: counter)
        return payload
    }

    @Test func firstFrameSetsReference() {
        var checker = E2EChecker(protection: layout)
        #expect(checker.check(frame(9)) == .ok)
        #expect(checker.referenceCounter == 9)
        #expect(checker.check(frame(10)) == .ok)
    }

    @Test func wrongCRCLeavesReference() {
        var checker = E2EChecker(protection: layout)
        #expect(checker.check(frame(3)) == .ok)
        var corrupted = frame(4)
        corrupted[2] ^= 0x01
        #expect(checker.check(corrupted) == .wrongCRC)
        #expect(checker.referenceCounter == 3)
        // Another message's data ID is a CRC error too.
        let other = try! E2EProtection(dataID: 0x1235, crcOffset: 0, counterOffset: 1)
        #expect(checker.check(frame(4, layout: other)) == .wrongCRC)
        #expect(checker.check(frame(4)) == .ok)
        // A wrong CRC before any valid frame keeps the checker initial.
        var fresh = E2EChecker(protection: layout)
        #expect(fresh.check(corrupted) == .wrongCRC)
        #expect(fresh.isInitial)
    }

    @Test func repeatedCounter() {
        var checker = E2EChecker(protection: layout)
        #expect(checker.check(frame(7)) == .ok)
        #expect(checker.check(frame(7, value: 0x99)) == .repeated)
        #expect(checker.referenceCounter == 7)
        #expect(checker.check(frame(8)) == .ok)
    }

    @Test func wrongSequenceAndResync() {
        var checker = E2EChecker(protection: layout)
        #expect(checker.check(frame(2)) == .ok)
        #expect(checker.check(frame(4)) == .wrongSequence(expected: 3, received: 4))
        #expect(checker.referenceCounter == 4, "a jump resynchronises")
        #expect(checker.check(frame(5)) == .ok)
        // Going backwards is a jump of 14.
        #expect(checker.check(frame(4)) == .wrongSequence(expected: 6, received: 4))
        // Wrap 14 -> 0 is consecutive.
        var wrap = E2EChecker(protection: layout)
        #expect(wrap.check(frame(14)) == .ok)
        #expect(wrap.check(frame(0)) == .ok)
    }

    @Test func invalidCounterFifteen() {
        // 15 can only arrive from a sender that writes it; build it by hand.
        func fifteen() -> [UInt8] {
            var payload: [UInt8] = [0, 0x0F, 0x42, 0]
            payload[0] = layout.crc(of: payload)
            return payload
        }
        var checker = E2EChecker(protection: layout)
        #expect(checker.check(fifteen()) == .wrongSequence(expected: nil, received: 15))
        #expect(checker.isInitial)
        #expect(checker.check(frame(14)) == .ok)
        #expect(checker.check(fifteen()) == .wrongSequence(expected: 0, received: 15))
        #expect(checker.referenceCounter == 14)
        #expect(checker.check(frame(0)) == .ok)
    }

    @Test func maxDeltaCounterAllowsLoss() {
        var checker = E2EChecker(protection: layout, maxDeltaCounter: 3)
        #expect(checker.check(frame(13)) == .ok)
        #expect(checker.check(frame(1)) == .ok, "13 -> 1 skips 14 and 0: delta 3")
        #expect(checker.check(frame(6)) == .wrongSequence(expected: 2, received: 6))
    }

    @Test func shortPayload() {
        var checker = E2EChecker(protection: layout)
        #expect(checker.check([0x00]) == .invalidLength(required: 2, received: 1))
        #expect(checker.isInitial)
    }
}

/// Small deterministic generator for test inputs.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
