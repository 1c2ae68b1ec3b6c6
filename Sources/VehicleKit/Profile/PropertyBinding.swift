import CANKit

/// How one state property travels over the bus: the command that changes it (nil: the
/// property is reported but this car takes no command for it) and the status signal that
/// reports it. See VehicleProfiles/README.md, "`bindings`: each property".
public struct PropertyBinding: Sendable, Hashable {
    public var command: PropertyCommand?
    /// The status signal that reports the property.
    public var status: SignalReference
    /// Status signal value <-> property value.
    public var statusValues: ValueMapping
    /// `radio.frequency` only: the unit of the signals' physical value ("kHz" or "MHz")
    /// when one signal carries every band; nil when the signal carries the property
    /// value as it is (kHz for AM, MHz otherwise). See `signalValue(frequency:band:)`.
    public var signalUnit: String?
    /// The status's validity qualifier (`status.valid`); nil: every reading is trusted.
    public var validity: StatusValidity?
    /// `command.with`: signals of the command message that a frame carrying this command
    /// sets to fixed values (an "HMI active" bit, a request-type code); idle otherwise.
    public var companions: [SignalRequest]

    public init(
        command: PropertyCommand?, status: SignalReference, statusValues: ValueMapping = ValueMapping(), signalUnit: String? = nil,
        validity: StatusValidity? = nil, companions: [SignalRequest] = []
    ) {
        self.command = command
        self.status = status
        self.statusValues = statusValues
        self.signalUnit = signalUnit
        self.validity = validity
        self.companions = companions
    }

    /// `radio.frequency`: the signal value for a frequency of `band` (in the band's unit).
    public func signalValue(frequency: Double, band: RadioBand) -> Double {
        frequency * FrequencyUnit.factor(from: band.unit, to: signalUnit ?? band.unit)
    }

    /// `radio.frequency`: the frequency (in `band`'s unit) that a signal value means.
    public func frequency(signalValue: Double, band: RadioBand) -> Double {
        let factor = FrequencyUnit.factor(from: band.unit, to: signalUnit ?? band.unit)
        // Round away binary noise (101100 kHz / 1000 stays 101.1 MHz).
        return (signalValue / factor * 1e9).rounded() / 1e9
    }
}

/// A status value is trusted only while another signal of its message (a validity bit
/// `...V`, a quality code) carries one of `valid`; otherwise the property is unreadable.
public struct StatusValidity: Sendable, Hashable {
    /// The qualifier, in the status signal's message.
    public var signal: SignalReference
    /// The qualifier's raw values that say "valid".
    public var valid: [RawValueName]

    public init(signal: SignalReference, valid: [RawValueName]) {
        self.signal = signal
        self.valid = valid
    }
}

/// A raw value of a signal as a profile names it: a choice of the DBC (or of the
/// profile's `messages.<M>.choices`), or the raw number itself.
public enum RawValueName: Sendable, Hashable, CustomStringConvertible {
    case choice(String)
    case raw(Int128)

    public var description: String {
        switch self {
        case let .choice(name): "\"\(name)\""
        case let .raw(raw): String(raw)
        }
    }
}

/// Property value <-> a signal's physical value (after the DBC's scale and offset).
public struct ValueMapping: Sendable, Hashable {
    /// Property value as text ("true", "recirculateAir", "2") -> the raw values that mean
    /// it; a command sends the first. Empty: numbers as they are, booleans 0/1.
    public var values: [String: [RawValueName]]
    /// What a raw value outside `values` reads as (status signals only), e.g. "true" for
    /// fan on = any blower level but 0; nil: such a value is no state (unreadable).
    public var otherwise: String?
    /// Raw values that are no state (a fuel gauge's "Init" and "Fault"), even where
    /// `otherwise` or the plain number would read them.
    public var invalid: [RawValueName]
    /// property = signal * factor + offset (a °F signal for a °C property, km <-> mi, ...).
    public var linear: LinearTransform?
    /// `"unit": "display"`: the signal carries the temperature in the unit the car
    /// displays (`extension.temperatureUnit`, read at run time: °F converted, °C as it is).
    public var followsDisplayUnit: Bool

    public init(
        values: [String: [RawValueName]] = [:], otherwise: String? = nil, invalid: [RawValueName] = [], linear: LinearTransform? = nil,
        followsDisplayUnit: Bool = false
    ) {
        self.values = values
        self.otherwise = otherwise
        self.invalid = invalid
        self.linear = linear
        self.followsDisplayUnit = followsDisplayUnit
    }
}

/// property = signal * factor + offset.
public struct LinearTransform: Sendable, Hashable {
    public var factor: Double
    public var offset: Double

