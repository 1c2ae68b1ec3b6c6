"""VSS path patterns as KUKSA matches them: in kuksa.val.v1 Get/Subscribe, v2
ListMetadata's root and the JWT scopes.

A pattern without `*` matches that path and everything below it (a branch); `*` matches
exactly one level, `**` any number of levels (zero or more). The databroker's own rules
(databroker/src/glob.rs): "Vehicle.Cabin" matches Vehicle.Cabin.HVAC.IsAirConditioningActive,
"Vehicle.*.IsOpen" does not match Vehicle.Body.Trunk.Rear.IsOpen.
"""

import re

from .errors import KuksaError

# The databroker's limit on a requested path's length.
MAX_REQUEST_PATH_LENGTH = 1000

_SEGMENT = re.compile(r"^(\*\*|\*|[^.*\s:]+)$")


def valid(pattern):
    """True when pattern is a dot-separated VSS path or pattern (no empty level, no partial
    wildcard such as "Veh*")."""
    if not pattern:
        return False
    return all(_SEGMENT.match(part) for part in pattern.split("."))


def _match(parts, path):
    if not parts:
        return not path
    head, rest = parts[0], parts[1:]
    if head == "**":
        return any(_match(rest, path[i:]) for i in range(len(path) + 1))
    if not path:
        return False
    if head == "*" or head == path[0]:
        return _match(rest, path[1:])
    return False


def matches(pattern, path):
    """True when the VSS path lies under (or is) what pattern names."""
    parts = pattern.split(".")
    if "*" not in pattern:
        parts = parts + ["**"]
    return _match(parts, path.split("."))


def select(pattern, paths):
    """The paths pattern matches, in their order."""
    return [path for path in paths if matches(pattern, path)]


def length_error(path):
    """The databroker's error for a path longer than it takes, or None."""
    if len(path) > MAX_REQUEST_PATH_LENGTH:
        return KuksaError("BadRequest", reason="The provided path is too long")
    return None


def check_length(path):
    error = length_error(path)
    if error is not None:
        raise error
