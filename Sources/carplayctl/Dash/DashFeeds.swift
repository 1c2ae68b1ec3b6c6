import CarplayClient
import CarplayDash
import CarplayJSON
import CarplayProtocol
import CarplayText
import LinuxSupport

/// Everything that reaches the dash, in the order it arrived.
enum DashEvent: Sendable {
    case state(GetStateReply, at: Double)
    case monitor(MonitorReply, at: Double)
    case traffic(GetBusTrafficReply)
    case lost(String)
    case input([UInt8])
    case signal(Int32)
    case finished(Int, DashRequestResult)
}

/// The dash's inputs, each on a thread of its own because each blocks: the Monitor
/// stream and GetState (the Varlink client is blocking), the keyboard (read), and every
/// request (Perform waits for the vehicle's confirmation). They only yield events into
/// one stream, which the dash's loop reads alone: no state is shared.
enum DashFeeds {
    static func start(_ options: DaemonOptions, _ sink: AsyncStream<DashEvent>.Continuation, keys: Bool) throws(Errno) {
        try DetachedThread.start(name: "dash-monitor") { monitor(options, sink) }
        try DetachedThread.start(name: "dash-state") { pollState(options, sink) }
        if keys { try DetachedThread.start(name: "dash-keys") { readKeys(sink) } }
    }

    /// Monitor with `more` and the commands in flight (wanted vs actual for every
    /// client's intents), again after a second when the daemon goes away (a restart).
    static func monitor(_ options: DaemonOptions, _ sink: AsyncStream<DashEvent>.Continuation) {
        while true {
            do {
                try DaemonConnection(options).run { client in
                    try client.monitor(commands: true) { reply in
                        sink.yield(.monitor(reply, at: monotonicSeconds()))
                        return true
                    }
                }
                sink.yield(.lost("carplayd ended the Monitor stream"))
            } catch {
                sink.yield(.lost("\(error)"))
            }
            DetachedThread.sleep(for: .seconds(1))
        }
    }

    /// GetState and GetBusTraffic once a second: reachability, bus health and what the bus
    /// carried, and the dash's clock tick.
    static func pollState(_ options: DaemonOptions, _ sink: AsyncStream<DashEvent>.Continuation) {
        var daemon: DaemonConnection?
        while true {
            do {
                let connection = try daemon ?? DaemonConnection(options)
                daemon = connection
                sink.yield(.state(try connection.run { try $0.getState() }, at: monotonicSeconds()))
                sink.yield(.traffic(try connection.run { try $0.getBusTraffic() }))
            } catch {
                daemon = nil
                sink.yield(.lost("\(error)"))
            }
            DetachedThread.sleep(for: .seconds(1))
        }
    }

    static func readKeys(_ sink: AsyncStream<DashEvent>.Continuation) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = (try? buffer.withUnsafeMutableBytes { raw in try FileDescriptor.standardInput.read(into: raw) }) ?? 0
            guard count > 0 else { return }
            sink.yield(.input(Array(buffer[0..<count])))
        }
    }

    /// Sends `request` as the intent verbs send theirs (IntentRunner: Resolve, then
    /// Perform), never asking: a question the daemon would ask is the failure's reason;
    /// the driver's own change as `carplayctl car set` does.
    static func send(_ request: DashRequest, number: Int, _ options: DaemonOptions, _ sink: AsyncStream<DashEvent>.Continuation) {
        do {
            try DetachedThread.start(name: "dash-request") {
                sink.yield(.finished(number, perform(request, options)))
            }
        } catch {
            sink.yield(.finished(number, .failed(reason: "cannot start a thread: \(error)")))
        }
    }

    static func perform(_ request: DashRequest, _ options: DaemonOptions) -> DashRequestResult {
        if request.asDriver { return setAsDriver(request, options) }
        do {
            let daemon = try DaemonConnection(options)
            let (final, reply) = try IntentRunner.perform(request.intent, request.parameters, daemon: daemon, options: options, interactive: false)
            guard IntentRunner.succeeded(reply) else { return .failed(reason: IntentSentence.failure(intent: request.intent, reply: reply)) }
            return .confirmed(
                sentence: IntentSentence.success(final, reply: reply), state: reply.state)
        } catch {
            return .failed(reason: "\(error)")
        }
    }
}

extension DashFeeds {
    /// The panel: SetVehicleState with the key's targets. The reply says the car took them;
    /// the cabin shows them when the status frames do (Monitor), as for an intent.
    static func setAsDriver(_ request: DashRequest, _ options: DaemonOptions) -> DashRequestResult {
        do {
            let reply = try DaemonConnection(options).run { try $0.setVehicleState(request.targets) }
            return .confirmed(sentence: "the driver set " + DashModel.assignments(reply.values), state: [:])
        } catch {
            return .failed(reason: "\(error)")
        }
    }
}

/// Seconds on the continuous clock since carplayctl started (rates and marks must not
/// jump with the wall clock).
func monotonicSeconds() -> Double { (ContinuousClock.now - startedAt) / .seconds(1) }

private let startedAt = ContinuousClock.now
