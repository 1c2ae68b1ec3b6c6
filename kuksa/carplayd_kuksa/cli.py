"""carplayd-kuksa's command line: options -> a checked configuration -> server.run().

Every mistake in the options is a one-line message naming the option and an exit code
2; a start-up failure (a socket that cannot be made, a key that cannot be read) exit 1.
"""

import argparse
import logging
import os
import sys
from urllib.parse import urlsplit

from . import __version__

DESCRIPTION = """KUKSA's kuksa.val.v1 and kuksa.val.v2 gRPC API in front of carplayd: VSS
paths read from the car, and actuations that answer only when the car confirms
(docs/KUKSA.md)."""


def default_carplayd_socket():
    """Where carplayd listens, found as carplayctl finds it."""
    if os.environ.get("CARPLAYD_SOCKET"):
        return os.environ["CARPLAYD_SOCKET"]
    if os.getuid() == 0:
        return "/run/carplayd/io.carplayd.Vehicle"
    if os.environ.get("XDG_RUNTIME_DIR"):
        return os.path.join(os.environ["XDG_RUNTIME_DIR"], "carplayd", "io.carplayd.Vehicle")
    return "/tmp/carplayd-%d/io.carplayd.Vehicle" % os.getuid()


def default_socket():
    """carplayd-kuksa's own Unix socket, beside carplayd's run directory."""
    if os.getuid() == 0:
        return "/run/carplayd-kuksa/kuksa.sock"
    if os.environ.get("XDG_RUNTIME_DIR"):
        return os.path.join(os.environ["XDG_RUNTIME_DIR"], "carplayd-kuksa", "kuksa.sock")
    return "/tmp/carplayd-kuksa-%d/kuksa.sock" % os.getuid()


class Listener:
    def __init__(self, text):
        self.text = text
        if text.startswith("unix:") or text.startswith("/"):
            path = text[len("unix:"):] if text.startswith("unix:") else text
            if path.startswith("//"):
                path = path[2:]  # unix:///run/x -> /run/x
            if not path.startswith("/"):
                raise ValueError("a Unix socket needs an absolute path (unix:/run/carplayd-kuksa/kuksa.sock)")
            if len(path.encode()) > 107:
                raise ValueError("the path is %d bytes; a Unix socket path has at most 107" % len(path.encode()))
            self.kind, self.path = "unix", path
            return
        if not text.startswith("tcp://"):
            raise ValueError("expected unix:/PATH or tcp://HOST:PORT")
        parts = urlsplit(text)
        if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
            raise ValueError("expected tcp://HOST:PORT, nothing after the port")
        try:
            port = parts.port
        except ValueError:
            raise ValueError("the port is not a number from 0 to 65535")
        if port is None or not parts.hostname:
            raise ValueError("expected tcp://HOST:PORT (e.g. tcp://127.0.0.1:55555)")
        self.kind, self.host, self.port = "tcp", parts.hostname, port
        self.host_for_grpc = "[%s]" % self.host if ":" in self.host else self.host


def parser():
    p = argparse.ArgumentParser(prog="carplayd-kuksa", description=DESCRIPTION)
    p.add_argument("--carplayd-socket", metavar="PATH", default=None,
                   help="carplayd's Varlink socket (default: $CARPLAYD_SOCKET, else /run/carplayd/io.carplayd.Vehicle "
                        "as root, $XDG_RUNTIME_DIR/carplayd/io.carplayd.Vehicle otherwise)")
    p.add_argument("--listen", metavar="ADDRESS", action="append", default=None,
                   help="where to serve: unix:/PATH (default: %s) or tcp://HOST:PORT (needs --jwt-public-key); "
                        "repeat for several" % default_socket())
    p.add_argument("--socket-group", metavar="GROUP",
                   help="group of the Unix sockets (default: the group of carplayd's socket, normally carplay)")
    p.add_argument("--jwt-public-key", metavar="FILE",
                   help="RSA public key (PEM) that signs the KUKSA JWTs TCP callers must send")
    p.add_argument("--carplayd-timeout", metavar="SECONDS", type=float, default=30.0,
                   help="longest wait for a reply from carplayd, an actuation's included (default 30)")
    p.add_argument("--workers", metavar="N", type=int, default=32,
                   help="concurrent calls served, each open Subscribe holding one (default 32)")
    p.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="warning")
    p.add_argument("--generate-stubs", action="store_true",
                   help="generate the protobuf stubs from kuksa/proto into the cache and exit (an install step)")
    p.add_argument("--version", action="version", version="carplayd-kuksa %s" % __version__)
    return p


def configure(argv):
    """The checked configuration, or exit 2 with a message naming the option."""
    p = parser()
    config = p.parse_args(argv)

    def bad(message):
        p.exit(2, "carplayd-kuksa: %s\n" % message)

    config.carplayd_socket = config.carplayd_socket or default_carplayd_socket()
    listeners = []
    for text in config.listen or ["unix:" + default_socket()]:
        try:
            listeners.append(Listener(text))
        except ValueError as error:
            bad("--listen %s: %s" % (text, error))
    paths = [listener.path for listener in listeners if listener.kind == "unix"]
    if len(set(paths)) != len(paths):
        bad("--listen: the same Unix socket twice")
    if os.path.abspath(config.carplayd_socket) in paths:
        bad("--listen unix:%s is carplayd's own socket" % config.carplayd_socket)
    config.listen = listeners
    if not (config.carplayd_timeout > 0):
        bad("--carplayd-timeout %s: give a number of seconds above 0" % config.carplayd_timeout)
    if config.workers < 2:
        bad("--workers %d: give at least 2" % config.workers)
    config.verifier = None
    if config.jwt_public_key:
        try:
            with open(config.jwt_public_key) as f:
                text = f.read()
        except OSError as error:
            bad("--jwt-public-key %s: %s" % (config.jwt_public_key, error.strerror))
        except UnicodeDecodeError:
            bad("--jwt-public-key %s: not a PEM text file" % config.jwt_public_key)
        from .auth import TokenVerifier
        try:
            config.verifier = TokenVerifier(text, "--jwt-public-key %s" % config.jwt_public_key)
        except ValueError as error:
            bad(str(error))
    tcp = [listener.text for listener in listeners if listener.kind == "tcp"]
    if tcp and config.verifier is None:
        bad("--listen %s: TCP admits every local user, so it needs KUKSA's JWT authorization: give "
            "--jwt-public-key FILE (docs/KUKSA.md, \"Access\")" % tcp[0])
    return config


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    config = configure(argv)
    logging.basicConfig(level=getattr(logging, config.log_level.upper()), stream=sys.stderr,
                        format="carplayd-kuksa: %(levelname)s: %(message)s")
    from . import stubs
    if config.generate_stubs:
        try:
            print("carplayd-kuksa: stubs in %s" % stubs.generate())
        except stubs.StubError as error:
            print("carplayd-kuksa: %s" % error, file=sys.stderr)
            return 1
        return 0
    from .server import StartError, run
    try:
        code = run(config, {"name": "carplayd-kuksa", "version": __version__})
    except (StartError, stubs.StubError) as error:
        print("carplayd-kuksa: %s" % error, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        code = 0
    # Stopped: the server cancelled every call and removed its sockets. A worker still
    # waiting on carplayd (an Actuate the car has not answered) must not hold the exit
    # until its socket times out: the interpreter would join it.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
