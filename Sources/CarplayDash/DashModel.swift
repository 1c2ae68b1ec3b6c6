import CANKit
import CarIntents
import CarplayClient
import CarplayJSON
import CarplayProtocol
import CarplayText

/// What a key press asks the car to do: an intent as the verbs send it, and the values
/// the state should then show (the "wanted" side of the cabin view). In panel mode the
/// same targets are the driver's own change instead (`asDriver`: SetVehicleState, routed
/// by `DashFeeds.send`); pending/confirmed marks work unchanged.
package struct DashRequest: Sendable, Equatable {
    package var intent: IntentName
    package var parameters: [String: JSONValue]
    /// Property key -> the value the vehicle should report once it took the command.
    package var targets: [String: JSONValue]
    /// The driver does it on the car's panel (io.carplayd.Simulator.SetVehicleState).
    package var asDriver = false
}

/// Who the dash's keys act as: the voice assistant (intents to the daemon, the default)
/// or the driver at the car's own panel (a simulated vehicle only).
package enum DashMode: Sendable, Equatable {
    case intents, panel
}

/// How a request ended, as the daemon said.
package enum DashRequestResult: Sendable, Equatable {
    /// Confirmed by the vehicle: the sentence the verbs print, and the state afterwards.
    case confirmed(sentence: String, state: [String: JSONValue])
    case failed(reason: String)
}

/// A value asked for and not (yet) shown by the vehicle.
package struct DashWanted: Sendable, Equatable {
    package enum Phase: Sendable, Equatable {
        case pending
        case failed(String)
    }
    /// Who asked: the dash's own request (its number), or a command the daemon announced
    /// on the Monitor stream (its id) -- another client's intent, or this dash's seen there.
    package enum Origin: Sendable, Equatable {
        case request(Int)
        case command(Int)
    }
    package var target: JSONValue
    package var phase: Phase
    package var origin: Origin
    package var since: Double
}

package enum DashPane: Sendable, Equatable {
    case cabin, frames
}

/// The line above the key hints: the last thing that happened.
package struct DashNote: Sendable, Equatable {
    package enum Kind: Sendable, Equatable { case info, pending, confirmed, failed }
    package var text: String
    package var kind: Kind
}

