"""Who may do what: KUKSA's JWT authorization on TCP, the socket's own permissions on Unix.

On the Unix socket (the default listener) the filesystem decides: the socket is mode 0660
with carplayd's group (`carplay`), like carplayd's own, so only who may call carplayd
reaches it, and every call is allowed.

On TCP (opt-in) every call needs `authorization: Bearer <JWT>` as KUKSA's databroker
wants it (its doc/authorization.md and databroker/src/authorization/jwt/): an RS256
(or RS384/RS512) token signed by the key whose public half `--jwt-public-key` names,
audience "kuksa.val", not expired, with claims sub, iss, aud, iat, exp and a `scope` of
space-separated `ACTION[:PATH]` entries, ACTION read, actuate, provide or create;
actuate, provide and create include read. No token, a bad token or a bad scope:
UNAUTHENTICATED; a scope that does not cover the path: PERMISSION_DENIED.
"""

import re
import time

from . import paths
from .errors import KuksaError

ACTIONS = ("read", "actuate", "provide", "create")
_SCOPE = re.compile(r"^(?P<action>[a-z]+)(?::(?P<path>(?:[A-Z][a-zA-Z0-9]*|\*)(?:\.(?:[A-Z][a-zA-Z0-9]*|\*))*))?$")
REQUIRED_CLAIMS = ("sub", "iss", "aud", "iat", "exp", "scope")
ALGORITHMS = ("RS256", "RS384", "RS512")


class Permissions:
    """What a caller may do: per action, None (everything) or a list of path patterns."""

    def __init__(self, grants, expires_at=None, who="the Unix socket's caller"):
        self.grants = grants  # {action: None | [pattern, ...]}
        self.expires_at = expires_at
        self.who = who

    @classmethod
    def everything(cls):
        return cls({action: None for action in ACTIONS})

    def _allows(self, action, path):
        if action not in self.grants:
            return False
        patterns = self.grants[action]
        return patterns is None or any(paths.matches(pattern, path) for pattern in patterns)

    def check(self, action, path):
        """Raises KuksaError unless the caller may `action` ("read" or "actuate") the path."""
        if self.expires_at is not None and self.expires_at < time.time():
            raise KuksaError("Unauthenticated", reason="Permission expired")
        if action == "read":
            allowed = any(self._allows(a, path) for a in ACTIONS)
        else:
            allowed = self._allows(action, path)
        if not allowed:
            raise KuksaError("PermissionDenied", action=action, path=path)

    def may_read(self, path):
        try:
            self.check("read", path)
            return True
        except KuksaError:
            return False


def parse_scope(scope):
    """{action: None | [patterns]} of a scope claim; KuksaError (UNAUTHENTICATED) when an
    entry is malformed, as the databroker refuses the whole token then."""
    if not isinstance(scope, str):
        raise KuksaError("Unauthenticated", reason="Invalid auth token: the scope claim is not a string")
    grants = {}
    for entry in scope.split():
        match = _SCOPE.match(entry)
        if not match or match.group("action") not in ACTIONS:
            raise KuksaError("Unauthenticated", reason="Invalid auth token: bad scope %r (ACTION[:PATH], "
                                                       "ACTION read, actuate, provide or create)" % entry)
        action, path = match.group("action"), match.group("path")
        if path is None:
            grants[action] = None
        elif grants.get(action, []) is not None:
            grants.setdefault(action, []).append(path)
    return grants


class TokenVerifier:
    """Verifies bearer tokens with one public key (PEM: RSA)."""

    def __init__(self, pem_text, source):
        import jwt  # PyJWT, with cryptography for RS256
        from jwt.algorithms import RSAAlgorithm
        self.jwt = jwt
        try:
            self.key = RSAAlgorithm.from_jwk(pem_text) if pem_text.lstrip().startswith("{") else \
                RSAAlgorithm(RSAAlgorithm.SHA256).prepare_key(pem_text)
        except Exception as error:  # the library's errors vary by key kind
            raise ValueError("%s: not an RSA public key in PEM form (%s)" % (source, error))
        if hasattr(self.key, "private_numbers"):
            raise ValueError("%s holds a private key: give the public key (openssl rsa -pubout)" % source)

    def permissions(self, metadata):
        """Permissions from a call's metadata (pairs of key, value)."""
        headers = [value for key, value in metadata if key == "authorization"]
        if not headers:
            raise KuksaError("Unauthenticated", reason="No auth token provided")
        header = headers[0]
        if isinstance(header, bytes):
            header = header.decode("latin-1")
        if not header.startswith("Bearer "):
            raise KuksaError("Unauthenticated", reason="Invalid auth token")
        token = header[len("Bearer "):]
        try:
            claims = self.jwt.decode(token, self.key, algorithms=list(ALGORITHMS), audience="kuksa.val",
                                     options={"require": list(REQUIRED_CLAIMS)})
        except self.jwt.exceptions.PyJWTError as error:
            raise KuksaError("Unauthenticated", reason="Invalid auth token: %s" % error)
        return Permissions(parse_scope(claims["scope"]), expires_at=claims.get("exp"),
                           who="token of %s" % claims.get("sub"))


class Access:
    """The permissions of a call: everything on the Unix socket (its mode and group decide
    who connects); on TCP, what the caller's JWT grants."""

    def __init__(self, verifier=None):
        self.verifier = verifier

    def permissions(self, context):
        peer = context.peer() or ""
        if peer.startswith("unix:"):
            return Permissions.everything()
        if self.verifier is None:
            raise KuksaError("Unauthenticated", reason="TCP callers need a token and no --jwt-public-key is set")
        return self.verifier.permissions(context.invocation_metadata() or ())
