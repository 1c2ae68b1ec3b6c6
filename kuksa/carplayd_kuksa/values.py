"""Values between VSS datatypes (carplayd's JSON: numbers, booleans, strings) and KUKSA's
protobuf: v2 `Value` / `Datapoint`, v1 `Datapoint`, and each API's `Metadata`.

The protobuf field follows the VSS datatype as the databroker's does (its broker.rs
`validate_value`): int8/16/32 travel as int32, uint8/16/32 as uint32, float as float,
double as double; an actuation must use that field (WrongType otherwise) and fit the
datatype's own range (OutOfBoundsType). Min, max and allowed values are carplayd's to
check: it knows the car's limits, which may be narrower than VSS's.
"""

import math
import struct
import time

from .errors import KuksaError

# VSS datatype -> (protobuf oneof field, Python type, range of the datatype or None)
SCALARS = {
    "boolean": ("bool", bool, None),
    "string": ("string", str, None),
    "int8": ("int32", int, (-2 ** 7, 2 ** 7 - 1)),
    "int16": ("int32", int, (-2 ** 15, 2 ** 15 - 1)),
    "int32": ("int32", int, (-2 ** 31, 2 ** 31 - 1)),
    "int64": ("int64", int, (-2 ** 63, 2 ** 63 - 1)),
    "uint8": ("uint32", int, (0, 2 ** 8 - 1)),
    "uint16": ("uint32", int, (0, 2 ** 16 - 1)),
    "uint32": ("uint32", int, (0, 2 ** 32 - 1)),
    "uint64": ("uint64", int, (0, 2 ** 64 - 1)),
    "float": ("float", float, None),
    "double": ("double", float, None),
}
ARRAY_FIELDS = {"string": "string_array", "bool": "bool_array", "int32": "int32_array", "int64": "int64_array",
                "uint32": "uint32_array", "uint64": "uint64_array", "float": "float_array", "double": "double_array"}

# VSS datatype -> the DataType enum's name (same numbers in v1 and v2)
DATA_TYPES = {"string": "DATA_TYPE_STRING", "boolean": "DATA_TYPE_BOOLEAN", "int8": "DATA_TYPE_INT8",
              "int16": "DATA_TYPE_INT16", "int32": "DATA_TYPE_INT32", "int64": "DATA_TYPE_INT64",
              "uint8": "DATA_TYPE_UINT8", "uint16": "DATA_TYPE_UINT16", "uint32": "DATA_TYPE_UINT32",
              "uint64": "DATA_TYPE_UINT64", "float": "DATA_TYPE_FLOAT", "double": "DATA_TYPE_DOUBLE",
              "string[]": "DATA_TYPE_STRING_ARRAY", "boolean[]": "DATA_TYPE_BOOLEAN_ARRAY",
              "int8[]": "DATA_TYPE_INT8_ARRAY", "int16[]": "DATA_TYPE_INT16_ARRAY", "int32[]": "DATA_TYPE_INT32_ARRAY",
              "int64[]": "DATA_TYPE_INT64_ARRAY", "uint8[]": "DATA_TYPE_UINT8_ARRAY",
              "uint16[]": "DATA_TYPE_UINT16_ARRAY", "uint32[]": "DATA_TYPE_UINT32_ARRAY",
              "uint64[]": "DATA_TYPE_UINT64_ARRAY", "float[]": "DATA_TYPE_FLOAT_ARRAY",
              "double[]": "DATA_TYPE_DOUBLE_ARRAY"}



# A numeric field's ValueRestriction branch and how its bounds are written.
RESTRICTIONS = {
    "int32": ("signed", int), "int64": ("signed", int),
    "uint32": ("unsigned", int), "uint64": ("unsigned", int),
    "float": ("floating_point", float), "double": ("floating_point", float),
}

