"""The gRPC server (grpcio) and its listeners: a Unix socket by default, made like
carplayd's own (mode 0660, carplayd's socket's group), TCP only when asked for.

run(config) serves until SIGTERM or SIGINT, then stops (open Subscribe streams end),
removes its Unix sockets and returns 0. systemd: READY=1 / STOPPING=1 on $NOTIFY_SOCKET.
"""

import grp
import logging
import os
import signal
import socket
import stat
import threading
from concurrent import futures

import grpc

from . import stubs as stub_loader
from . import v1, v2
from .auth import Access
from .backend import Carplayd
from .errors import KuksaError

log = logging.getLogger("carplayd-kuksa")


class StartError(Exception):
    """A start-up failure the user can fix; the message names the option or file."""


def notify(state):
    """sd_notify without libsystemd: one datagram to $NOTIFY_SOCKET."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(state.encode())
    except OSError as error:
        log.warning("sd_notify %s: %s", state, error)


def socket_group(config):
    """(gid, name, where it came from) for the Unix sockets: --socket-group, else the
    group of carplayd's socket."""
    if config.socket_group:
        try:
            entry = grp.getgrnam(config.socket_group)
        except KeyError:
            try:
                entry = grp.getgrgid(int(config.socket_group))
            except (ValueError, KeyError):
                raise StartError("--socket-group %s: no such group" % config.socket_group)
        return entry.gr_gid, entry.gr_name, "--socket-group"
    try:
        info = os.stat(config.carplayd_socket)
    except OSError as error:
        raise StartError("carplayd's socket %s: %s; start carplayd first (its socket's group is the one "
                         "carplayd-kuksa's socket gets) or name the group with --socket-group"
                         % (config.carplayd_socket, error.strerror))
    if not stat.S_ISSOCK(info.st_mode):
        raise StartError("--carplayd-socket %s is not a socket" % config.carplayd_socket)
    try:
        name = grp.getgrgid(info.st_gid).gr_name
    except KeyError:
        name = str(info.st_gid)
    return info.st_gid, name, "carplayd's socket %s" % config.carplayd_socket


def prepare_unix(path):
    """Makes the socket's directory if needed and clears a stale socket file; refuses a
    socket another running server answers on."""
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        try:
            os.makedirs(directory, mode=0o755)
        except OSError as error:
            raise StartError("--listen unix:%s: cannot create %s: %s" % (path, directory, error.strerror))
    if os.path.lexists(path):
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise StartError("--listen unix:%s: the path exists and is not a socket" % path)
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(path)
            raise StartError("--listen unix:%s: another server is listening there" % path)
        except OSError:
            os.unlink(path)  # stale: its server is gone
        finally:
            probe.close()


def bind(server, config):
    """Binds every listener; returns their descriptions for the start-up line."""
    bound = []
    for listener in config.listen:
        if listener.kind == "unix":
            gid, group_name, source = socket_group(config)
            prepare_unix(listener.path)
            # Bound while only the owner may connect, then opened to the group: no moment
            # where another user could connect.
            old = os.umask(0o177)
            try:
                port = server.add_insecure_port("unix:" + listener.path)
            except RuntimeError as error:
                raise StartError("--listen unix:%s: %s" % (listener.path, error))
            finally:
                os.umask(old)
            if not port:
                raise StartError("--listen unix:%s: grpcio could not bind it" % listener.path)
            bound.append(("unix", listener.path, gid, group_name, source))
        else:
            try:
                port = server.add_insecure_port("%s:%d" % (listener.host_for_grpc, listener.port))
            except RuntimeError as error:
                raise StartError("--listen %s: %s" % (listener.text, error))
            if not port:
                raise StartError("--listen %s: grpcio could not bind it (in use?)" % listener.text)
            bound.append(("tcp", listener.host, port))
    return bound


def open_unix_sockets(bound):
    """After start: each Unix socket gets its group and mode 0660."""
    for item in bound:
        if item[0] != "unix":
            continue
        _, path, gid, group_name, source = item
        try:
            # Under the unit the group is the process's own already; chown is outside its
            # system call filter (@privileged), so it is called only when needed.
            if os.stat(path).st_gid != gid:
                os.chown(path, -1, gid)
            os.chmod(path, 0o660)
        except OSError as error:
            raise StartError("unix:%s: cannot give it group %s (from %s): %s; run carplayd-kuksa as a member "
                             "of that group or name another with --socket-group"
                             % (path, group_name, source, error.strerror))


def describe_listeners(bound):
    parts = []
    for item in bound:
        if item[0] == "unix":
            parts.append("unix:%s (mode 0660, group %s)" % (item[1], item[3]))
        else:
            host = "[%s]" % item[1] if ":" in item[1] else item[1]
            parts.append("tcp://%s:%d (JWT required)" % (host, item[2]))
    return ", ".join(parts)


def run(config, server_info):
    stubs = stub_loader.load()
    backend = Carplayd(config.carplayd_socket, timeout=config.carplayd_timeout)
    access = Access(config.verifier)

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=config.workers, thread_name_prefix="rpc"),
                         options=[("grpc.so_reuseport", 0)])
    stubs.v2_grpc.add_VALServicer_to_server(v2.make_servicer(stubs, backend, access, server_info), server)
    stubs.v1_grpc.add_VALServicer_to_server(v1.make_servicer(stubs, backend, access, server_info), server)
    bound = bind(server, config)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    server.start()
    try:
        open_unix_sockets(bound)
    except StartError:
        server.stop(0)
        raise

    try:
        catalog = backend.describe()
        car = "%d VSS %s signals" % (len(catalog.signals), catalog.release)
    except KuksaError as error:
        car = "not reachable yet (%s)" % error.message
    print("carplayd-kuksa: kuksa.val.v1 and kuksa.val.v2 on %s, for carplayd at %s: %s"
          % (describe_listeners(bound), config.carplayd_socket, car), flush=True)
    notify("READY=1\nSTATUS=serving %s" % describe_listeners(bound))

    stop.wait()
    notify("STOPPING=1")
    log.info("stopping")
    server.stop(grace=2).wait(5)
    for item in bound:
        if item[0] == "unix":
            try:
                os.unlink(item[1])
            except OSError:
                pass
    return 0
