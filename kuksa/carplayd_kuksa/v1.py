"""kuksa.val.v1.VAL in front of carplayd's io.carplayd.VSS: what kuksa-client 0.6's
VSSClient.get_current_values, set_target_values and its CLI use.

Get answers values (from Get) and metadata (from Describe) for paths, branches or
wildcards, with per-entry errors as the databroker gives them (404 not found, 400 bad
pattern, 403 forbidden). Set takes actuator targets only and calls Actuate: it answers
once the car confirmed every target; a path or value carplayd-kuksa or carplayd refuses
comes back as a per-entry error as the databroker's Set gives it, every other failure
(the car rejected, did not confirm, is unreachable, ...) as the call's gRPC status
(errors.TABLE). Nothing is actuated when one entry is refused. Subscribe streams Monitor.
carplayd-kuksa keeps no actuator targets: the target view answers an error that says to
read the value (an actuation returns only when the car has it).
"""

from . import paths
from . import values
from .errors import KuksaError
from .rpc import changes, stream, unary



def make_servicer(stubs, backend, access, server_info):
    base = stubs.v1_grpc.VALServicer
    pb = stubs.v1
    types = stubs.v1_types
    F = types.Field
    V = types.View

    def wanted_fields(view, fields):
        """The set of Field names a request asks for (the databroker's combine_view_and_fields)."""
        combined = {F.Name(field) for field in fields if field in F.values()}
        name = V.Name(view) if view in V.values() else None
        if name is None:
            raise KuksaError("BadRequest", reason="Invalid View (id: %d)" % view)
        if name == "VIEW_UNSPECIFIED" and not combined:
            combined |= {"FIELD_PATH", "FIELD_VALUE"}
        elif name == "VIEW_CURRENT_VALUE":
            combined |= {"FIELD_PATH", "FIELD_VALUE"}
        elif name == "VIEW_TARGET_VALUE":
            combined |= {"FIELD_PATH", "FIELD_ACTUATOR_TARGET"}
        elif name == "VIEW_METADATA":
            combined |= {"FIELD_PATH", "FIELD_METADATA"}
        elif name == "VIEW_ALL":
            combined |= {"FIELD_PATH", "FIELD_VALUE", "FIELD_METADATA"}  # no targets kept: none to show
        if "FIELD_UNSPECIFIED" in combined:
            combined |= {"FIELD_PATH", "FIELD_VALUE", "FIELD_METADATA"}
        return combined

    def metadata_members(fields):
        if "FIELD_METADATA" in fields:
            return None
        members = set()
        for field in fields:
            members.update(values.V1_METADATA_FIELDS.get(field, ()))
        return members

    def entry_error(path, error):
        code, reason = error.v1
        return types.DataEntryError(path=path, error=types.Error(code=code, reason=reason, message=error.message))

    def data_entry(catalog, path, fields, got):
        entry = types.DataEntry(path=path)
        signal = catalog.by_path[path]
        if "FIELD_VALUE" in fields and got.get(path) is not None:
            entry.value.CopyFrom(values.v1_datapoint(stubs, path, signal["datatype"], got[path]))
        members = metadata_members(fields)
        if members is None or members:
            entry.metadata.CopyFrom(values.v1_metadata(stubs, signal, members))
        return entry

    def select(catalog, permissions, requests, errors):
        """[(path, fields)] for the requests' patterns; per-entry errors appended to errors
        (KuksaErrors); a request the whole call refuses raises."""
        chosen = []
        for request in requests:
            pattern = request.path
            too_long = paths.length_error(pattern)
            if too_long is not None:
                errors.append((pattern, too_long))
                continue
            if not paths.valid(pattern):
                errors.append((pattern, KuksaError("BadRequest", reason="Bad Wildcard Pattern Request: %r" % pattern)))
                continue
            fields = wanted_fields(request.view, request.fields)
            if "FIELD_ACTUATOR_TARGET" in fields:
                raise KuksaError("NoTargets", path=pattern)
            matched = paths.select(pattern, [signal["path"] for signal in catalog.signals])
            if not matched:
                errors.append((pattern, KuksaError("NoSuchSignal", path=pattern)))
                continue
            denied = [path for path in matched if not permissions.may_read(path)]
            if denied:
                errors.append((pattern, KuksaError("PermissionDenied", action="read", path=denied[0])))
                continue
            chosen.extend((path, fields) for path in matched)
        return chosen

    class VALv1(base):
        @unary
        def Get(self, request, context):
            permissions = access.permissions(context)
            if not request.entries:
                raise KuksaError("BadRequest", reason="No datapoints requested")
            catalog = backend.catalog()
            failed = []
            chosen = select(catalog, permissions, request.entries, failed)
            got = {}
            if any("FIELD_VALUE" in fields for _, fields in chosen):
                got, _ = backend.get(sorted({path for path, fields in chosen if "FIELD_VALUE" in fields}))
            response = pb.GetResponse(entries=[data_entry(catalog, path, fields, got) for path, fields in chosen],
                                      errors=[entry_error(path, error) for path, error in failed])
            if failed:
                response.error.CopyFrom(response.errors[0].error)
            return response

        @unary
        def Set(self, request, context):
            permissions = access.permissions(context)
            catalog = backend.catalog()
            failed = []
            targets = {}
            for update in request.updates:
                if not update.HasField("entry"):
                    raise KuksaError("BadRequest", reason="Path is required")
                entry = update.entry
                path = entry.path
                fields = {F.Name(field) for field in update.fields if field in F.values()}
                try:
                    if "FIELD_VALUE" in fields or entry.HasField("value"):
                        raise KuksaError("NotAValue", path=path)
                    if fields & {"FIELD_METADATA", "FIELD_METADATA_DATA_TYPE", "FIELD_METADATA_DESCRIPTION",
                                 "FIELD_METADATA_ENTRY_TYPE", "FIELD_METADATA_UNIT",
                                 "FIELD_METADATA_VALUE_RESTRICTION"}:
                        raise KuksaError("BadRequest", reason="%s: the metadata is carplayd's and VSS's; it cannot be set" % path)
                    if not entry.HasField("actuator_target"):
                        raise KuksaError("NoValue", path=path)
                    signal = catalog.signal(path)
                    if signal["entryType"] != "actuator":
                        # The databroker answers this as the call's status, not per entry.
                        raise KuksaError("NotActuatable", path=path,
                                         reason="Non-actuators have no target value: this car's profile only reads it")
                    permissions.check("actuate", path)
                    targets[path] = values.from_typed(path, signal["datatype"], entry.actuator_target, "value")
                except KuksaError as error:
                    if not error.per_entry():
                        raise
                    failed.append((path, error))
            if not failed and not targets:
                raise KuksaError("BadRequest", reason="No updates given")
            if not failed:
                try:
                    backend.actuate(targets, timeout=context.time_remaining())
                except KuksaError as error:
                    if not error.per_entry():
                        raise
                    failed.append((error.path or next(iter(targets)), error))
            response = pb.SetResponse(errors=[entry_error(path, error) for path, error in failed])
            if failed:
                response.error.CopyFrom(response.errors[0].error)
            return response

        @stream
        def Subscribe(self, request, context):
            permissions = access.permissions(context)
            if not request.entries:
                raise KuksaError("BadRequest", reason="Subscription request must contain at least one entry.")
            catalog = backend.catalog()
            failed = []
            chosen = select(catalog, permissions, request.entries, failed)
            if failed:
                raise failed[0][1]
            fields_of = {}
            for path, fields in chosen:
                fields_of.setdefault(path, set()).update(fields)
            wanted = list(fields_of)
            for first, changed in changes(backend, context, wanted):
                updates = []
                for path in wanted:
                    fields = fields_of[path]
                    if not first and path not in changed:
                        continue
                    shown = fields if first else fields - {"FIELD_METADATA"}
                    if not first and "FIELD_VALUE" not in shown:
                        continue
                    entry = data_entry(catalog, path, shown if first else shown & {"FIELD_PATH", "FIELD_VALUE"}, changed)
                    updates.append(pb.EntryUpdate(entry=entry, fields=[F.Value(name) for name in sorted(shown)
                                                                        if name in ("FIELD_VALUE", "FIELD_METADATA")]))
                if updates:
                    yield pb.SubscribeResponse(updates=updates)

        @unary
        def GetServerInfo(self, request, context):
            access.permissions(context)
            return pb.GetServerInfoResponse(name=server_info["name"], version=server_info["version"])

    return VALv1()
