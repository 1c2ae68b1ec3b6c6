import CarIntents
import CarplayClient
import CarplayJSON
import CarplayText

/// Runs one intent against the daemon, the way a person wants it:
///
/// 1. `Resolve` with the parameters from the flags.
/// 2. Every parameter that needs the user -- `disambiguation` (pick an option),
///    `confirmationRequired` (accept the value the car would use), `needsValue` (type
///    one) -- is asked on a terminal; then `Resolve` again with the answers, until it
///    is ready (or nothing more can be asked). Off a terminal the verb fails (exit 1)
///    and says what it would have asked; `--yes` accepts confirmationRequired values.
///    `unsupported` cannot be fixed by an answer: straight on to step 3, which reports it.
/// 3. `Perform` with the final parameters, and print a sentence (or `--json`: the reply).
///    `Perform` resolves again on the daemon: nothing the dialog did is trusted blindly.
enum IntentRunner {
    /// Resolve rounds at most (each answer can raise a new question).
    static let maxRounds = 8

    static func run(_ intent: IntentName, _ parameters: [String: JSONValue], _ options: DaemonOptions) throws -> Int32 {
        try withDaemonErrorsAsJSON(options.json) {
            let parameters = try IntentVerbs.declared(options.parameters, into: parameters, of: intent)
            let daemon = try DaemonConnection(options)
            let (final, reply) = try perform(intent, parameters, daemon: daemon, options: options, interactive: isInteractive())
            let succeeded = succeeded(reply)
            if options.json {
                output(JSONValue.object(reply.json).serialized())
            } else if succeeded {
                output(IntentSentence.success(final, reply: reply))
            } else {
                printError(IntentSentence.failure(intent: intent, reply: reply))
            }
            return succeeded ? ExitCode.success : ExitCode.failure
        }
    }

    /// Steps 1 to 3 without printing, for callers that show the outcome themselves (the
    /// dash, which never asks: `interactive` false): the intent performed and Perform's
    /// reply.
    static func perform(_ intent: IntentName, _ parameters: [String: JSONValue], daemon: DaemonConnection, options: DaemonOptions, interactive: Bool) throws
        -> (intent: Intent, reply: PerformReply)
    {
        let final = try typed(intent, resolve(daemon: daemon, intent: intent, parameters: parameters, options: options, interactive: interactive))
        return (final, try daemon.run { try $0.perform(final) })
    }

    /// The intent as its declaration reads `parameters`: what is sent. A value the
    /// declaration refuses is refused here with the daemon's own error (and `--json`
    /// prints it as the daemon's), before anything is sent.
    static func typed(_ intent: IntentName, _ parameters: [String: JSONValue]) throws -> Intent {
        do {
            return try Intent(named: intent.rawValue, parameters: .object(parameters))
        } catch {
            throw DaemonError(ErrorReply(refusing: error))
        }
    }

    /// The vehicle confirmed it (or, for a reading, answered).
    static func succeeded(_ reply: PerformReply) -> Bool { reply.response.code == .success }

    /// Steps 1 and 2: the parameters to perform with.
    static func resolve(daemon: DaemonConnection, intent: IntentName, parameters: [String: JSONValue], options: DaemonOptions, interactive: Bool) throws
        -> [String: JSONValue]
    {
        var parameters = parameters
        for _ in 0..<maxRounds {
            let request = try typed(intent, parameters)
            let reply = try daemon.run { try $0.resolve(request) }
            if reply.ready { return parameters }
            let resolutions = reply.resolutions
            let names = IntentSentence.ordered(resolutions.keys, intent)
            if names.contains(where: { resolutions[$0]?.kind == .unsupported }) { return parameters }
            // A choice often settles the rest (the station picks the band): the most
            // specific question first, then Resolve again.
            let pending = [ResolutionKind.disambiguation, .confirmationRequired, .needsValue].flatMap { (wanted: ResolutionKind) -> [String] in
                names.filter { resolutions[$0]?.kind == wanted }
            }
            if pending.isEmpty { return parameters }
            if options.yes, pending.contains(where: { resolutions[$0]?.kind == .confirmationRequired }) {
                for name in pending {
                    if case let .confirmationRequired(value, _)? = resolutions[name] { apply(name, value, to: &parameters, intent: intent) }
                }
                continue
            }
            guard interactive else {
                // Say everything that would have been asked.
                if options.json { output(JSONValue.object(reply.json).serialized()) }
                throw OperationFailure(pending.map { question(for: $0, resolutions[$0]!) }.joined(separator: "\n"))
            }
            let name = pending[0]
            switch resolutions[name]! {
            case let .confirmationRequired(value, reason):
                guard try askYesNo("\(reason); use \(IntentSentence.readableOption(value))?") else { throw OperationFailure("cancelled; nothing was changed") }
                apply(name, value, to: &parameters, intent: intent)
            case let .disambiguation(choices):
                guard !choices.isEmpty else { throw OperationFailure(question(for: name, .disambiguation(choices))) }
                apply(name, try choose(name, choices), to: &parameters, intent: intent)
            case let .needsValue(reason):
                parameters[name] = try askValue(name, reason: reason)
            case .success, .notRequired, .unsupported:
                return parameters  // not pending
            }
        }
        return parameters
    }

