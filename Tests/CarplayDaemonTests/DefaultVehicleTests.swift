import Foundation
import Testing

@testable import CarplayDaemon

/// Without a profile carplayd serves the example sedan, chosen by name.
@Suite struct DefaultVehicleTests {
    /// Two roots of profiles: the first has only a car that sorts before "sedan".
    @Test func theSedanNotTheFirstFolderByName() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("carplayd-default-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        for folder in ["first/aaa-car", "second/aaa-car", "second/sedan"] {
            let directory = base.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: directory.appendingPathComponent("profile.json"))
        }
        let roots = [base.appendingPathComponent("first").path, base.appendingPathComponent("second").path]
        #expect(try Daemon.defaultProfileDirectory(in: roots) == roots[1] + "/sedan")
        #expect {
            try Daemon.defaultProfileDirectory(in: [roots[0]])
        } throws: { "\($0)".contains("the default one, sedan (the example sedan), is not in \(roots[0]); give --profile DIR") }
    }

    /// A build finds the source tree's profiles: the daemon's default is the sedan, and
    /// its log says it is the default.
    @Test func aBuildServesTheSourceTreesSedan() throws {
        let (directory, profile) = try Daemon.loadProfile(nil)
        #expect(profile.identifier == "sedan" && directory.hasSuffix("VehicleProfiles/sedan"))
        #expect(
            Daemon.served(profile, directory: directory, configured: false)
                == "the Example Sedan (profile \(directory), the default vehicle: no profile configured)")
        #expect(Daemon.served(profile, directory: directory, configured: true) == "the Example Sedan (profile \(directory))")
    }

    /// The start-up line's `try:` runs as printed: `scripts/run.sh` starts
    /// `.build/release/carplayd`, whose directory is on no one's PATH, so the command
    /// names the carplayctl beside the daemon (quoted for the shell where it must be).
    @Test func theTryLineNamesTheCarplayctlBesideTheDaemon() {
        let beside = Daemon.tryHint(socket: "/run/user/1000/carplayd/io.carplayd.Vehicle", executable: "/src/.build/release/carplayd") {
            $0 == "/src/.build/release/carplayctl"
        }
        #expect(
            beside
                == "try: /src/.build/release/carplayctl --socket /run/user/1000/carplayd/io.carplayd.Vehicle climate --temperature 21.5 --zone driver"
                + "   (or: /src/.build/release/carplayctl --socket /run/user/1000/carplayd/io.carplayd.Vehicle status)")
        let quoted = Daemon.tryHint(socket: "/tmp/my car's/s.sock", executable: "/home/al ex/bin/carplayd") { _ in true }
        #expect(quoted.hasPrefix(#"try: '/home/al ex/bin/carplayctl' --socket '/tmp/my car'\''s/s.sock' climate"#), "\(quoted)")
        let none = Daemon.tryHint(socket: "/run/carplayd/io.carplayd.Vehicle", executable: "/opt/carplayd") { _ in false }
        #expect(none.hasPrefix("try: carplayctl --socket /run/carplayd/io.carplayd.Vehicle climate"), "\(none)")
    }
}
