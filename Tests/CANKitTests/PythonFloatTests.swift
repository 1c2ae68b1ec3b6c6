import CarplayJSON
import Testing

@testable import CANKit

/// The decoder writes floats as Python's `repr` does (cantools' numbers, bit for bit,
/// and the same text): the fast writer must agree with the general path everywhere it
/// answers, and the general path with Python.
@Suite struct PythonFloatTests {
    func fast(_ value: Double) -> String? {
        var bytes = [UInt8](repeating: 0, count: JSONBytes.maxNumberLength)
        let count = bytes.withUnsafeMutableBufferPointer { JSONBytes.writeShortFixed(value, to: $0.baseAddress!) }
        return count == 0 ? nil : String(decoding: bytes[0..<count], as: UTF8.self)
    }

    func appended(_ value: Double) -> String {
        var bytes: [UInt8] = []
        JSONBytes.appendDouble(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Texts from CPython 3.11's `repr(float)`.
    @Test func reprMatchesPython() {
        let cases: [(Double, String)] = [
            (1.0, "1.0"), (-0.0, "-0.0"), (0.0, "0.0"), (0.1 + 0.2, "0.30000000000000004"), (0.0001, "0.0001"),
            (0.00001, "1e-05"), (1e15, "1000000000000000.0"), (1e16, "1e+16"), (9_007_199_254_740_992, "9007199254740992.0"),
            (9_878_628_791_746_560, "9878628791746560.0"), (-9_795_748_807_835_648, "-9795748807835648.0"),
            (123_456_789_012_345_680, "1.2345678901234568e+17"), (231.04, "231.04"), (2.5e-05, "2.5e-05"),
            (1.7976931348623157e308, "1.7976931348623157e+308"), (Double.leastNonzeroMagnitude, "5e-324"), (-12.5, "-12.5"),
        ]
        for (value, python) in cases {
            #expect(PythonFloat.repr(value) == python, "\(python)")
            #expect(appended(value) == python, "\(python)")
        }
        #expect(appended(.nan) == "NaN")
        #expect(appended(.infinity) == "Infinity")
        #expect(appended(-.infinity) == "-Infinity")
    }

    @Test func fastWriterAgreesWithRepr() {
        var generator = SystemRandomNumberGenerator()
        var answered = 0
        func check(_ value: Double) {
            guard let text = fast(value) else { return }
            answered += 1
            #expect(text == PythonFloat.repr(value), "\(value.bitPattern)")
        }
        // What signal scaling produces: raw * factor + offset.
        let factors: [Double] = [0.1, 0.01, 0.001, 0.5, 0.25, 0.03125, 1e-5, 0.0625, 0.2, 3.6, 0.05, 1.8]
        let offsets: [Double] = [0, -40, 250, -1000, 0.5, -273.15, 1e6]
        for factor in factors {
            for offset in offsets {
                for _ in 0..<400 {
                    let raw = Double(Int.random(in: -70_000...70_000, using: &generator))
                    check(raw * factor + offset)
                }
            }
        }
        // Short decimals at every magnitude, and their neighbours.
        for exponent in -6...16 {
            for _ in 0..<300 {
                let digits = Double(Int.random(in: 1...999_999, using: &generator))
                let value = digits * Double(sign: .plus, exponent: 0, significand: 1) * pow10(exponent - 6)
                check(value)
                check(-value)
                check(value.nextUp)
                check(value.nextDown)
            }
        }
        // Arbitrary doubles (mostly 17 digits: left to the general path) and the range edges.
        for _ in 0..<20_000 {
            check(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator)))
            check(Double.random(in: -1e6...1e6, using: &generator))
        }
        for value in [1e-4, 1e-4.nextDown, 1e-4.nextUp, 1e15, 1e15.nextDown, 999_999_999_999_999, 0.5, 0, -0.0] { check(value) }
        #expect(answered > 20_000)  // the checks above answered by the fast writer (about 40,000)
        #expect(fast(1e15) == nil && fast(1e-5) == nil && fast(.nan) == nil && fast(.infinity) == nil && fast(0.1 + 0.2) == nil)
    }

    private func pow10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<abs(exponent) { result *= 10 }
        return exponent < 0 ? 1 / result : result
    }
}
