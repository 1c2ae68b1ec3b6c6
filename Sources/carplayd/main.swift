import CarplayDaemon
import LinuxSupport

// carplayd: parse the arguments (and config file), then run the service.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(DaemonConfiguration.usage)
    exitProcess(0)
}
if arguments.contains("--version") {
    print("carplayd \(Daemon.version)")
    exitProcess(0)
}
let configuration: DaemonConfiguration
do {
    configuration = try DaemonConfiguration.parse(arguments: arguments) { try? FileDescriptor.readFile(atPath: $0) }
} catch {
    // The one line that says what is wrong stays in sight: no usage page after it.
    try? FileDescriptor.standardError.writeAll("carplayd: \(error)\nsee: carplayd --help\n")
    exitProcess(2)
}
do {
    try await Daemon(configuration: configuration, arguments: arguments).run()
    exitProcess(0)
} catch let failure as StartFailure {
    // Logged by the daemon as it failed.
    exitProcess(failure.exitCode)
} catch {
    try? FileDescriptor.standardError.writeAll("carplayd: \(error)\n")
    exitProcess(1)
}