def scalar(datatype):
    """(field, Python type, range, is_array) of a VSS datatype; KuksaError for one
    carplayd-kuksa does not know."""
    array = datatype.endswith("[]")
    base = datatype[:-2] if array else datatype
    if base not in SCALARS:
        raise KuksaError("CarplaydProtocol", reason="the datatype %r, which carplayd-kuksa does not know" % datatype)
    field, kind, bounds = SCALARS[base]
    return field, kind, bounds, array


def float32(value):
    """The shortest decimal that reads back as the same 32-bit float: 21.3 sent as a
    protobuf float arrives as 21.299999237060547 and goes to carplayd as 21.3."""
    if math.isnan(value) or math.isinf(value):
        return value
    single = struct.unpack("<f", struct.pack("<f", value))[0]
    for digits in range(1, 10):
        text = "%.*g" % (digits, single)
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == single:
            return float(text)
    return single


# ---------------------------------------------------------------------- protobuf -> carplayd
def from_typed(path, datatype, holder, oneof):
    """The JSON value for carplayd of a protobuf message whose oneof `oneof` holds the value
    (a v2 Value: "typed_value"; a v1 Datapoint: "value"), checked against the datatype."""
    present = holder.WhichOneof(oneof) if holder is not None else None
    if present is None:
        raise KuksaError("NoValue", path=path)
    field, kind, bounds, array = scalar(datatype)
    expected = ARRAY_FIELDS[field] if array else field
    if present != expected:
        raise KuksaError("WrongType", path=path, expected=datatype)
    raw = getattr(holder, present)
    values = list(raw.values) if array else [raw]
    converted = []
    for value in values:
        if bounds is not None and not bounds[0] <= value <= bounds[1]:
            raise KuksaError("OutOfBoundsType", path=path, value=value, expected=datatype)
        if field == "float":
            value = float32(value)
        converted.append(value)
    return converted if array else converted[0]


# ---------------------------------------------------------------------- carplayd -> protobuf
def _checked(path, datatype, value):
    field, kind, bounds, array = scalar(datatype)
    items = value if array else [value]
    if array and not isinstance(value, list):
        raise KuksaError("CarplaydProtocol", reason="%s = %r, not a list for %s" % (path, value, datatype))
    out = []
    for item in items:
        if kind is bool:
            ok = isinstance(item, bool)
        elif kind is int:
            ok = isinstance(item, int) and not isinstance(item, bool) or (
                isinstance(item, float) and item.is_integer())
            item = int(item) if ok else item
        elif kind is float:
            ok = isinstance(item, (int, float)) and not isinstance(item, bool)
            item = float(item) if ok else item
        else:
            ok = isinstance(item, str)
        if not ok:
            raise KuksaError("CarplaydProtocol", reason="%s = %r, not a %s" % (path, item, datatype))
        out.append(item)
    return field, array, out


def fill(message, path, datatype, value):
    """Sets the typed value of a v2 Value or v1 Datapoint message from carplayd's JSON
    value (None leaves it empty: no value)."""
    if value is None:
        return message
    field, array, items = _checked(path, datatype, value)
    if array:
        getattr(message, ARRAY_FIELDS[field]).values.extend(items)
    else:
        setattr(message, field, items[0])
    return message


def timestamp(message, seconds=None):
    """Sets a google.protobuf.Timestamp to seconds since the epoch (now)."""
    seconds = time.time() if seconds is None else seconds
    message.seconds = int(seconds)
    message.nanos = int((seconds - int(seconds)) * 1e9)


def v2_datapoint(stubs, path, datatype, value, when=None):
    point = stubs.v2_types.Datapoint()
    timestamp(point.timestamp, when)
    if value is not None:
        fill(point.value, path, datatype, value)
    return point


def v1_datapoint(stubs, path, datatype, value, when=None):
    point = stubs.v1_types.Datapoint()
    timestamp(point.timestamp, when)
    fill(point, path, datatype, value)
    return point


