// CAN frames of commaai/opendbc 0.3.1 (https://github.com/commaai/opendbc), test data for
// the checksum schemes. opendbc's licence, which covers them:
//
// Copyright (c) 2020, Comma.ai, Inc.
//
// Permission is hereby granted, free of charge, to any person obtaining a copy of this
// software and associated documentation files (the "Software"), to deal in the Software
// without restriction, including without limitation the rights to use, copy, modify, merge,
// publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons
// to whom the Software is furnished to do so, subject to the following conditions:
//
// The above copyright notice and this permission notice shall be included in all copies or
// substantial portions of the Software.
//
// THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED,
// INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR
// PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE
// FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
// OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
// DEALINGS IN THE SOFTWARE.

@testable import CANKit

/// One checksummed message of an opendbc DBC and frames of it. `checksum` and `counter`
/// are the DBC's CHECKSUM and COUNTER signals (tesla_model3_party: its `...Checksum` and
/// `...Counter` ones).
struct OpendbcMessage {
    enum Source {
        /// opendbc/can/tests/test_checksums.py's sample frames.
        case testChecksums
        /// Made by opendbc 0.3.1's CANPacker: random signal values, counters 0, 1, 2, the
        /// checksum its function computed.
        case packer
    }

    let scheme: String
    let source: Source
    let dbc: String
    let name: String
    let frameID: UInt32
    let checksum: PayloadField
    let counter: PayloadField?
    let frames: [String]
}

