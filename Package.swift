// swift-tools-version:6.0
// carplayd: CarPlay-domain intents over CAN, for Linux.
import PackageDescription

let package = Package(
    name: "carplayd",
    products: [
        .library(name: "CANKit", targets: ["CANKit"]),
        .library(name: "VehicleKit", targets: ["VehicleKit"]),
        .library(name: "VehicleSimulator", targets: ["VehicleSimulator"]),
        .library(name: "CarIntents", targets: ["CarIntents"]),
        .executable(name: "carplayctl", targets: ["carplayctl"]),
        .executable(name: "carplayd", targets: ["carplayd"]),
        .executable(name: "carplay-ecu", targets: ["carplay-ecu"]),
        // The load generator of Benchmarks/intents (a client of a running carplayd).
        .executable(name: "carplay-bench", targets: ["carplay-bench"]),
    ],
    targets: [
        // C libraries from Debian, found through pkg-config.
        .systemLibrary(
            name: "CSocketCAN",
            path: "Sources/CSocketCAN",
            pkgConfig: "libsocketcan",
            providers: [.apt(["libsocketcan-dev"])]
        ),
        .systemLibrary(
            name: "CSystemd",
            path: "Sources/CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),

        // Our own C: the few Linux interfaces Swift cannot import (epoll, SO_PEERCRED).
        .target(name: "CCarplayLinux"),

        // Pure: the one JSON of the project (value, parser, writer, a reader that names
        // the JSON path of what is wrong), and floats as Python writes them.
        .target(name: "CarplayJSON"),

        // Pure: frames, DBC, codec, frame protection, candump. No I/O.
        .target(name: "CANKit", dependencies: ["CarplayJSON"]),

        // Varlink: message framing, a server on the event loop, a blocking client.
        .target(name: "Varlink", dependencies: ["CarplayJSON", "EventLoops", "LinuxSupport"]),

        // The bus abstraction and the in-process virtual bus (vcan semantics).
        .target(name: "CANBus", dependencies: ["CANKit", "EventLoops", "LinuxSupport"]),

        // Pure: vehicle profiles, state, state <-> frames (both ends of the bus).
        .target(name: "VehicleKit", dependencies: ["CANKit", "CarplayJSON"]),

        // The simulated vehicle: the pure simulation (frames in, state, frames out; faults,
        // scenarios) and, in Runner/, what runs it on a port (tasks, timers, sends).
        .target(name: "VehicleSimulator", dependencies: ["CANKit", "CANBus", "CarplayJSON", "VehicleKit"]),

        // The eleven intents: resolve, confirm, handle; the controller over a bus.
        .target(name: "CarIntents", dependencies: ["CANKit", "CANBus", "VehicleKit", "CarplayJSON"]),

        // The only place that talks to the Linux C libraries.
        .target(name: "LinuxSupport", dependencies: ["CSocketCAN", "CSystemd", "CCarplayLinux"]),
        // What carplayd is as a product: its version, where its socket, state and
        // configuration live; for the daemon, its clients and carplay-ecu alike.
        .target(name: "CarplaydProduct", dependencies: ["LinuxSupport"]),
        // The executor runtime: epoll loops on threads of their own, and their timers.
        .target(name: "EventLoops", dependencies: ["LinuxSupport", "CCarplayLinux"]),

        // The SocketCAN transport: a CANPort on a Linux CAN interface.
        .target(name: "SocketCAN", dependencies: ["CANBus", "CANKit", "EventLoops", "LinuxSupport"]),

        // io.carplayd.Simulator over a simulated vehicle, and who may call it: served by
        // carplayd's embedded vehicle and carplay-ecu's --control socket alike.
        .target(
            name: "SimulatorControl", dependencies: ["CarplayJSON", "CarplayProtocol", "LinuxSupport", "Varlink", "VehicleKit", "VehicleSimulator"],
            plugins: ["EmbedInterfaces"]),

        // The client side of io.carplayd.Vehicle and io.carplayd.Simulator: typed requests,
        // replies and errors, decoded once (a reply that does not fit names its JSON path),
        // in the types and enums the daemon's side uses.
        // The replies of carplayd's interfaces as types, each written by the daemon and read
        // by its clients through the same description.
        .target(name: "CarplayProtocol", dependencies: ["CANBus", "CANKit", "CarIntents", "CarplayJSON", "VehicleKit"]),
        .target(name: "CarplayClient", dependencies: ["CANBus", "CANKit", "CarIntents", "CarplayJSON", "CarplayProtocol", "Varlink", "VehicleKit"]),

        // The daemon: configuration, the Varlink service, daemon state, lifecycle. Its
        // interface texts are docs/*.varlink, embedded at build time.
        .target(
            name: "CarplayDaemon",
            dependencies: [
                "CANBus", "CANKit", "CarIntents", "CarplaydProduct", "CarplayJSON", "CarplayProtocol", "EventLoops", "LinuxSupport",
                "SimulatorControl", "SocketCAN", "Varlink", "VehicleKit", "VehicleSimulator",
            ],
            plugins: ["EmbedInterfaces"]),
        .plugin(name: "EmbedInterfaces", capability: .buildTool(), dependencies: ["embed-interfaces"]),
        .executableTarget(name: "embed-interfaces", path: "Plugins/embed-interfaces"),

        // Thin executables.
        .executableTarget(name: "carplayd", dependencies: ["CarplayDaemon", "LinuxSupport"]),
        .executableTarget(
            name: "carplay-ecu",
            dependencies: [
                "CANBus", "CarplaydProduct", "CarplayJSON", "EventLoops", "LinuxSupport", "SimulatorControl", "SocketCAN", "Varlink", "VehicleKit",
                "VehicleSimulator",
            ]),
        // The benchmark executables, beside their drivers: the load generator of
        // Benchmarks/intents (a client of a running carplayd) and the CPU cost of one
        // intent's frame path (Benchmarks/frames/run.sh).
        .executableTarget(
            name: "carplay-bench", dependencies: ["CarplayJSON", "LinuxSupport", "Varlink", "VehicleKit"], path: "Benchmarks/intents/carplay-bench"),
        .executableTarget(
            name: "frames-bench", dependencies: ["CANKit", "LinuxSupport", "VehicleKit", "VehicleSimulator"], path: "Benchmarks/frames", exclude: ["run.sh"]),
        // carplayctl's full-screen views as a library: the dash (the live cabin, wanted
        // vs actual, keys that send intents) and the bus watch, each a pure model and
        // renderer, and the terminal they draw on.
        // How carplayctl and the dash say things: an intent's reply as a sentence, values
        // with their units.
        .target(name: "CarplayText", dependencies: ["CarIntents", "CarplayClient", "CarplayJSON", "CarplayProtocol", "VehicleKit"]),
        .target(
            name: "CarplayDash",
            dependencies: ["CANBus", "CANKit", "CarIntents", "CarplayClient", "CarplayJSON", "CarplayProtocol", "CarplayText", "LinuxSupport", "VehicleKit"]),
        .executableTarget(
            name: "carplayctl",
            dependencies: [
                "CANKit", "CANBus", "SocketCAN", "VehicleKit", "VehicleSimulator", "CarIntents", "CarplayClient", "CarplayDash", "CarplaydProduct",
                "CarplayJSON", "CarplayProtocol", "CarplayText", "LinuxSupport",
            ]),

        // What the test targets share: the repository's paths, the DBC corpus, hex
        // helpers, a Varlink server on a temporary socket.
        .target(name: "TestSupport", dependencies: ["CANBus", "CarplayJSON", "EventLoops", "LinuxSupport", "Varlink"], path: "Tests/TestSupport"),

        .testTarget(name: "CANKitTests", dependencies: ["CANKit", "CarplayJSON", "TestSupport"]),
        .testTarget(name: "LinuxSupportTests", dependencies: ["LinuxSupport", "EventLoops"]),
        .testTarget(name: "EventLoopsTests", dependencies: ["EventLoops", "LinuxSupport"]),
        .testTarget(name: "CANBusTests", dependencies: ["CANBus", "CANKit", "TestSupport"]),
        .testTarget(name: "SocketCANTests", dependencies: ["SocketCAN", "CANKit", "EventLoops", "LinuxSupport"]),
        .testTarget(
            name: "CarplayDaemonTests",
            dependencies: [
                "CarplayDaemon", "SimulatorControl", "Varlink", "CarplayJSON", "CarplayProtocol", "LinuxSupport", "CANBus", "CANKit", "CarIntents",
                "VehicleSimulator",
                "TestSupport",
            ]),
        .testTarget(
            name: "CarplayClientTests",
            dependencies: [
                "CarplayClient", "CANBus", "CANKit", "CarIntents", "CarplayJSON", "CarplayProtocol", "LinuxSupport", "Varlink", "VehicleKit",
                "VehicleSimulator", "TestSupport",
            ]),
        .testTarget(name: "CarplayJSONTests", dependencies: ["CarplayJSON"]),
        .testTarget(name: "CarplaydProductTests", dependencies: ["CarplaydProduct"]),
        .testTarget(
            name: "SimulatorControlTests",
            dependencies: [
                "SimulatorControl", "CarplayDaemon", "Varlink", "CarplayJSON", "LinuxSupport", "CANBus", "VehicleKit", "VehicleSimulator", "TestSupport",
            ]),
        .testTarget(name: "VarlinkTests", dependencies: ["Varlink", "CarplayJSON", "EventLoops", "LinuxSupport", "TestSupport"]),
        .testTarget(name: "VehicleKitTests", dependencies: ["VehicleKit", "CANKit", "CarplayJSON", "TestSupport"]),
        .testTarget(name: "VehicleSimulatorTests", dependencies: ["VehicleSimulator", "VehicleKit", "CANBus", "CANKit", "CarplayJSON", "TestSupport"]),
        .testTarget(
            name: "CarIntentsTests",
            dependencies: ["CarIntents", "VehicleKit", "VehicleSimulator", "CANBus", "CANKit", "CarplayJSON", "EventLoops", "TestSupport"]),
        // Runs the built carplayctl binary as a subprocess; depending on the executable
        // target makes SwiftPM build it before the tests. CANKit lists a DBC's names.
        // Varlink, LinuxSupport, CarplayJSON: the fake daemon of ClientVerbTests.
        .testTarget(name: "CarplayDashTests", dependencies: ["CarplayDash", "CANKit", "CarplayClient", "CarplayJSON", "CarplayProtocol", "TestSupport"]),
        .testTarget(
            name: "CarplayProtocolTests",
            dependencies: ["CarplayProtocol", "CANBus", "CANKit", "CarIntents", "CarplayJSON", "LinuxSupport", "TestSupport", "VehicleKit"]),
        .testTarget(
            name: "carplayctlTests", dependencies: ["carplayctl", "CANKit", "Varlink", "LinuxSupport", "CarplayJSON", "CarplayProtocol", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
