import CANKit
import Foundation
import TestSupport
import Testing

@testable import VehicleKit

extension ProfileFixture {
    /// A shipped profile whose DBC is not named after its folder.
    init(_ vehicle: String, dbc dbcName: String) throws {
        self.vehicle = vehicle
        let folder = Self.repositoryRoot.appendingPathComponent("VehicleProfiles/\(vehicle)")
        json = try String(contentsOf: folder.appendingPathComponent("profile.json"), encoding: .utf8)
        dbc = try String(contentsOf: folder.appendingPathComponent(dbcName), encoding: .utf8)
        self.dbcName = dbcName
    }
}

/// `messages.<M>.protection` with the opendbc schemes and the declared one.
@Suite struct ProtectionSchemeLoaderTests {
    /// sedan's ClimateCommand (0x300): Crc `0|8@1+`, AliveCounter `8|4@1+`.
    static let climate = #"{"scheme": "carplayd-e2e", "dataID": 4096, "checksum": "Crc", "counter": "AliveCounter"}"#
    static let climatePath = #"messages["ClimateCommand"].protection"#

    func sedan(protection: String) throws -> ProfileFixture {
        var fixture = try ProfileFixture("sedan")
        try fixture.json(Self.climate, protection)
        return fixture
    }

    @Test func declaredLoads() throws {
        let fixture = try sedan(
            protection: #"""
                {"scheme": "declared", "checksum": "Crc", "counter": "AliveCounter",
                 "algorithm": {"type": "crc16", "polynomial": "0x8005", "init": "0xFFFF", "xorOut": 0, "reflectIn": true, "reflectOut": true},
                 "bytes": {"first": 1, "last": -2, "order": "reverse", "checksumBits": "zero"},
                 "frameID": {"bytes": 2, "order": "big", "position": "after"},
                 "length": "before"}
                """#)
        // A 16-bit CRC into an 8-bit signal: the low 8 bits.
        let profile = try fixture.load()
        var expected = DeclaredChecksum(algorithm: .crc16)
        expected.polynomial = 0x8005
        expected.initial = 0xFFFF
        expected.reflectIn = true
        expected.reflectOut = true
        expected.firstByte = 1
        expected.lastByte = -2
        expected.byteOrder = .reverse
        expected.checksumBits = .zero
        expected.frameIDBytes = 2
        expected.frameIDOrder = .big
        expected.frameIDPosition = .after
        expected.length = .before
        #expect(profile.protection["ClimateCommand"]?.protection.scheme == .declared(expected))

        let sum = try sedan(protection: #"{"scheme": "declared", "checksum": "Crc", "algorithm": {"type": "sum"}}"#).load()
        #expect(sum.protection["ClimateCommand"]?.protection.scheme == .declared(DeclaredChecksum(algorithm: .sum)))
    }

    /// From the profile's JSON to the frames: Toyota's and Tesla's checksums declared, on
    /// 8-byte frames opendbc 0.3.1's packer made (ACC_CONTROL 0x343, DAS_control 0x2B9; the
    /// checksum in the last byte). The sedan's Crc moves to byte 7 for them.
    @Test func declaredToyotaAndTeslaFromJSON() throws {
        let cases: [(json: String, frameID: UInt32, frames: [String])] = [
            (
                #""algorithm": {"type": "sum"}, "frameID": {"bytes": 4}, "length": "before""#, 0x343,
                ["fdfcd901bea90088", "5a17e3416745008f", "776be602be1200e8"]
            ),
            (#""algorithm": {"type": "sum"}, "frameID": {"bytes": 2}"#, 0x2B9, ["267dc1e5a92b0ae2", "de2016ef502b2962", "83698e5a81cf5f3e"]),
        ]
        for (json, frameID, frames) in cases {
            var fixture = try sedan(protection: #"{"scheme": "declared", "checksum": "Crc", \#(json)}"#)
            try fixture.dbc(" SG_ Crc : 0|8@1+ (1,0) [0|255] \"\" ClimateECU", " SG_ Crc : 63|8@0+ (1,0) [0|255] \"\" ClimateECU")
            let protection = try #require(try fixture.load().protection["ClimateCommand"]?.protection)
            for text in frames {
                let frame = hexBytes(text)
                #expect(protection.checksum(of: frame, frameID: frameID) == UInt64(frame[7]), "\(json) \(text)")
                #expect(!protection.checksumMatches(frame, frameID: frameID + 1), "\(json) \(text): the frame ID counts")
            }
        }
    }

    @Test(arguments: [
        ("hkg-can-fd", FrameProtection.Scheme.hkgCANFD), ("xor", .xor), ("subaru", .subaru), ("chrysler", .chrysler),
        ("fca-giorgio", .fcaGiorgio), ("body", .body), ("tesla", .tesla), ("psa", .psa), ("vw-mlb", .vwMLB(.xor(start: 0x27))),
    ])
    func builtInSchemesLoad(name: String, scheme: FrameProtection.Scheme) throws {
        let fields: String
        switch scheme {
        case .hkgCANFD:
            // A 16-bit Intel checksum: the DBC's Crc becomes one, in bytes 6...7 (free in ClimateCommand).
            fields = #""checksum": "Crc16", "counter": "AliveCounter""#
        case .psa: fields = #""checksum": "AliveCounter""#
        case .vwMLB: fields = #""xorStart": 39, "checksum": "Crc", "counter": "AliveCounter""#
        default: fields = #""checksum": "Crc", "counter": "AliveCounter""#
        }
        var fixture = try sedan(protection: #"{"scheme": "\#(name)", \#(fields)}"#)
        if case .hkgCANFD = scheme {
            try fixture.dbc(" SG_ Crc : 0|8@1+ (1,0) [0|255] \"\" ClimateECU", " SG_ Crc16 : 48|16@1+ (1,0) [0|65535] \"\" ClimateECU")
        }
        let profile = try fixture.load()
        #expect(profile.protection["ClimateCommand"]?.protection.scheme == scheme, "\(name)")
    }

    @Test func declaredErrors() throws {
        let path = Self.climatePath
        func declared(_ rest: String) throws -> ProfileFixture {
            try sedan(protection: #"{"scheme": "declared", "checksum": "Crc", \#(rest)}"#)
        }
        try declared(#""algorithm": {"type": "crc32"}"#)
            .expectError(path: path + ".algorithm.type", "unknown checksum algorithm \"crc32\"; expected one of sum, xor, crc8, crc16")
        try declared(#""algorithm": {"type": "crc8"}"#).expectError(path: path + ".algorithm", "crc8 needs polynomial")
        try declared(#""algorithm": {"type": "crc8", "polynomial": "0x11D"}"#)
            .expectError(path: path + ".algorithm.polynomial", "crc8 has 8-bit values: polynomial is 0...255 (0xFF), not 285")
        try declared(#""algorithm": {"type": "crc8", "polynomial": "1D"}"#)
            .expectError(path: path + ".algorithm.polynomial", "a hexadecimal string such as \"0x1D\", found \"1D\"")
        try declared(#""algorithm": {"type": "sum", "reflectIn": true}"#).expectError(path: path + ".algorithm.reflectIn", "sum is not a CRC")
        try declared(#""algorithm": {"type": "sum"}, "bytes": {"first": 64}"#).expectError(path: path + ".bytes.first", "0...63, or -64...-1")
        try declared(#""algorithm": {"type": "sum"}, "bytes": {"first": 5, "last": 2}"#)
            .expectError(path: path + ".bytes", "the first not after the last, not 5...2")
        try declared(#""algorithm": {"type": "sum"}, "bytes": {"order": "backwards"}"#).expectError(path: path + ".bytes.order", "\"reverse\"")
        try declared(#""algorithm": {"type": "sum"}, "frameID": {"bytes": 5}"#).expectError(path: path + ".frameID.bytes", "1...4 bytes")
        try declared(#""algorithm": {"type": "sum"}, "length": "middle""#).expectError(path: path + ".length", "expected one of before, after")
        try declared(#""algorithm": {"type": "sum"}, "dataID": 1"#).expectError(path: path + ".dataID", "scheme \"declared\" has no dataID")
        try declared(#""counter": "AliveCounter""#).expectError(path: path + ".algorithm", "missing required key \"algorithm\"")
        // The checksum signal wider than the algorithm: FrameProtection's rule, at the signal.
        var wide = try declared(#""algorithm": {"type": "xor"}"#)
        try wide.dbc(" SG_ Crc : 0|8@1+ (1,0) [0|255] \"\" ClimateECU", " SG_ Crc : 0|12@1+ (1,0) [0|4095] \"\" ClimateECU")
        try wide.dbc(" SG_ AliveCounter : 8|4@1+ (1,0) [0|14] \"\" ClimateECU", " SG_ AliveCounter : 12|4@1+ (1,0) [0|14] \"\" ClimateECU")
        wide.expectError(path: path + ".checksum", "declared xor gives at most 8 bits")
        try sedan(protection: #"{"scheme": "toyota", "checksum": "Crc", "algorithm": {"type": "sum"}}"#)
            .expectError(path: path + ".algorithm", "scheme \"toyota\" has no algorithm")
    }

    /// vw-mqb without `dataIDs` takes opendbc's bytes for the frame ID; vw-mlb takes its
    /// XOR start value or, for the others, the same bytes.
    @Test func volkswagenDefaultsFromOpendbc() throws {
        let shipped = #""dataIDs": [197, 57, 199, 249, 146, 216, 36, 206, 241, 181, 122, 196, 188, 96, 227, 209]"#
        let original = try ProfileFixture("vw-mqb", dbc: "vw_mqb.dbc").load()
        let listed = try #require(original.protection["Licht_Anf_01"]?.protection.scheme)

        var withoutIDs = try ProfileFixture("vw-mqb", dbc: "vw_mqb.dbc")
        try withoutIDs.json(#""counter": "COUNTER",\#n        \#(shipped)"#, #""counter": "COUNTER""#)
        #expect(try withoutIDs.load().protection["Licht_Anf_01"]?.protection.scheme == listed)

        var mlb = try ProfileFixture("vw-mqb", dbc: "vw_mqb.dbc")
        try mlb.json(
            #""scheme": "vw-mqb", "checksum": "CHECKSUM", "counter": "COUNTER",\#n        \#(shipped)"#,
            #""scheme": "vw-mlb", "checksum": "CHECKSUM", "counter": "COUNTER""#)
        guard case let .vwMQB(dataIDs) = listed else {
            Issue.record("Licht_Anf_01 is vw-mqb")
            return
        }
        #expect(try mlb.load().protection["Licht_Anf_01"]?.protection.scheme == .vwMLB(.crc(dataIDs: dataIDs)))

        var both = try ProfileFixture("vw-mqb", dbc: "vw_mqb.dbc")
        try both.json(#""scheme": "vw-mqb""#, #""scheme": "vw-mlb", "xorStart": 1"#)
        both.expectError(path: #"messages["Licht_Anf_01"].protection.dataIDs"#, "`xorStart` (the XOR checksum) or `dataIDs` (the CRC), not both")

        // A frame ID opendbc has no bytes for: the profile must give them.
        var unknown = try sedan(protection: #"{"scheme": "vw-mqb", "checksum": "Crc", "counter": "AliveCounter"}"#)
        unknown.expectError(path: Self.climatePath + ".dataIDs", "missing required key \"dataIDs\"")
        unknown = try sedan(protection: #"{"scheme": "vw-mlb", "checksum": "Crc", "counter": "AliveCounter"}"#)
        unknown.expectError(path: Self.climatePath, "opendbc knows no VW MLB checksum for frame ID 0x300")
    }
}
