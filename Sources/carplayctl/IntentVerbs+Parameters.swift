import CarIntents
import CarplayJSON
import CarplayText

/// `--param NAME=VALUE`: an intent verb takes any parameter of its intent by SiriKit's
/// name, read as the intent's declaration types it; the verb's help lists them.
extension IntentVerbs {
    /// `parameters` with each `--param NAME=VALUE` of `typed` added: NAME one of the
    /// intent's declared parameters, VALUE read as its declared kind. A parameter needs
    /// no flag of its own to be given from the command line.
    static func declared(_ typed: [String], into parameters: [String: JSONValue], of intent: IntentName) throws -> [String: JSONValue] {
        var parameters = parameters
        let names = Intent.parameterNames(of: intent)
        for text in typed {
            guard let equals = text.firstIndex(of: "=") else { throw UsageError("--param \(text): expected NAME=VALUE") }
            let name = String(text[..<equals])
            guard names.contains(name), let kind = Intent.kind(ofParameter: name) else {
                throw UsageError("--param \(name): \(intent.rawValue) has no parameter \(name); its parameters: \(names.joined(separator: ", "))")
            }
            let value = try ParameterInput.parse(kind, text: String(text[text.index(after: equals)...]), what: "--param \(name)")
            try setOnce(&parameters, name, value, option: "--param \(name)")
        }
        return parameters
    }

    /// The "parameters" section of an intent verb's help, from the declarations.
    static func parameterHelp(_ intents: [IntentName]) -> String {
        guard !intents.isEmpty else { return "" }
        var lines = ["", "", "parameters (SiriKit's names; --param NAME=VALUE):"]
        for intent in intents {
            let indent = intents.count > 1 ? "    " : "  "
            if intents.count > 1 { lines.append("  \(intent.rawValue):") }
            for name in Intent.parameterNames(of: intent) {
                lines.append(indent + padded(name, 28) + (Intent.kind(ofParameter: name).map(ParameterInput.describe) ?? ""))
            }
        }
        return lines.joined(separator: "\n")
    }
}