    /// The unit conversions a profile may name with `"unit"`: from the signal's unit to
    /// the property's (°C, km).
    public static func converting(from unit: String) -> LinearTransform? {
        switch unit {
        case "celsius", "km": LinearTransform(factor: 1, offset: 0)
        case "fahrenheit": LinearTransform(factor: 5.0 / 9.0, offset: -32.0 * 5.0 / 9.0)
        case "mi": LinearTransform(factor: 1.609344, offset: 0)
        default: nil
        }
    }

    public func property(fromSignal value: Double) -> Double { value * factor + offset }
    public func signal(fromProperty value: Double) -> Double { (value - offset) / factor }
}

/// One signal of a command message set to a request value.
public struct SignalRequest: Sendable, Hashable {
    public var signal: SignalReference
    public var value: RawValueName

    public init(signal: SignalReference, value: RawValueName) {
        self.signal = signal
        self.value = value
    }
}

/// How the car takes a command for one property.
public enum PropertyCommand: Sendable, Hashable {
    /// The signal carries the target.
    case setpoint(SetpointCommand)
    /// A request held for a while, then back to idle; one request per value it sets.
    case momentary(MomentaryCommand)
    /// One button that flips the state.
    case toggle(ToggleCommand)
    /// Up/down presses until the status shows the target.
    case step(StepCommand)

    /// The command message.
    public var message: String {
        switch self {
        case let .setpoint(command): command.signal.message
        case let .momentary(command): command.message
        case let .toggle(command): command.press.signal.message
        case let .step(command): command.up.signal.message
        }
    }

    /// Frames a request is held for (1 for setpoints).
    public var holdFrames: Int {
        switch self {
        case .setpoint: 1
        case let .momentary(command): command.holdFrames
        case let .toggle(command): command.holdFrames
        case let .step(command): command.holdFrames
        }
    }

    /// The kinds, as a profile names them (`"kind": "toggle"`).
    public enum Kind: String, Sendable, CaseIterable, Comparable {
        case setpoint, momentary, toggle, step

        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    public var kind: Kind {
        switch self {
        case .setpoint: .setpoint
        case .momentary: .momentary
        case .toggle: .toggle
        case .step: .step
        }
    }
}

public struct SetpointCommand: Sendable, Hashable {
    public var signal: SignalReference
    /// Further signals of the message that carry the same value (`"signals": [...]`: a
    /// left and a right request for one set point).
    public var also: [String]
    /// What the signal carries when a frame does not change the property; nil: the
    /// signal always carries a value, so a frame repeats the property's current value.
    public var idle: Int128?
    public var values: ValueMapping

    public init(signal: SignalReference, also: [String] = [], idle: Int128?, values: ValueMapping = ValueMapping()) {
        self.signal = signal
        self.also = also
        self.idle = idle
        self.values = values
    }

    /// Every signal the value is written to, the first one first.
    public var signals: [String] { [signal.signal] + also }
}

public struct MomentaryCommand: Sendable, Hashable {
    public var message: String
    /// Property value as text ("true", "freshAir") -> the request that sets it.
    public var requests: [String: SignalRequest]
    public var holdFrames: Int

    public init(message: String, requests: [String: SignalRequest], holdFrames: Int = 1) {
        self.message = message
        self.requests = requests
        self.holdFrames = holdFrames
    }
}

public struct ToggleCommand: Sendable, Hashable {
    public var press: SignalRequest
    public var holdFrames: Int

    public init(press: SignalRequest, holdFrames: Int = 1) {
        self.press = press
        self.holdFrames = holdFrames
    }
}

public struct StepCommand: Sendable, Hashable {
    public var up: SignalRequest
    public var down: SignalRequest
    /// Property units one press moves.
    public var step: Double
    /// At most this many presses per command.
    public var maxSteps: Int
    /// How long one press may take to show in the status.
    public var stepTimeout: Duration
    public var holdFrames: Int

    public init(up: SignalRequest, down: SignalRequest, step: Double, maxSteps: Int, stepTimeout: Duration, holdFrames: Int = 1) {
        self.up = up
        self.down = down
        self.step = step
        self.maxSteps = maxSteps
        self.stepTimeout = stepTimeout
        self.holdFrames = holdFrames
    }
}

/// What the profile says about one DBC message beyond the DBC.
public struct MessageSettings: Sendable, Hashable {
    /// A status message's period, or a cyclic command message's: the profile's
    /// `cycleTimeMs`, else the DBC's GenMsgCycleTime.
    public var cycleTime: Duration?
    /// Command messages: repeated every `cycleTime` while a request is held.
    public var cyclic: Bool
    /// Raw values of command signals no binding writes, by signal name.
    public var defaults: [String: Int128]

    public init(cycleTime: Duration? = nil, cyclic: Bool = false, defaults: [String: Int128] = [:]) {
        self.cycleTime = cycleTime
        self.cyclic = cyclic
        self.defaults = defaults
    }
}
