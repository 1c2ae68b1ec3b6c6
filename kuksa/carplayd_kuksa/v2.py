"""kuksa.val.v2.VAL in front of carplayd's io.carplayd.VSS.

GetValue / GetValues answer from Get; Subscribe (and SubscribeById) stream Monitor: the
first response holds every subscribed signal's value (none where the car has not sent
it yet), each later one what changed. ListMetadata lists Describe's signals -- what this
car's profile binds. Actuate and BatchActuate call Actuate and answer OK only when
carplayd replied, which it does once the car's status frames show every target; any
refusal or failure is the status errors.TABLE gives it. The provider side of the API
(PublishValue, OpenProviderStream) and ActuateStream answer UNIMPLEMENTED: carplayd is
the only provider, fed by the car.
"""

from . import paths
from . import values
from .errors import KuksaError
from .rpc import changes, stream, unary, unimplemented

MAX_BUFFER_SIZE = 1000  # the databroker's limit for Subscribe's buffer_size


def make_servicer(stubs, backend, access, server_info):
    base = stubs.v2_grpc.VALServicer
    pb = stubs.v2

    class VALv2(base):
        # ------------------------------------------------------------ helpers
        def _path_of(self, catalog, signal_id):
            """The VSS path a SignalID names (path or id)."""
            if signal_id is None:
                raise KuksaError("BadRequest", reason="No SignalId provided")
            which = signal_id.WhichOneof("signal")
            if which == "path":
                paths.check_length(signal_id.path)
                catalog.signal(signal_id.path)
                return signal_id.path
            if which == "id":
                signal = catalog.by_id.get(signal_id.id)
                if signal is None:
                    raise KuksaError("NoSuchSignal", path="id %d" % signal_id.id)
                return signal["path"]
            raise KuksaError("BadRequest", reason="SignalID contains neither path or id")

        def _datapoints(self, catalog, wanted, got):
            return [values.v2_datapoint(stubs, path, catalog.by_path[path]["datatype"], got.get(path))
                    if got.get(path) is not None else stubs.v2_types.Datapoint()
                    for path in wanted]

        def _targets(self, catalog, permissions, requests):
            """{path: JSON value} of ActuateRequests, checked: path known, caller may
            actuate it, value of the signal's datatype."""
            targets = {}
            for request in requests:
                path = self._path_of(catalog, request.signal_id if request.HasField("signal_id") else None)
                permissions.check("actuate", path)
                if not request.HasField("value"):
                    raise KuksaError("NoValue", path=path)
                if path in targets:
                    raise KuksaError("BadRequest", reason="%s is actuated twice in one request" % path)
                targets[path] = values.from_typed(path, catalog.signal(path)["datatype"], request.value, "typed_value")
            return targets

        def _actuate(self, context, targets):
            backend.actuate(targets, timeout=context.time_remaining())

        # ------------------------------------------------------------ reads
        @unary
        def GetValue(self, request, context):
            permissions = access.permissions(context)
            catalog = backend.catalog()
            path = self._path_of(catalog, request.signal_id if request.HasField("signal_id") else None)
            permissions.check("read", path)
            got, _ = backend.get([path])
            return pb.GetValueResponse(data_point=self._datapoints(catalog, [path], got)[0])

        @unary
        def GetValues(self, request, context):
            permissions = access.permissions(context)
            if not request.signal_ids:
                raise KuksaError("BadRequest", reason="No signal_ids requested")
            catalog = backend.catalog()
            wanted = [self._path_of(catalog, signal_id) for signal_id in request.signal_ids]
            for path in wanted:
                permissions.check("read", path)
            got, _ = backend.get(sorted(set(wanted)))
            return pb.GetValuesResponse(data_points=self._datapoints(catalog, wanted, got))

        def _subscribe(self, request, context, wanted, key):
            if request.buffer_size > MAX_BUFFER_SIZE:
                raise KuksaError("BadRequest", reason="Subscription buffer_size max allowed value is %d" % MAX_BUFFER_SIZE)
            catalog = backend.catalog()
            lasting = request.filter.duration_ms if request.HasField("filter") else 0
            for first, changed in changes(backend, context, wanted, lasting):
                shown = wanted if first else [path for path in wanted if path in changed]
                if not shown:
                    continue
                points = self._datapoints(catalog, shown, changed)
                yield {key(path): point for path, point in zip(shown, points)}

        @stream
        def Subscribe(self, request, context):
            permissions = access.permissions(context)
            if not request.signal_paths:
                raise KuksaError("BadRequest", reason="No valid id or path specified")
            catalog = backend.catalog()
            wanted = []
            for path in request.signal_paths:
                paths.check_length(path)
                catalog.signal(path)
                permissions.check("read", path)
                if path not in wanted:
                    wanted.append(path)
            for entries in self._subscribe(request, context, wanted, lambda path: path):
                yield pb.SubscribeResponse(entries=entries)

        @stream
        def SubscribeById(self, request, context):
            permissions = access.permissions(context)
            if not request.signal_ids:
                raise KuksaError("BadRequest", reason="No valid id or path specified")
            catalog = backend.catalog()
            wanted = []
            for ident in request.signal_ids:
                signal = catalog.by_id.get(ident)
                if signal is None:
                    raise KuksaError("NoSuchSignal", path="id %d" % ident)
                permissions.check("read", signal["path"])
                if signal["path"] not in wanted:
                    wanted.append(signal["path"])
            for entries in self._subscribe(request, context, wanted, lambda path: catalog.ids[path]):
                yield pb.SubscribeByIdResponse(entries=entries)

        @unary
        def ListMetadata(self, request, context):
            permissions = access.permissions(context)
            root = request.root or "**"
            if not paths.valid(root):
                raise KuksaError("BadRequest", reason="Invalid Pattern Argument: %r" % request.root)
            catalog = backend.catalog()
            found = [signal for signal in catalog.signals
                     if paths.matches(root, signal["path"]) and permissions.may_read(signal["path"])]
            if not found:
                raise KuksaError("NoSuchSignal", path=request.root or "(root)")
            return pb.ListMetadataResponse(metadata=[values.v2_metadata(stubs, signal, catalog.ids[signal["path"]])
                                                     for signal in found])

        # ------------------------------------------------------------ actuation
        @unary
        def Actuate(self, request, context):
            permissions = access.permissions(context)
            catalog = backend.catalog()
            self._actuate(context, self._targets(catalog, permissions, [request]))
            return pb.ActuateResponse()

        @unary
        def BatchActuate(self, request, context):
            permissions = access.permissions(context)
            if not request.actuate_requests:
                raise KuksaError("BadRequest", reason="No actuate_requests given")
            catalog = backend.catalog()
            self._actuate(context, self._targets(catalog, permissions, request.actuate_requests))
            return pb.BatchActuateResponse()

        @unary
        def GetServerInfo(self, request, context):
            access.permissions(context)
            return pb.GetServerInfoResponse(name=server_info["name"], version=server_info["version"],
                                            commit_hash=server_info.get("commit", ""))

        ActuateStream = unimplemented("ActuateStream", "actuate with Actuate or BatchActuate, which wait for the car")
        PublishValue = unimplemented("PublishValue", "carplayd provides the car's values; nothing else may publish")
        OpenProviderStream = unimplemented("OpenProviderStream",
                                           "carplayd is the provider of every signal it serves")

    return VALv2()