/// The dash's whole state. Updated only by the pure functions below (Monitor and GetState
/// replies, request outcomes, time) and by `DashKeys` (key presses), so the tests drive
/// it without a terminal or a daemon; `DashRenderer` draws it.
package struct DashModel: Sendable {
    package var vehicle: DashVehicle
    /// The DBC of `--dbc`, to decode the selected frame's signals.
    package var database: DBCDatabase?
    package var values: [String: JSONValue] = [:]
    /// Each property key's VSS paths (io.carplayd.VSS.Describe), for the frame detail.
    package var vssPaths: [String: [String]] = [:]
    /// When each key last changed by a Monitor reply (GetState does not overwrite them
    /// for a moment: its reading can be older than the stream's).
    package var streamedAt: [String: Double] = [:]
    package var reachable: Bool?
    package var bus: BusStatus?
    /// Why the daemon cannot be read right now, if it cannot.
    package var connectionProblem: String?
    package var wanted: [String: DashWanted] = [:]
    /// Commands of other clients the dash marked pending, by id: the keys it marked.
    package var commandsShown: [Int: [String]] = [:]
    package var frames = DashFrameTable()
    package var pane: DashPane = .cabin
    package var mode: DashMode = .intents
    package var zoneIndex = 0
    /// Index into `vehicle.selectableSeats`.
    package var seatIndex = 0
    package var frameIndex = 0
    package var showSignals = false
    package var showHelp = false
    package var note: DashNote?
    package var nextRequest = 1
    package var quit = false

    /// A failed mark stays this long unless the value changes first.
    package static let failedMarkSeconds = 8.0
    /// GetState leaves a key alone this long after the stream changed it.
    package static let streamPrecedenceSeconds = 1.5

    package init(vehicle: DashVehicle, database: DBCDatabase? = nil) {
        self.vehicle = vehicle
        self.database = database
    }

    // MARK: - From the daemon

    /// A GetState reply: reachability, the bus, and every value the stream has not just set.
    package mutating func apply(state reply: GetStateReply, now: Double) {
        connectionProblem = nil
        reachable = reply.reachable
        bus = reply.bus
        for (key, value) in reply.state {
            if let streamed = streamedAt[key], now - streamed < Self.streamPrecedenceSeconds { continue }
            set(key, value)
        }
        expire(now: now)
    }

    /// A Monitor reply: the changed keys' values and the frame that changed them, or a
    /// command in flight.
    package mutating func apply(monitor reply: MonitorReply, now: Double) {
        connectionProblem = nil
        if let command = reply.command {
            apply(command: command, now: now)
            return
        }
        for (key, value) in reply.state {
            set(key, value)
            streamedAt[key] = now
        }
        frames.record(line: reply.frame ?? "", keys: reply.keys)
    }

    /// A GetBusTraffic reply: what the bus carried, for the frame pane.
    package mutating func apply(traffic reply: GetBusTrafficReply) {
        frames.apply(traffic: reply)
    }

    /// A command the daemon sent for an intent (any client's): its targets pending, then
    /// cleared when confirmed (the status already shows them) or marked failed. A key the
    /// dash's own request already waits for stays the request's: its outcome says more.
    package mutating func apply(command: MonitorReply.Command, now: Double) {
        let id = command.id
        let targets = command.targets
        let intent = command.intent?.rawValue ?? "a command"
        func isOwn(_ key: String) -> Bool {
            if let wish = wanted[key], case .request = wish.origin, wish.phase == .pending { return true }
            return false
        }
        switch command.status {
        case .pending:
            let foreign = targets.filter { key, target in !isOwn(key) && !(values[key].map { sameValue($0, target) } ?? false) }
            guard !foreign.isEmpty else { return }
            for (key, target) in foreign { wanted[key] = DashWanted(target: target, phase: .pending, origin: .command(id), since: now) }
            commandsShown[id] = Array(foreign.keys)
            note = DashNote(text: "… \(intent): " + Self.assignments(foreign) + ", waiting for the vehicle", kind: .pending)
        case .confirmed:
            // The status frames showed the targets already (which cleared their marks).
            guard let keys = commandsShown.removeValue(forKey: id) else { return }
            for key in keys where wanted[key]?.origin == .command(id) { wanted[key] = nil }
            note = DashNote(text: "✓ \(intent): " + Self.assignments(targets.filter { keys.contains($0.key) }) + " confirmed", kind: .confirmed)
        case .failed:
            guard let keys = commandsShown.removeValue(forKey: id) else { return }
            let reason = command.detail ?? command.reason ?? "failed"
            for key in keys where wanted[key]?.origin == .command(id) {
                wanted[key]?.phase = .failed(reason)
                wanted[key]?.since = now
            }
            note = DashNote(text: "✗ \(intent): " + reason, kind: .failed)
        case .appliedLate:
            // The status already shows the values; the note says they came late.
            let detail = command.detail.map { " (\($0))" } ?? ""
            note = DashNote(text: "! \(intent): " + Self.assignments(targets) + " applied late" + detail, kind: .failed)
        }
    }

    /// The daemon could not be read (the stream broke, GetState failed).
    package mutating func lost(_ reason: String) {
        connectionProblem = reason
        reachable = nil
        // A command's outcome may be lost with the stream: its marks would never clear.
        for (key, wish) in wanted { if case .command = wish.origin { wanted[key] = nil } }
        commandsShown = [:]
    }

    /// A new value settles what was wanted of its key: reached, or overtaken.
    private mutating func set(_ key: String, _ value: JSONValue) {
        let old = values[key]
        values[key] = value
        guard let wish = wanted[key] else { return }
        if sameValue(wish.target, value) {
            wanted[key] = nil
        } else if case .failed = wish.phase, let old, !sameValue(old, value) {
            wanted[key] = nil
        }
    }

    // MARK: - Requests

    /// A request is on its way: its targets are pending. Returns its number for `finish`.
    package mutating func begin(_ request: DashRequest, now: Double) -> Int {
        let number = nextRequest
        nextRequest += 1
        for (key, target) in request.targets {
            wanted[key] = DashWanted(target: target, phase: .pending, origin: .request(number), since: now)
        }
        note =
            request.asDriver
            ? DashNote(text: "… the driver sets " + Self.assignments(request.targets), kind: .pending)
            : DashNote(text: "… \(request.intent.rawValue) sent, waiting for the vehicle", kind: .pending)
        return number
    }

    /// `climate.temperature.left=19`, keys in order.
    package static func assignments(_ values: [String: JSONValue]) -> String {
        values.keys.sorted().map { "\($0)=\(readable(values[$0]!))" }.joined(separator: " ")
    }

    /// The daemon answered request `number`.
    package mutating func finish(_ number: Int, _ result: DashRequestResult, now: Double) {
        switch result {
        case let .confirmed(sentence, state):
            for (key, value) in state where streamedAt[key].map({ now - $0 >= Self.streamPrecedenceSeconds }) ?? true {
                set(key, value)
            }
            // The vehicle confirmed: what is still marked is shown by the next status.
            for (key, wish) in wanted where wish.origin == .request(number) { wanted[key] = nil }
            note = DashNote(text: "✓ " + sentence, kind: .confirmed)
        case let .failed(reason):
            for (key, wish) in wanted where wish.origin == .request(number) {
                wanted[key] = DashWanted(target: wish.target, phase: .failed(reason), origin: wish.origin, since: now)
            }
            note = DashNote(text: "✗ " + reason, kind: .failed)
        }
    }

    /// Time passes: failed marks fade.
    package mutating func expire(now: Double) {
        for (key, wish) in wanted {
            if case .failed = wish.phase, now - wish.since >= Self.failedMarkSeconds { wanted[key] = nil }
        }
    }

    // MARK: - Reading

    /// What the dash works from for a relative change: the pending target, else the value.
    package func wantedOrActual(_ key: String) -> JSONValue? {
        if let wish = wanted[key], wish.phase == .pending { return wish.target }
        return values[key]
    }

    package var selectedZone: DashVehicle.Zone? {
        vehicle.zones.isEmpty ? nil : vehicle.zones[min(zoneIndex, vehicle.zones.count - 1)]
    }

    package var selectedSeat: DashVehicle.Seat? {
        let seats = vehicle.selectableSeats
        return seats.isEmpty ? nil : seats[min(seatIndex, seats.count - 1)]
    }
}

/// Numbers compare by value (21 and 21.0 are the same temperature), the rest exactly.
package func sameValue(_ a: JSONValue, _ b: JSONValue) -> Bool {
    if let x = a.doubleValue, let y = b.doubleValue { return abs(x - y) < 1e-9 }
    return a == b
}