# ---------------------------------------------------------------------- metadata
def v2_metadata(stubs, signal, ident):
    """v2 Metadata of one of carplayd's Describe signals."""
    types = stubs.v2_types
    datatype = signal["datatype"]
    meta = types.Metadata(path=signal["path"], id=ident,
                          data_type=types.DataType.Value(DATA_TYPES.get(datatype, "DATA_TYPE_UNSPECIFIED")),
                          entry_type=types.EntryType.Value("ENTRY_TYPE_ACTUATOR" if signal["entryType"] == "actuator"
                                                           else "ENTRY_TYPE_SENSOR"),
                          description=signal.get("description") or "")
    if signal.get("unit"):
        meta.unit = signal["unit"]
    if signal.get("overlay"):
        meta.comment = "carplayd's overlay (vss/carplayd.vspec): not in VSS 5.1"
    field, _, _, _ = scalar(datatype.rstrip("[]"))
    for bound, target in (("min", meta.min), ("max", meta.max)):
        if signal.get(bound) is not None:
            number = signal[bound]
            fill(target, signal["path"], datatype.rstrip("[]"),
                 int(number) if field in ("int32", "int64", "uint32", "uint64") else number)
    if signal.get("allowed"):
        fill(meta.allowed_values, signal["path"], datatype.rstrip("[]") + "[]", list(signal["allowed"]))
    return meta


V1_METADATA_FIELDS = {  # v1 Field -> the Metadata members it selects
    "FIELD_METADATA_DATA_TYPE": ("data_type",),
    "FIELD_METADATA_DESCRIPTION": ("description",),
    "FIELD_METADATA_ENTRY_TYPE": ("entry_type",),
    "FIELD_METADATA_COMMENT": ("comment",),
    "FIELD_METADATA_DEPRECATION": ("deprecation",),
    "FIELD_METADATA_UNIT": ("unit",),
    "FIELD_METADATA_VALUE_RESTRICTION": ("value_restriction",),
    "FIELD_METADATA_ACTUATOR": ("actuator",),
    "FIELD_METADATA_SENSOR": ("sensor",),
}


def v1_metadata(stubs, signal, members=None):
    """v1 Metadata of one of carplayd's Describe signals; members: the Metadata members to
    fill (None: all)."""
    types = stubs.v1_types
    datatype = signal["datatype"]
    want = (lambda name: True) if members is None else (lambda name: name in members)
    meta = types.Metadata()
    if want("data_type"):
        meta.data_type = types.DataType.Value(DATA_TYPES.get(datatype, "DATA_TYPE_UNSPECIFIED"))
    actuator = signal["entryType"] == "actuator"
    if want("entry_type"):
        meta.entry_type = types.EntryType.Value("ENTRY_TYPE_ACTUATOR" if actuator else "ENTRY_TYPE_SENSOR")
    if want("description"):
        meta.description = signal.get("description") or ""
    if want("comment") and signal.get("overlay"):
        meta.comment = "carplayd's overlay (vss/carplayd.vspec): not in VSS 5.1"
    if want("unit") and signal.get("unit"):
        meta.unit = signal["unit"]
    if actuator and want("actuator"):
        meta.actuator.SetInParent()
    if not actuator and want("sensor"):
        meta.sensor.SetInParent()
    if want("value_restriction"):
        field, _, _, _ = scalar(datatype.rstrip("[]"))
        lo, hi, allowed = signal.get("min"), signal.get("max"), signal.get("allowed")
        if field == "string" and allowed:
            meta.value_restriction.string.allowed_values.extend(allowed)
        elif field in RESTRICTIONS and (lo is not None or hi is not None or allowed):
            branch, number = RESTRICTIONS[field]
            target = getattr(meta.value_restriction, branch)
            target.SetInParent()
            if lo is not None:
                target.min = number(lo)
            if hi is not None:
                target.max = number(hi)
            target.allowed_values.extend(number(a) for a in allowed or [])
    return meta
