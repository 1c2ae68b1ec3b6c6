/// The interface description of io.carplayd.Vehicle, served verbatim by
/// org.varlink.service.GetInterfaceDescription. The canonical copy is
/// docs/io.carplayd.Vehicle.varlink; a test keeps the two identical byte for byte.
public enum VehicleInterface {
    public static let description = """
# carplayd: CarPlay-domain intents on one vehicle over CAN.
#
# Intents use SiriKit's names, parameters and enum cases; their JSON form is
# {"intent": "SetClimateSettingsInCar", "parameters": {...}} (docs/INTENTS.md).
# A change is reported as success only when the vehicle's status frames show it.
interface io.carplayd.Vehicle

# The vehicle: its profile's capabilities, as `carplayctl profile check` shows them.
method Describe() -> (vehicle: object)

# The live vehicle state from trusted status frames, whether the vehicle is
# reachable, and the CAN bus it is on.
method GetState() -> (state: object, reachable: bool, bus: object)

# SiriKit's resolve phase: how each parameter resolves against the profile and the
# live state ({"kind": "success" | "disambiguation" | "confirmationRequired" |
# "needsValue" | "notRequired" | "unsupported", ...}); ready is true when every
# parameter resolved to success or notRequired.
method Resolve(intent: string, parameters: ?object) -> (resolutions: object, ready: bool)

# SiriKit's confirm phase: resolve, then the policies (restricted while the car is
# locked, vehicle reachable, subscription). response.code is "ready" or a failure.
method Confirm(intent: string, parameters: ?object) -> (resolutions: object, response: object)

# SiriKit's handle phase: resolve and confirm again (nothing is bypassed), send the
# command frames and wait for the status frames that confirm them.
method Handle(intent: string, parameters: ?object) -> (response: object, frames: []string, state: object)

# All three phases in one call; the reply is what `carplayctl perform --simulate` prints:
# the resolution of each parameter, the response (code and intent-specific fields),
# every frame sent and received in candump -L form, and the state afterwards.
method Perform(intent: string, parameters: ?object) -> (resolutions: object, response: object, frames: []string, state: object)

# One reply per change of the live state (call with more), with the frame that caused it.
method Monitor() -> (keys: []string, state: object, frame: string)

# A parameter is missing, of the wrong type, unknown, or not valid for the intent.
error InvalidParameter (parameter: string, reason: string)

# No such intent.
error UnknownIntent (intent: string)

# The vehicle sends no status frames, or the bus is down.
error VehicleUnavailable (reason: string)

# The caller's user and groups are not allowed to use the daemon.
error NotAuthorized (uid: int, gid: int)

# The intent is refused while the car is locked (the profile's policy).
error RestrictedWhileLocked (intent: string)

"""
}
