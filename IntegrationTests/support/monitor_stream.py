"""A Monitor subscription for tests (daemon and vcan): io.carplayd.Vehicle.Monitor with
`more` on a plain AF_UNIX connection, read on a thread into a list in arrival order.

    with MonitorStream(daemon.socket, commands=True) as monitor:
        ...                                   # cause something
        monitor.wait_for(lambda reply: ..., "what it should show")
    monitor.replies                           # every reply's parameters, in order

Monitor has no "subscribed" reply: the constructor waits `settle` seconds after sending
the call, so what the test does next is seen.
"""

import json
import socket
import threading
import time

METHOD = "io.carplayd.Vehicle.Monitor"


class MonitorStream:
    def __init__(self, socket_path, commands=False, settle=0.3):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(0.2)
        self.sock.connect(socket_path)
        call = {"method": METHOD, "more": True}
        if commands:
            call["parameters"] = {"commands": True}
        self.sock.sendall(json.dumps(call).encode() + b"\0")
        self.replies = []
        self.error = None
        self.changed = threading.Condition()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._listen, daemon=True)
        self.thread.start()
        time.sleep(settle)

    def _listen(self):
        buffer = b""
        while not self.stop.is_set():
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            while b"\0" in buffer:
                message, _, buffer = buffer.partition(b"\0")
                reply = json.loads(message)
                with self.changed:
                    if "error" in reply:
                        self.error = reply
                    else:
                        self.replies.append(reply["parameters"])
                    self.changed.notify_all()

    def wait_for(self, predicate, what, timeout=15.0):
        """The replies up to and including the first that satisfies predicate."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                assert self.error is None, self.error
                for index, reply in enumerate(self.replies):
                    if predicate(reply):
                        return self.replies[:index + 1]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("no Monitor reply with %s; the last: %s" % (what, self.replies[-5:]))
                self.changed.wait(left)

    def states(self, leave_out=()):
        """The state changes' values, without the keys in leave_out (and without the
        replies that then show nothing), in order."""
        sequence = []
        for reply in list(self.replies):
            state = {key: value for key, value in reply.get("state", {}).items() if key not in leave_out}
            if state:
                sequence.append(state)
        return sequence

    def close(self):
        self.stop.set()
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.thread.join(5)
        self.sock.close()
        assert not self.thread.is_alive()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
