import PackagePlugin

/// Embeds the Varlink interface files of docs/ (the one copy of each interface's text)
/// into the target as Swift string constants, so the daemon serves them verbatim
/// without reading a file at run time.
@main
struct EmbedInterfaces: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let docs = context.package.directoryURL.appending(path: "docs")
        let interfaces = ["io.carplayd.Vehicle", "io.carplayd.Simulator", "io.carplayd.VSS"].map { docs.appending(path: "\($0).varlink") }
        let output = context.pluginWorkDirectoryURL.appending(path: "InterfaceTexts.swift")
        return [
            .buildCommand(
                displayName: "Embedding the Varlink interface descriptions",
                executable: try context.tool(named: "embed-interfaces").url,
                arguments: [output.path] + interfaces.map(\.path),
                inputFiles: interfaces,
                outputFiles: [output])
        ]
    }
}
