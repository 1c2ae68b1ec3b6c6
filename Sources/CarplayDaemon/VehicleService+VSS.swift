import CarIntents
import CarplayJSON
import CarplayProtocol
import Varlink
import VehicleKit

/// io.carplayd.VSS: the car by VSS paths (docs/io.carplayd.VSS.varlink), on the same
/// socket and for the same callers as io.carplayd.Vehicle. Reads come from the state;
/// Actuate runs the intents that carry its targets, so it answers, as they do, only once
/// the car's status frames confirm.
extension VehicleService {
    static let vssInterfaceName = "io.carplayd.VSS"
    static let vssInterface = VarlinkInterfaceDefinition(embedded: VSSInterface.description, source: "docs/io.carplayd.VSS.varlink")

    static let vssMethods: [String: Method] = [
        "io.carplayd.VSS.Describe": { service, request in service.describeVSS(request) },
        "io.carplayd.VSS.Get": { service, request in service.getVSS(request) },
        "io.carplayd.VSS.Monitor": { service, request in await service.monitorVSS(request) },
        "io.carplayd.VSS.Actuate": { service, request in await service.actuate(request) },
    ]

    func describeVSS(_ request: Request) {
        request.replies.send(VarlinkReply(parameters: VSSDescribeReply(release: VSSCatalog.release, signals: request.session.vss.signals).json))
    }

    func getVSS(_ request: Request) {
        guard let signals = Self.vssSignals(request) else { return }
        let (state, reachable) = request.session.controller.snapshot()
        request.replies.send(VarlinkReply(parameters: VSSGetReply(values: Self.values(of: signals, in: state), reachable: reachable).json))
    }

    func monitorVSS(_ request: Request) async {
        guard request.call.more else {
            request.replies.send(error: .expectedMore)
            return
        }
        guard let signals = Self.vssSignals(request) else { return }
        let controller = request.session.controller
        // Subscribed before the first reading: no change falls between them.
        let events = controller.events()
        var last = controller.snapshot().state
        guard request.replies.send(VarlinkReply(parameters: VSSMonitorReply(values: Self.values(of: signals, in: last)).json, continues: true)) else { return }
        for await event in events {
            guard case let .changed(change) = event else { continue }
            last.merge(change.state)
            let changedKeys = Set(change.keys)
            let touched = signals.filter { $0.keys.contains(where: changedKeys.contains) }
            let values = Self.values(of: touched, in: last)
            guard !values.isEmpty else { continue }
            guard request.replies.send(VarlinkReply(parameters: VSSMonitorReply(values: values).json, continues: true)) else { break }
        }
    }

    /// Each target in path order, one intent each; the first that fails ends the call
    /// with its error (what was confirmed before stays: the car holds it).
    func actuate(_ request: Request) async {
        guard case let .object(targets)? = request.call.parameters["targets"], !targets.isEmpty else {
            request.replies.send(error: Self.vssInvalidParameter("targets", "expected an object of VSS paths and values, with at least one"))
            return
        }
        let session = request.session
        let clock = ContinuousClock()
        let start = clock.now
        var confirmed: [VSSSignal] = []
        for (path, json) in targets.sorted(by: { $0.key < $1.key }) {
            guard let signal = session.vss.signal(path) else {
                request.replies.send(error: VarlinkError("io.carplayd.VSS.NoSuchSignal", ["path": .string(path)]))
                return
            }
            guard let value = VSSValue(json) else {
                request.replies.send(error: Self.invalidValue(path, "expected \(signal.datatype.rawValue), found \(json.serialized(sortedKeys: true))"))
                return
            }
            let intent: Intent
            do {
                intent = try signal.intent(setting: value, state: session.controller.snapshot().state)
            } catch {
                switch error {
                case let .notActuatable(reason):
                    request.replies.send(error: VarlinkError("io.carplayd.VSS.NotActuatable", ["path": .string(path), "reason": .string(reason)]))
                case let .invalidValue(reason): request.replies.send(error: Self.invalidValue(path, reason))
                }
                return
            }
            guard let outcome = await run(.perform, intent, parameters: .object([path: json]), request, errorsIn: Self.vssInterfaceName) else { return }
            if case let .notResolved(parameter, reason)? = outcome.refusal {
                request.replies.send(error: Self.invalidValue(path, "\(parameter): \(reason)"))
                return
            }
            guard outcome.response.code == .success else {
                var failure: [String: JSONValue] = [
                    "path": .string(path), "reason": .string(outcome.response.reason ?? outcome.response.code.rawValue),
                ]
                if let detail = outcome.response.detail { failure["detail"] = .string(detail) }
                request.replies.send(error: VarlinkError("io.carplayd.VSS.ActuationFailed", failure))
                return
            }
            confirmed.append(signal)
        }
        let elapsed = clock.now - start
        let state = session.controller.snapshot().state
        request.replies.send(VarlinkReply(parameters: VSSActuateReply(values: Self.values(of: confirmed, in: state), elapsed: elapsed).json))
    }

    /// The signals a call's `paths` name (all when absent), or nil after sending
    /// NoSuchSignal for the first unknown path.
    static func vssSignals(_ request: Request) -> [VSSSignal]? {
        let catalog = request.session.vss
        guard case let .array(paths)? = request.call.parameters["paths"] else { return catalog.signals }
        var signals: [VSSSignal] = []
        for case let .string(path) in paths {
            guard let signal = catalog.signal(path) else {
                request.replies.send(error: VarlinkError("io.carplayd.VSS.NoSuchSignal", ["path": .string(path)]))
                return nil
            }
            signals.append(signal)
        }
        return signals
    }

    /// `{path: value}` of the signals the state has a value for.
    static func values(of signals: [VSSSignal], in state: VehicleState) -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        for signal in signals {
            guard let value = signal.value(in: state) else { continue }
            values[signal.path] = value.jsonValue
        }
        return values
    }

    static func invalidValue(_ path: String, _ reason: String) -> VarlinkError {
        VarlinkError("io.carplayd.VSS.InvalidValue", ["path": .string(path), "reason": .string(reason)])
    }

    static func vssInvalidParameter(_ parameter: String, _ reason: String) -> VarlinkError {
        VarlinkError("io.carplayd.VSS.InvalidParameter", ["parameter": .string(parameter), "reason": .string(reason)])
    }
}

/// io.carplayd.VSS's interface description, served verbatim: docs/io.carplayd.VSS.varlink.
public enum VSSInterface {
    public static let name = VehicleService.vssInterfaceName
    public static let description = InterfaceTexts.vss
}

extension VSSValue {
    /// A JSON value as VSS's: integral numbers as integers.
    init?(_ json: JSONValue) {
        switch json {
        case let .bool(flag): self = .bool(flag)
        case let .integer(number): self = .integer(number)
        case let .number(number): self = number.rounded() == number && abs(number) < 1e15 ? .integer(Int(number)) : .number(number)
        case let .string(text): self = .string(text)
        default: return nil
        }
    }

    var jsonValue: JSONValue {
        switch self {
        case let .bool(flag): .bool(flag)
        case let .integer(number): .integer(number)
        case let .number(number): .number(number)
        case let .string(text): .string(text)
        }
    }
}
