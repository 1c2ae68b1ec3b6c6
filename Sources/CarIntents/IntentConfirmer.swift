import CarplayJSON
import VehicleKit

/// The caller's device, as SiriKit's restriction asks (Info.plist's
/// `IntentsRestrictedWhileLocked`: intents the app does not handle while the user's
/// device is locked).
public enum CallerDevice: Sendable, Hashable {
    case unlocked
    /// Locked, or its lock state cannot be known; `reason` says which and what unlocks it.
    case locked(reason: String)
}

/// SiriKit's confirm phase: may a resolved intent be handled now?
///
/// In this order:
/// 1. Not resolved (no action) -> `notResolved`.
/// 2. The intent is restricted while locked (the daemon's configuration) and the
///    caller's device is locked -> `restrictedWhileLocked`, naming what unlocks it.
///    Asked only for restricted intents (`device` may cost a D-Bus round trip).
/// 3. The CAN controller is bus-off (`busOffInterface`) -> `busOff`: nothing can be sent
///    or heard until it restarts, so the intent ends at once instead of waiting for a
///    vehicle it cannot reach.
///    Vehicle unreachable -> `vehicleUnreachable` (the read-only `GetCarLockStatus` /
///    `GetCarPowerLevelStatus` too: the state would be stale).
///    Checked before the car-lock policy because the lock state is stale then as well.
/// 4. carplayd's car-state policy: `lock.locked == true` in the state and the intent
///    named in `profile.policies.refusedWhileCarLocked` -> `carLocked`.
/// 5. Tuning satellite radio without `satelliteSubscribed` -> `notSubscribed`.
/// Otherwise nil: ready to handle. `IntentRefusal.response(for:)` is the response each
/// refusal answers with.
public enum IntentConfirmer {
    public static func confirm(
        _ resolution: IntentResolution, profile: VehicleProfile, state: VehicleState, vehicleReachable: Bool, busOffInterface: String? = nil,
        restrictedWhileLocked: Set<IntentName> = [], device: () -> CallerDevice = { .unlocked }
    ) -> IntentRefusal? {
        guard let action = resolution.action else { return .notResolved(resolution) }
        if restrictedWhileLocked.contains(resolution.intent.name), case let .locked(reason) = device() {
            return .restrictedWhileLocked(reason: reason)
        }
        // ListCars answers from the profile: the car is listed whether it talks or not.
        if let busOffInterface, action != .listCars { return .busOff(interface: busOffInterface) }
        if !vehicleReachable, action != .listCars { return .vehicleUnreachable }
        if state[.locked] == .bool(true), profile.policies.refusedWhileCarLocked.contains(resolution.intent.name.rawValue) {
            return .carLocked
        }
        if case let .set(targets) = action, targets[.radioBand] == .enumeration(RadioType.satellite.rawValue),
            profile.radio?.satelliteSubscribed == false
        {
            return .notSubscribed
        }
        return nil
    }
}
