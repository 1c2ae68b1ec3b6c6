// swift-tools-version:6.0
// carplayd: CarPlay-domain intents over CAN, for Linux.
import PackageDescription

let package = Package(
    name: "carplayd",
    products: [
        .library(name: "CANKit", targets: ["CANKit"]),
        .executable(name: "carplayctl", targets: ["carplayctl"]),
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

        // Pure: frames, DBC, codec, E2E, candump. No I/O.
        .target(name: "CANKit"),

        // The only place that talks to the Linux C libraries.
        .target(name: "LinuxSupport", dependencies: ["CSocketCAN", "CSystemd"]),

        // Thin executables.
        .executableTarget(name: "carplayctl", dependencies: ["CANKit", "LinuxSupport"]),

        .testTarget(name: "CANKitTests", dependencies: ["CANKit"]),
        .testTarget(name: "LinuxSupportTests", dependencies: ["LinuxSupport"]),
        // Runs the built carplayctl binary as a subprocess; depending on the executable
        // target makes SwiftPM build it before the tests. CANKit lists a DBC's names.
        .testTarget(name: "carplayctlTests", dependencies: ["carplayctl", "CANKit"]),
    ],
    swiftLanguageModes: [.v6]
)