    /// What would have been asked, for the error off a terminal.
    static func question(for name: String, _ resolution: ResolutionResult) -> String {
        switch resolution {
        case let .confirmationRequired(value, reason):
            return "\(reason): the car would use \(IntentSentence.readableOption(value)); run again with --yes to accept, or give another value"
        case let .disambiguation(options):
            return "\(name) is ambiguous; give one of:\n" + numbered(options)
        case let .needsValue(reason):
            return "\(name) needs a value: \(reason)"
        case .success, .notRequired, .unsupported:
            return "\(name) needs a value: give one"
        }
    }

    /// A chosen option becomes the parameter's value; an option that names other
    /// parameters (a seat level's `{"feature":"heating","level":2}`) sets those:
    /// `feature` F means `enableF: true`.
    static func apply(_ name: String, _ value: JSONValue, to parameters: inout [String: JSONValue], intent: IntentName) {
        let known = Set(Intent.parameterNames(of: intent))
        if case let .object(object) = value, !object.isEmpty,
            object["feature"] != nil || object.keys.allSatisfy(known.contains)
        {
            for (key, member) in object {
                if key == "feature", let feature = member.stringValue {
                    parameters["enable" + capitalizedFirst(feature)] = .bool(true)
                } else {
                    parameters[key] = member
                }
            }
        } else {
            parameters[name] = value
        }
    }

    static func numbered(_ choices: [JSONValue]) -> String {
        choices.enumerated().map { "  \($0.offset + 1). \(IntentSentence.readableOption($0.element))" }.joined(separator: "\n")
    }

    // MARK: - Questions (on a terminal)

    static func readAnswer() throws -> String {
        guard let line = readLine(strippingNewline: true) else { throw OperationFailure("cancelled; nothing was changed") }
        return line.trimming(" ")
    }

    static func askYesNo(_ question: String) throws -> Bool {
        output("\(question) [y/N] ", newline: false)
        let answer = try readAnswer().lowercased()
        return answer == "y" || answer == "yes"
    }

    static func choose(_ name: String, _ choices: [JSONValue]) throws -> JSONValue {
        output("\(name): which one?\n\(numbered(choices))")
        for _ in 0..<3 {
            output("choice [1-\(choices.count)]: ", newline: false)
            let answer = try readAnswer()
            if let index = Int(answer), choices.indices.contains(index - 1) { return choices[index - 1] }
            if let match = choices.first(where: { IntentSentence.readableOption($0).lowercased() == answer.lowercased() }) { return match }
            output("give a number from 1 to \(choices.count)")
        }
        throw OperationFailure("no valid choice; nothing was changed")
    }

    static func askValue(_ name: String, reason: String?) throws -> JSONValue {
        for _ in 0..<3 {
            output("\(name)\(reason.map { " (\($0))" } ?? ""): ", newline: false)
            let answer = try readAnswer()
            do {
                return try ParameterInput.parse(parameter: name, text: answer)
            } catch {
                output("\(error)")
            }
        }
        throw OperationFailure("no valid value for \(name); nothing was changed")
    }
}
