"""carplayd's io.carplayd.VSS over its Varlink socket, with the `varlink` package.

One connection per call (carplayd serves many; a call blocks its connection until the
reply), a Monitor on a connection of its own that the caller can close to end it.
Every Varlink error becomes a KuksaError through errors.from_varlink; a socket that
cannot be reached, CarplaydUnreachable.
"""

import logging
import socket
import threading
import time

import varlink

from . import errors
from .errors import KuksaError

log = logging.getLogger("carplayd-kuksa")
INTERFACE = "io.carplayd.VSS"
# How long Describe's answer is reused before it is asked again: carplayd's profile can
# change on a reload (SIGHUP), and an actuation or read checks types against it.
CATALOG_MAX_AGE = 2.0


class Catalog:
    """Describe's answer: the VSS release and the signals the car binds, by path, each
    with a stable numeric id (its position in path order, from 1) for kuksa.val.v2's
    SignalID.id."""

    def __init__(self, release, signals):
        self.release = release
        self.signals = sorted(signals, key=lambda signal: signal["path"])
        self.by_path = {signal["path"]: signal for signal in self.signals}
        self.by_id = {index + 1: signal for index, signal in enumerate(self.signals)}
        self.ids = {signal["path"]: index + 1 for index, signal in enumerate(self.signals)}

    def signal(self, path):
        """The signal at path; KuksaError NoSuchSignal when the car binds none there."""
        found = self.by_path.get(path)
        if found is None:
            raise KuksaError("NoSuchSignal", path=path)
        return found


class Subscription:
    """A Monitor call held open: iterate for replies' values; close() from any thread ends
    the iteration."""

    def __init__(self, backend, connection, replies):
        self._backend = backend
        self._connection = connection
        self._replies = replies
        self._closed = threading.Event()

    def __iter__(self):
        try:
            for reply in self._replies:
                yield (reply or {}).get("values", {})
        except varlink.VarlinkError as error:
            if not self._closed.is_set():
                raise self._backend.translate(error)
        except (OSError, ValueError) as error:
            if not self._closed.is_set():
                raise KuksaError("CarplaydUnreachable", socket=self._backend.socket_path,
                                 reason="the Monitor call ended: %s" % (error or type(error).__name__))
        if not self._closed.is_set():
            raise KuksaError("CarplaydUnreachable", socket=self._backend.socket_path, reason="the Monitor call ended")

    def close(self):
        self._closed.set()
        try:
            self._connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._connection.close()


class Carplayd:
    def __init__(self, socket_path, timeout=60.0):
        self.socket_path = socket_path
        self.timeout = timeout
        self.client = varlink.Client(address="unix:" + socket_path)
        self._lock = threading.Lock()
        self._catalog = None
        self._catalog_at = 0.0

    # ------------------------------------------------------------------ plumbing
    def translate(self, error):
        name = error.error()
        if name in ("org.varlink.service.InterfaceNotFound", "org.varlink.service.MethodNotFound"):
            return KuksaError("CarplaydTooOld", socket=self.socket_path, reason=name.rsplit(".", 1)[-1])
        return errors.from_varlink(name, error.parameters())

    def _connect(self, timeout):
        try:
            connection = self.client.open_connection()
        except OSError as error:
            raise KuksaError("CarplaydUnreachable", socket=self.socket_path, reason=error.strerror or str(error))
        connection.settimeout(timeout)
        return connection

    def _open(self, connection):
        try:
            return self.client.open(INTERFACE, namespaced=False, connection=connection)
        except varlink.VarlinkError as error:
            raise self.translate(error)
        except varlink.InterfaceNotFound:
            raise KuksaError("CarplaydTooOld", socket=self.socket_path, reason="InterfaceNotFound")

    def call(self, method, timeout=None, **parameters):
        """One call on a connection of its own; the reply's parameters."""
        connection = self._connect(self.timeout if timeout is None else timeout)
        try:
            service = self._open(connection)
            return getattr(service, method)(**parameters)
        except varlink.VarlinkError as error:
            raise self.translate(error)
        except socket.timeout:
            raise KuksaError("CarplaydUnreachable", socket=self.socket_path,
                             reason="no reply to %s within %.0f s" % (method, connection.gettimeout()))
        except (OSError, ConnectionError) as error:
            raise KuksaError("CarplaydUnreachable", socket=self.socket_path,
                             reason="%s: %s" % (method, error.strerror or error or type(error).__name__))
        finally:
            connection.close()

    # ------------------------------------------------------------------ io.carplayd.VSS
    def describe(self):
        reply = self.call("Describe")
        signals = reply.get("signals")
        if not isinstance(signals, list):
            raise KuksaError("CarplaydProtocol", reason="Describe without signals")
        for signal in signals:
            if not isinstance(signal, dict) or not isinstance(signal.get("path"), str) \
                    or not isinstance(signal.get("datatype"), str):
                raise KuksaError("CarplaydProtocol", reason="a Describe signal without path or datatype: %r" % (signal,))
        catalog = Catalog(reply.get("release"), signals)
        with self._lock:
            self._catalog, self._catalog_at = catalog, time.monotonic()
        return catalog

    def catalog(self):
        """Describe's answer, asked again when older than CATALOG_MAX_AGE seconds."""
        with self._lock:
            if self._catalog is not None and time.monotonic() - self._catalog_at < CATALOG_MAX_AGE:
                return self._catalog
        return self.describe()

    def get(self, paths=None):
        """(values by path, reachable)."""
        parameters = {} if paths is None else {"paths": list(paths)}
        reply = self.call("Get", **parameters)
        return reply.get("values") or {}, bool(reply.get("reachable"))

    def actuate(self, targets, timeout=None):
        """Sets the targets; returns (values the car reports, elapsed seconds) once the car
        confirmed every one. The socket waits up to timeout (the gRPC deadline) or the
        backend's timeout."""
        wait = self.timeout if timeout is None else max(0.1, min(timeout, self.timeout))
        log.info("actuate %s", targets)
        reply = self.call("Actuate", timeout=wait, targets=dict(targets))
        log.info("actuated %s: the car confirmed after %s s", sorted(targets), reply.get("elapsed"))
        reported = reply.get("values") or {}
        for path, target in targets.items():
            if path in reported and reported[path] != target:
                # carplayd resolves a target to the car's step (21.3 -> 21.5 °C) and confirms that.
                log.info("%s: target %r, the car confirmed %r (its nearest step)", path, target, reported[path])
        return reported, reply.get("elapsed")

    def monitor(self, paths=None):
        """A Subscription: the first reply has every path's current value, then one per change."""
        connection = self._connect(None)
        try:
            service = self._open(connection)
            parameters = {} if paths is None else {"paths": list(paths)}
            replies = service.Monitor(_more=True, **parameters)
        except Exception:
            connection.close()
            raise
        return Subscription(self, connection, replies)
