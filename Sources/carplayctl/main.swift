#if canImport(Glibc)
import Glibc
#endif

// carplayctl: parse the arguments, pick the verb, run it (systemd's small tools' shape).
exit(await CarplayCtl.run(arguments: Array(CommandLine.arguments.dropFirst())))
