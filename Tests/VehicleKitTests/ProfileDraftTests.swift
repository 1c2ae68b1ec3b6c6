import CANKit
import Foundation
import TestSupport
import Testing

@testable import VehicleKit

/// `profile draft` (issue 26): a starting profile from a DBC alone.
@Suite struct ProfileDraftTests {
    static let realCars = [
        ("ford-cgea", "ford_cgea1_2_bodycan_2011.dbc"), ("gm-global-a-lowspeed", "gm_global_a_lowspeed_1818125.dbc"),
        ("hyundai-ccan", "hyundai_2015_ccan.dbc"), ("hyundai-kia-generic", "hyundai_kia_generic.dbc"), ("hyundai-mcan", "hyundai_2015_mcan.dbc"),
        ("tesla-model-s", "tesla_can.dbc"), ("toyota-2017", "_toyota_2017.dbc"), ("vw-mqb", "vw_mqb.dbc"),
    ]

    static func draft(_ url: URL) throws -> ProfileDraft.Draft {
        let bytes = try TestPaths.bytes(url)
        let database = try DBCDatabase(parsing: bytes, source: url.lastPathComponent)
        return ProfileDraft.draft(database, dbcFile: url.lastPathComponent, bytes: bytes, role: nil, name: "draft")
    }

    @Test func namesAreSplitIntoWords() {
        #expect(ProfileDraft.words("RmClmCtrlACSetReq") == ["rm", "clm", "ctrl", "ac", "set", "req"])
        #expect(ProfileDraft.words("CF_Datc_IncarTemp") == ["cf", "datc", "incar", "temp"])
        #expect(ProfileDraft.words("WINDSCREEN_DEFOG") == ["windscreen", "defog"])
        #expect(ProfileDraft.words("FlLvlPct") == ["fl", "lvl", "pct"])
        #expect(ProfileDraft.words("Gebläse_Stufe") == ["geblaese", "stufe"])
        #expect(ProfileDraft.words("ETAT_DÉGIVRAGE-AR") == ["etat", "degivrage", "ar"])
    }

    /// The draft of each shipped real car's DBC loads (as `profile check` would), binds
    /// only statuses, and finds the shipped profile's statuses, each as the property the
    /// profile binds it to: how many is the table in docs/CLI.md (`profile draft`); these
    /// are floors, so a worse matcher fails here.
    @Test(arguments: realCars) func theDraftOfARealCarLoadsAndFindsItsStatuses(_ car: (String, String)) throws {
        let folder = TestPaths.repository("VehicleProfiles/\(car.0)")
        let draft = try Self.draft(folder.appendingPathComponent(car.1))
        let files = ["d/profile.json": Array(draft.json.serialized().utf8), "d/\(car.1)": try TestPaths.bytes(folder.appendingPathComponent(car.1))]
        let loaded = try ProfileLoader.load(directory: "d") { files[$0] }
        #expect(loaded.bindings.values.allSatisfy { $0.command == nil }, "read-only until the user says otherwise")
        // What the report counts and lists is what the file binds.
        let written = Set(draft.json.objectValue?["bindings"]?.objectValue?.keys.map { $0 } ?? [])
        #expect(Set(draft.bindings.keys.map(\.rawValue)) == written, "\(car.0)")
        #expect(Set(draft.notes.filter { $0.kind == .bound }.map(\.property)) == written, "\(car.0)")
        let shipped = try ProfileLoader.load(directory: folder.path) { FileManager.default.contents(atPath: $0).map { Array($0) } }
        let wanted = Set(shipped.bindings.values.map { "\($0.status.message).\($0.status.signal)" })
        let found = Set(draft.bindings.values.map { "\($0.message).\($0.signal)" })
        let matched = wanted.intersection(found).count
        // Found as what it is: a zone's temperature as a zone's, a fan level as a fan level.
        func kind(_ key: PropertyKey) -> String {
            for prefix in ["climate.temperature.", "climate.climateControl."] where key.rawValue.hasPrefix(prefix) { return prefix }
            return key.rawValue
        }
        var shippedKinds: [String: Set<String>] = [:]
        for (key, binding) in shipped.bindings { shippedKinds["\(binding.status.message).\(binding.status.signal)", default: []].insert(kind(key)) }
        for (key, reference) in draft.bindings {
            let signal = "\(reference.message).\(reference.signal)"
            if let kinds = shippedKinds[signal] { #expect(kinds.contains(kind(key)), "\(car.0): \(signal) drafted as \(key.rawValue), shipped as \(kinds)") }
        }
        let floors = [
            "ford-cgea": 3, "gm-global-a-lowspeed": 7, "hyundai-ccan": 12, "hyundai-kia-generic": 12, "hyundai-mcan": 17, "tesla-model-s": 3,
            "toyota-2017": 3, "vw-mqb": 4,
        ]
        #expect(matched >= floors[car.0]!, "\(car.0): \(matched) of \(wanted.count): found \(found.sorted()), shipped \(wanted.sorted())")
        print("draft-match \(car.0): \(matched) of \(wanted.count) status bindings; \(draft.bindings.count) bound")
    }

    /// Every DBC of the test corpus drafts without a crash, and the draft loads.
    @Test func everyCorpusDBCDrafts() throws {
        for url in try TestPaths.corpusFiles() {
            guard let bytes = try? TestPaths.bytes(url), let database = try? DBCDatabase(parsing: bytes, source: url.lastPathComponent) else { continue }
            let draft = ProfileDraft.draft(database, dbcFile: url.lastPathComponent, bytes: bytes, role: nil, name: "draft")
            let files = ["d/profile.json": Array(draft.json.serialized().utf8), "d/\(url.lastPathComponent)": bytes]
            #expect(throws: Never.self, "\(url.lastPathComponent)") { _ = try ProfileLoader.load(directory: "d") { files[$0] } }
        }
    }
}
