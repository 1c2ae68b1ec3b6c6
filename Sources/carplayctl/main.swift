import LinuxSupport

// carplayctl: parse the arguments, pick the verb, run it (systemd's small tools' shape).
exitProcess(await CarplayCtl.run(arguments: Array(CommandLine.arguments.dropFirst())))
