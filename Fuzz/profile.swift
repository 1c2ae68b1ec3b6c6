// Fuzz target: the vehicle profile loader (VehicleKit `ProfileLoader.load`), which
// reads profile.json and the DBC it names through a closure (no files involved).
//
// Input: profile.json, then optionally a NUL and the DBC. Without a NUL, the DBC is
// the shipped sedan's (so mutations of the JSON reach the binding checks).
// Properties: loading either throws a ProfileError that names the file and a reason,
// or yields a profile whose frames (VehicleFrames) can be built, summarised, and used to
// build every status frame from an empty state without a crash.
import CANKit
import VehicleKit

let sedan = FuzzFixtures.profiles.first { $0.0 == "sedan" }!
let sedanDBC = fixtureBytes(sedan.3)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    let json: [UInt8]
    let dbc: [UInt8]
    if let separator = bytes.firstIndex(of: 0) {
        json = Array(bytes[..<separator])
        dbc = Array(bytes[(separator + 1)...])
    } else {
        json = bytes
        dbc = sedanDBC
    }
    let profile: VehicleProfile
    do {
        profile = try ProfileLoader.load(directory: "fuzz") { path in
            path == "fuzz/profile.json" ? json : dbc
        }
    } catch {
        require(error.file == "fuzz/profile.json" && !error.reason.isEmpty, "a profile error without file or reason: \(error)")
        return 0
    }
    _ = ProfileSummary(profile).description
    let frames = VehicleFrames(profile: profile)
    var counters: [String: UInt8] = [:]
    var checkers: [String: FrameChecker] = [:]
    var latches: [String: [Int128]] = [:]
    for name in frames.statusMessages.keys.sorted() {
        guard let frame = try? frames.statusFrame(name, state: VehicleState(), counters: &counters) else { continue }
        _ = frames.decodeFromVehicle(frame, checkers: &checkers)
        _ = frames.decodeFromHeadUnit(frame, checkers: &checkers, latches: &latches)
    }
    return 0
}
