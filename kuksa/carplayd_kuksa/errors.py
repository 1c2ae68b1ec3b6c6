"""Every failure carplayd-kuksa answers, and how: ONE table from carplayd's Varlink
errors (io.carplayd.VSS) and carplayd-kuksa's own refusals to a gRPC status, and to the
per-entry error (`DataEntryError`: code, reason) kuksa.val.v1 uses where the databroker
answers that way.

Where KUKSA's databroker has the same case its status is used (its Rust sources:
databroker/src/grpc/kuksa_val_v2/conversions.rs `ActuationError::to_tonic_status`,
broker.rs `validate_actuator_update`, kuksa_val_v1/val.rs `set` and
`convert_to_data_entry_error`): an unknown path NOT_FOUND, a sensor actuated or a value
of the wrong type or out of bounds INVALID_ARGUMENT, no provider UNAVAILABLE, a transport
failure DATA_LOSS, no or a bad token UNAUTHENTICATED, a scope that does not cover the
path PERMISSION_DENIED. The databroker has no case for a car that refuses or does not
confirm (it answers OK once it has forwarded the request); those are carplayd's.
"""

import grpc

S = grpc.StatusCode

# An ActuationFailed's `reason` (an intent response's failure reason, docs/INTENTS.md)
# -> (status, what the message says happened).
ACTUATION_FAILURES = {
    "timeout": (S.DEADLINE_EXCEEDED, "the car did not confirm the target in time"),
    "rejectedByVehicle": (S.ABORTED, "the car rejected the command"),
    "e2eError": (S.DATA_LOSS, "the car's frames failed their end-to-end check"),
    "vehicleUnreachable": (S.UNAVAILABLE, "the car is not reachable"),
    "busError": (S.UNAVAILABLE, "the CAN bus refused the command frame"),
    "busOff": (S.UNAVAILABLE, "the CAN controller is bus-off"),
    "unencodable": (S.INVALID_ARGUMENT, "the car's profile cannot encode this target"),
    "notResolved": (S.INVALID_ARGUMENT, "carplayd could not resolve the target for this car"),
    "unknownState": (S.UNAVAILABLE, "the car has not reported the state this needs"),
    "restrictedWhileLocked": (S.PERMISSION_DENIED, "refused while the caller's device is locked"),
    "carLocked": (S.FAILED_PRECONDITION, "refused while the car is locked"),
}
# Any other reason carplayd may add later: the car did not carry it out.
ACTUATION_FAILED_OTHER = (S.ABORTED, "the car did not carry out the target")

