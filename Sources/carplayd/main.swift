import CarplayDaemon
import LinuxSupport

#if canImport(Glibc)
import Glibc
#endif

// carplayd: parse the arguments (and config file), then run the service.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(DaemonConfiguration.usage)
    exit(0)
}
if arguments.contains("--version") {
    print("carplayd \(Daemon.version)")
    exit(0)
}
let configuration: DaemonConfiguration
do {
    configuration = try DaemonConfiguration.parse(arguments: arguments) { try? FileDescriptor.readFile(atPath: $0) }
} catch {
    try? FileDescriptor.standardError.writeAll("carplayd: \(error)\n\n\(DaemonConfiguration.usage)\n")
    exit(2)
}
exit(await Daemon(configuration: configuration, arguments: arguments).run())