/// The VW MQB sample frames of test_checksums.py are FrameProtectionTests.OpendbcSamples'.
let opendbcMessages: [OpendbcMessage] = [
    OpendbcMessage(
        scheme: "fca-giorgio", source: .testChecksums, dbc: "fca_giorgio", name: "ABS_2", frameID: 0xFE,
        checksum: motorola(63, 8), counter: motorola(51, 4),
        frames: ["7e38007d10318032", "7e38007d1031812f", "7e38007d20318220"]),
    OpendbcMessage(
        scheme: "fca-giorgio", source: .testChecksums, dbc: "fca_giorgio", name: "EPS_1", frameID: 0xDE,
        checksum: motorola(47, 8), counter: motorola(35, 4),
        frames: ["175197cc00df", "175197c901a3", "175197cc02e5"]),
    OpendbcMessage(
        scheme: "fca-giorgio", source: .testChecksums, dbc: "fca_giorgio", name: "EPS_2", frameID: 0x106,
        checksum: motorola(55, 8), counter: motorola(43, 4),
        frames: ["7c4357600000a1", "7c6358e00001d5", "7c6358e00002f2"]),
    OpendbcMessage(
        scheme: "fca-giorgio", source: .testChecksums, dbc: "fca_giorgio", name: "EPS_3", frameID: 0x122,
        checksum: motorola(31, 8), counter: motorola(19, 4),
        frames: ["7b3000f8", "7b100190", "7bf0026e"]),
    OpendbcMessage(
        scheme: "honda", source: .packer, dbc: "honda_civic_touring_2016_can_generated", name: "STEERING_CONTROL", frameID: 0xE4,
        checksum: motorola(35, 4), counter: motorola(37, 2),
        frames: ["d54f4cbc0a", "6327ef521f", "bf026e8527"]),
    OpendbcMessage(
        scheme: "honda", source: .packer, dbc: "acura_rdx_2020_can_generated", name: "LKAS_HUD_A", frameID: 0x33DA,
        checksum: motorola(35, 4), counter: motorola(37, 2),
        frames: ["8020a2180f", "0050024c16", "012321142e"]),
    OpendbcMessage(
        scheme: "honda", source: .packer, dbc: "honda_bosch_radarless_generated", name: "LKAS_HUD_2", frameID: 0xF31AA54,
        checksum: motorola(59, 4), counter: motorola(61, 2),
        frames: ["c004903c00000003", "c004e0d40000001b", "603c40fc00000025"]),
    OpendbcMessage(
        scheme: "toyota", source: .packer, dbc: "toyota_nodsu_pt_generated", name: "STEERING_LKA", frameID: 0x2E4,
        checksum: motorola(39, 8), counter: motorola(6, 6),
        frames: ["01681054b8", "824cdf53eb", "0401a12ebf"]),
    OpendbcMessage(
        scheme: "toyota", source: .packer, dbc: "toyota_nodsu_pt_generated", name: "ACC_CONTROL", frameID: 0x343,
        checksum: motorola(63, 8), counter: nil,
        frames: ["fdfcd901bea90088", "5a17e3416745008f", "776be602be1200e8"]),
    OpendbcMessage(
        scheme: "hkg-can-fd", source: .packer, dbc: "hyundai_canfd_generated", name: "CAM_0x185", frameID: 0x185,
        checksum: intel(0, 16), counter: intel(16, 8),
        frames: ["65ab000000000000", "b6ec010000000000", "c324020000000000"]),
    OpendbcMessage(
        scheme: "hkg-can-fd", source: .packer, dbc: "hyundai_canfd_generated", name: "LKAS", frameID: 0x50,
        checksum: intel(0, 16), counter: intel(16, 8),
        frames: ["d6e700bc3bfbf980e400300000000000", "45060115c0b27cb16a00520000000000", "09ee028ef2224571aa00330000000000"]),
    OpendbcMessage(
        scheme: "hkg-can-fd", source: .packer, dbc: "hyundai_canfd_generated", name: "MDPS", frameID: 0xEA,
        checksum: intel(0, 16), counter: intel(16, 8),
        frames: [
            "7cbe0010b811975017090306266a03643aea7d08e0c60000", "636101858fba0d3815134703219e19fe261e3d5932c40000",
            "62d7027bd5108068e2d8b017bae43f0e67bc67d35dee0000",
        ]),
    OpendbcMessage(
        scheme: "hkg-can-fd", source: .packer, dbc: "hyundai_canfd_generated", name: "SCC_CONTROL", frameID: 0x1A0,
        checksum: intel(0, 16), counter: intel(16, 8),
        frames: [
            "381a00c6795a9bd9301c5a880cbb0e665cf65d37400983086b4200000000a822", "bcd201691b640e6b679e90f1f70c3d0c43945069640b36751de8000000004fa0",
            "d800023a605b49c6551a147deaea4634fc754c217f03b7d08c7700000000ae1b",
        ]),
    OpendbcMessage(
        scheme: "vw-mqb", source: .packer, dbc: "vw_mqb", name: "HCA_01", frameID: 0x126,
        checksum: intel(0, 8), counter: intel(8, 4),
        frames: ["5ff02e7354f60100", "95c1800c302d0400", "6e721bed300b0700"]),
    OpendbcMessage(
        scheme: "vw-mqb", source: .packer, dbc: "vw_mqbevo", name: "EV_Gearshift", frameID: 0x187,
        checksum: intel(0, 8), counter: intel(8, 4),
        frames: ["7920070000000000", "af21030000000000", "b112090000000000"]),
    OpendbcMessage(
        scheme: "vw-mqb", source: .packer, dbc: "vw_meb", name: "ESC_51", frameID: 0xFC,
        checksum: intel(0, 8), counter: intel(8, 4),
        frames: [
            "6400001f412403004489076caa8286b70000001828487716470000000000000000000000000000000000000000000000",
            "ed01000a120c060047d979d79f0cab580000004f49fb35b6260000000000000000000000000000000000000000000000",
            "5602004f0ba80500a843c1b823af796c0000009664a9cf24a90000000000000000000000000000000000000000000000",
        ]),
    OpendbcMessage(
        scheme: "vw-mqb", source: .packer, dbc: "vw_meb", name: "EML_06", frameID: 0x20A,
        checksum: intel(0, 8), counter: intel(8, 4),
        frames: [
            "d1000000000000000000000000000000000000000000000000a98000000000000000000000000000000000000000000000000000000000000000000000000000",
            "ef010000020000000000000000000000000000000000000000d35600000000000000000000000000000000000000000000000000000000000000000000000000",
            "d2020000000000000000000000000000000000000000000000f0c400000000000000000000000000000000000000000000000000000000000000000000000000",
        ]),
    OpendbcMessage(
        scheme: "vw-mqb", source: .packer, dbc: "vw_meb", name: "KLR_01", frameID: 0x25D,
        checksum: intel(0, 8), counter: intel(8, 4),
        frames: ["0da0454f81080000", "1fd167c033030000", "11223737d3040000"]),
    OpendbcMessage(
        scheme: "vw-mlb", source: .packer, dbc: "vw_mlb", name: "LS_01", frameID: 0x10B,
        checksum: intel(0, 8), counter: intel(8, 4),
        frames: ["f7a093ce", "b8d1fd9e", "58020050"]),
    OpendbcMessage(
        scheme: "vw-mlb", source: .packer, dbc: "vw_mlb", name: "ACC_02", frameID: 0x30C,
        checksum: intel(0, 8), counter: intel(8, 4),
        frames: ["89a07db5063a9240", "94c1b9c1cb6a63e0", "97022cd237c1d240"]),
    OpendbcMessage(
        scheme: "vw-mlb", source: .packer, dbc: "vw_mlb", name: "HCA_01", frameID: 0x126,
        checksum: intel(0, 8), counter: intel(8, 4),
        frames: ["db701207c5be0100", "3561a1d9ca5d0400", "f9d237ca90620700"]),
    OpendbcMessage(
        scheme: "xor", source: .packer, dbc: "vw_pq", name: "HCA_1", frameID: 0xD2,
        checksum: intel(0, 8), counter: intel(8, 4),
        frames: ["bb306df214", "bd21582aee", "0e0277d1aa"]),
    OpendbcMessage(
        scheme: "xor", source: .packer, dbc: "vw_pq", name: "Airbag_1", frameID: 0x50,
        checksum: intel(24, 8), counter: intel(20, 4),
        frames: ["9f8d0f1d", "bef4145e", "c71126f0"]),
    OpendbcMessage(
        scheme: "xor", source: .packer, dbc: "vw_pq", name: "Bremse_5", frameID: 0x4A8,
        checksum: intel(56, 8), counter: intel(52, 4),
        frames: ["b63b300eac800897", "6f1439ae40eb1d5a", "6c658285001b2e3b"]),
    OpendbcMessage(
        scheme: "xor", source: .packer, dbc: "vw_pq", name: "Motor_5", frameID: 0x480,
        checksum: intel(56, 8), counter: nil,
        frames: ["b6f4eabf2b726f21", "2c2cf32a5341e72c", "1b0e78e5345be90e"]),
    OpendbcMessage(
        scheme: "subaru", source: .packer, dbc: "subaru_global_2017_generated", name: "ES_LKAS", frameID: 0x122,
        checksum: intel(0, 8), counter: intel(8, 4),
        frames: ["d2107f2000000000", "6a01232300000000", "e212a20b00000000"]),
    OpendbcMessage(
        scheme: "subaru", source: .packer, dbc: "subaru_global_2017_generated", name: "Steering", frameID: 0x2,
        checksum: intel(32, 8), counter: intel(25, 3),
        frames: ["2cc10000c3000000", "7a3c000240000000", "8a4600044c000000"]),
    OpendbcMessage(
        scheme: "chrysler", source: .packer, dbc: "chrysler_pacifica_2017_hybrid_generated", name: "LKAS_COMMAND", frameID: 0x292,
        checksum: motorola(47, 8), counter: motorola(39, 4),
        frames: ["064c00000037", "162c000010ca", "04880000208b"]),
    OpendbcMessage(
        scheme: "chrysler", source: .packer, dbc: "chrysler_cusw", name: "CRUISE_BUTTONS", frameID: 0x2FA,
        checksum: motorola(23, 8), counter: motorola(15, 4),
        frames: ["0000be", "0c1119", "55211b"]),
    OpendbcMessage(
        scheme: "fca-giorgio", source: .packer, dbc: "fca_giorgio", name: "EPS_3", frameID: 0x122,
        checksum: motorola(31, 8), counter: motorola(19, 4),
        frames: ["3f20002a", "67200143", "d9200285"]),
    OpendbcMessage(
        scheme: "fca-giorgio", source: .packer, dbc: "fca_giorgio", name: "ABS_2", frameID: 0xFE,
        checksum: motorola(63, 8), counter: motorola(51, 4),
        frames: ["e339f2ed907d00a6", "cf7bb88210c901dc", "d5e2e70550a982c7"]),
    OpendbcMessage(
        scheme: "body", source: .packer, dbc: "comma_body", name: "TORQUE_CMD", frameID: 0x250,
        checksum: motorola(47, 8), counter: motorola(35, 4),
        frames: ["3ae781270055", "8dbc8b3f0128", "45f0dbdd0255"]),
    OpendbcMessage(
        scheme: "body", source: .packer, dbc: "comma_body", name: "MAX_MOTOR_RPM_CMD", frameID: 0x251,
        checksum: motorola(39, 8), counter: nil,
        frames: ["e86f85d63f", "2c9ec65c1b", "8455838292"]),
    OpendbcMessage(
        scheme: "tesla", source: .packer, dbc: "tesla_model3_party", name: "DAS_steeringControl", frameID: 0x488,
        checksum: intel(24, 8), counter: intel(16, 4),
        frames: ["8507c0d8", "49dbc171", "2b3f8278"]),
    OpendbcMessage(
        scheme: "tesla", source: .packer, dbc: "tesla_model3_party", name: "DAS_control", frameID: 0x2B9,
        checksum: intel(56, 8), counter: intel(53, 3),
        frames: ["267dc1e5a92b0ae2", "de2016ef502b2962", "83698e5a81cf5f3e"]),
    OpendbcMessage(
        scheme: "tesla", source: .packer, dbc: "tesla_model3_party", name: "APS_eacMonitor", frameID: 0x27D,
        checksum: intel(16, 8), counter: intel(8, 4),
        frames: ["010080", "020182", "010282"]),
    OpendbcMessage(
        scheme: "psa", source: .packer, dbc: "psa_aee2010_r3", name: "LANE_KEEP_ASSIST", frameID: 0x3F2,
        checksum: motorola(15, 4), counter: motorola(11, 4),
        frames: ["40c04f2b065a4198", "00315eaf8628975e", "0022e19d3bf35094"]),
    OpendbcMessage(
        scheme: "psa", source: .packer, dbc: "psa_aee2010_r3", name: "ESP", frameID: 0x1CD,
        checksum: intel(4, 4), counter: motorola(3, 4),
        frames: ["b09610", "b1d7b0", "a20e10"]),
    OpendbcMessage(
        scheme: "psa", source: .packer, dbc: "psa_aee2010_r3", name: "NEW_MSG_42D", frameID: 0x42D,
        checksum: intel(20, 4), counter: intel(16, 4),
        frames: ["0000508f", "00003180", "00006204"]),
    OpendbcMessage(
        scheme: "psa", source: .packer, dbc: "psa_aee2010_r3", name: "HS2_DAT_MDD_CMD_452", frameID: 0x452,
        checksum: motorola(43, 4), counter: motorola(31, 4),
        frames: ["f1d4810e75e2", "c22282194a00", "62d8442ba969"]),
    OpendbcMessage(
        scheme: "psa", source: .packer, dbc: "psa_aee2010_r3", name: "HS2_DYN_ABR_38D", frameID: 0x38D,
        checksum: motorola(43, 4), counter: motorola(47, 4),
        frames: ["196bdb9a0b03e4d4", "ca296b1b5812d246", "22429184062e0d22"]),
]