# Varlink error (short name, io.carplayd.VSS.<name>) -> (status, v1 per-entry (code,
# reason) or None, message format over the error's parameters plus "path").
TABLE = {
    "NoSuchSignal": (S.NOT_FOUND, (404, "not_found"),
                     "{path}: no such signal in this car (carplayd's Describe lists what it binds)"),
    "NotActuatable": (S.INVALID_ARGUMENT, None,
                      "Tried to set a value for a non-actuator: {path} ({reason})"),
    "InvalidValue": (S.INVALID_ARGUMENT, (400, "bad_request"), "{path}: invalid value: {reason}"),
    "InvalidParameter": (S.INVALID_ARGUMENT, (400, "bad_request"), "{parameter}: {reason}"),
    "VehicleUnavailable": (S.UNAVAILABLE, None, "the car is not available: {reason}"),
    "BusOff": (S.UNAVAILABLE, None, "the CAN controller of {interface} is bus-off"),
    "NotAuthorized": (S.PERMISSION_DENIED, None,
                      "carplayd refused carplayd-kuksa itself (uid {uid}, gid {gid}): run it as a user "
                      "carplayd allows (allow-users / allow-groups, docs/CONFIGURATION.md)"),
    "RestrictedWhileLocked": (S.PERMISSION_DENIED, None, "{intent} is refused while the device is locked: {reason}"),
    "CarLocked": (S.FAILED_PRECONDITION, None, "{intent} is refused while the car is locked"),
    # carplayd-kuksa's own refusals, before carplayd is asked
    "WrongType": (S.INVALID_ARGUMENT, (400, "type mismatch"), "Wrong type for vss_path {path}. Expected type: {expected}"),
    "OutOfBoundsType": (S.INVALID_ARGUMENT, (400, "value out of type bounds"),
                        "Out of bounds type value provided for {path}: {value} | overflow for {expected}"),
    "NoValue": (S.INVALID_ARGUMENT, (400, "bad_request"), "{path}: no value provided"),
    "BadRequest": (S.INVALID_ARGUMENT, (400, "bad_request"), "{reason}"),
    "NotAValue": (S.PERMISSION_DENIED, (403, "forbidden"),
                  "{path}: carplayd provides the car's values; only actuator targets may be set"),
    "NoTargets": (S.INVALID_ARGUMENT, (400, "bad_request"),
                  "{path}: carplayd-kuksa keeps no actuator targets: an actuation returns once the car "
                  "reports the target, so read the value"),
    "Unauthenticated": (S.UNAUTHENTICATED, (401, "unauthenticated"), "{reason}"),
    "PermissionDenied": (S.PERMISSION_DENIED, (403, "forbidden"), "Permission denied for {action} of {path}"),
    "Unimplemented": (S.UNIMPLEMENTED, None, "{reason}"),
    "CarplaydUnreachable": (S.UNAVAILABLE, None, "carplayd is not reachable at {socket}: {reason}"),
    "CarplaydTooOld": (S.UNIMPLEMENTED, None,
                       "carplayd at {socket} does not serve io.carplayd.VSS ({reason}): it needs a carplayd with VSS"),
    "CarplaydProtocol": (S.INTERNAL, None, "carplayd answered what carplayd-kuksa did not expect: {reason}"),
}


class KuksaError(Exception):
    """A failure with its place in TABLE: `name` and the parameters its message uses."""

    def __init__(self, name, **parameters):
        if name not in TABLE:
            raise KeyError("no entry %r in the errors table" % name)
        self.name = name
        self.parameters = parameters
        status, v1, template = TABLE[name]
        self.status = status
        self.v1 = v1
        try:
            self.message = template.format(**parameters)
        except (KeyError, IndexError):
            self.message = "%s %s" % (name, parameters)
        super().__init__(self.message)

    @property
    def path(self):
        return self.parameters.get("path", "")

    def per_entry(self):
        """True when kuksa.val.v1 reports this per entry (a DataEntryError) rather than
        as the call's status."""
        return self.v1 is not None


class ActuationFailed(KuksaError):
    """io.carplayd.VSS.ActuationFailed: the car did not confirm; its own status by reason."""

    def __init__(self, path, reason, detail=None):
        status, what = ACTUATION_FAILURES.get(reason, ACTUATION_FAILED_OTHER)
        self.name = "ActuationFailed"
        self.parameters = {"path": path, "reason": reason, "detail": detail}
        self.status = status
        self.v1 = None
        self.message = "%s: %s (%s%s)" % (path, what, reason, ": " + detail if detail else "")
        Exception.__init__(self, self.message)


def from_varlink(name, parameters):
    """The KuksaError for carplayd's Varlink error `name` (full or short) with its
    parameters."""
    short = name.rsplit(".", 1)[-1]
    parameters = dict(parameters or {})
    if short == "ActuationFailed":
        return ActuationFailed(parameters.get("path", "?"), parameters.get("reason", "?"), parameters.get("detail"))
    if name.startswith("io.carplayd.") and short in TABLE:
        parameters.setdefault("path", "")
        return KuksaError(short, **parameters)
    return KuksaError("CarplaydProtocol", reason="the error %s %s" % (name, parameters))


def abort(context, error):
    """Ends a gRPC call with the error's status and message (raises)."""
    context.abort(error.status, error.message)
