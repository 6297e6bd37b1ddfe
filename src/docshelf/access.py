"""Who may read the index over the network: bind policy, bearer token, Host/Origin allow-lists.

Every HTTP transport (``docshelf serve --http`` for MCP, the HTTP API) makes the same
decisions, so they live here, free of any web framework:

- ``access_policy(host, token, insecure=...)`` decides whether a server may listen on
  ``host`` at all. Loopback is always allowed; any other address needs a bearer token,
  or an explicit ``insecure=True`` (``--insecure``), else it raises ``ConfigError``.
- ``AccessPolicy.authorized(header)`` checks an ``Authorization: Bearer …`` header in
  constant time; bytes or str, any content (non-ASCII never raises, it just fails).
- ``AccessPolicy.host_allowed`` / ``origin_allowed`` are the DNS-rebinding allow-lists
  (``name:*`` matches any port).
- ``AccessPolicy.deny(headers)`` runs the three checks in order and says why a request
  is refused (status and message), or ``None``; ``AccessGuard`` is the plain-ASGI
  middleware that enforces it in front of any ASGI app (Starlette, FastAPI, the MCP SDK).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError

LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
LOCAL_ORIGINS = ("http://127.0.0.1", "http://localhost", "http://[::1]")


def is_loopback(host: str) -> bool:
    """True for an address only this machine can reach: ``localhost``, 127.0.0.0/8, ``::1``."""
    name = host.strip().lower().removeprefix("[").removesuffix("]")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere


def host_header_name(host: str) -> str:
    """How ``host`` appears in a Host header: IPv6 literals in brackets."""
    host = host.strip()
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


@dataclass(frozen=True)
class Denial:
    """Why a request is refused: an HTTP status and a one-line reason."""

    status: int
    message: str


@dataclass(frozen=True)
class AccessPolicy:
    """What a server bound to ``host`` accepts. Build it with ``access_policy``."""

    host: str
    token: str | None
    insecure: bool
    allowed_hosts: tuple[str, ...]
    allowed_origins: tuple[str, ...]

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def describe(self) -> str:
        """One line for the start-up banner: who can read this server."""
        if self.token:
            return "bearer token required"
        if self.loopback:
            return "no token: only this machine can connect"
        return "NO TOKEN (--insecure): anyone who can reach this port can read the index"

    def authorized(self, authorization: str | bytes | None) -> bool:
        """Is this ``Authorization`` header value the right bearer token? (always, without a token)

        Compared in constant time (digests of both sides, so the length does not leak
        either); any bytes are safe, including non-ASCII ones.
        """
        if not self.token:
            return True
        if authorization is None:
            return False
        raw = authorization if isinstance(authorization, bytes) else _header_bytes(authorization)
        scheme, _, credentials = raw.strip().partition(b" ")
        given = hashlib.sha256(credentials.strip()).digest()
        wanted = hashlib.sha256(self.token.encode("ascii")).digest()
        return hmac.compare_digest(given, wanted) and scheme.lower() == b"bearer"

    def host_allowed(self, host: str | None) -> bool:
        """The Host header names this server (DNS-rebinding protection); absent is refused."""
        return bool(host) and _matches(host.strip().lower(), self.allowed_hosts)

    def origin_allowed(self, origin: str | None) -> bool:
        """Browsers send Origin cross-site; absent (same-origin, non-browser clients) is fine."""
        return not origin or _matches(origin.strip().lower(), self.allowed_origins)

    def deny(self, headers: Iterable[tuple[bytes, bytes]]) -> Denial | None:
        """Check a request's raw headers: token (401), then Host (421), then Origin (403)."""
        found: dict[bytes, list[bytes]] = {}
        for name, value in headers:
            found.setdefault(name.lower(), []).append(value)
        auth = found.get(b"authorization", [])
        if self.token and (len(auth) != 1 or not self.authorized(auth[0])):
            return Denial(401, "missing or wrong bearer token")
        host = found.get(b"host", [b""])
        if len(host) != 1 or not self.host_allowed(host[0].decode("latin-1")):
            return Denial(421, "Host header not allowed (add it with --allow-host)")
        origin = found.get(b"origin", [])
        if len(origin) > 1 or (origin and not self.origin_allowed(origin[0].decode("latin-1"))):
            return Denial(403, "Origin not allowed (add it with --allow-origin)")
        return None


def access_policy(
    host: str,
    token: str | None = None,
    *,
    insecure: bool = False,
    extra_hosts: Iterable[str] = (),
    extra_origins: Iterable[str] = (),
) -> AccessPolicy:
    """Decide whether a server may listen on ``host``, and what it will accept there.

    Raises ``ConfigError`` (saying what to do) for a non-loopback address without a token
    unless ``insecure`` is set, and for a token that is not printable ASCII without spaces.
    """
    token = token or None
    if token is not None and (not token.isascii() or not token.isprintable() or any(c.isspace() for c in token)):
        raise ConfigError("the token must be printable ASCII without spaces (it travels in an HTTP header)")
    if not is_loopback(host) and token is None and not insecure:
        raise ConfigError(
            f"refusing to serve on {host} without a token: anyone who can reach it could read the index. "
            "Set --token (or DOCSHELF_TOKEN), bind to 127.0.0.1, or pass --insecure to serve without one."
        )
    hosts = [*LOCAL_HOSTS, *(f"{h}:*" for h in LOCAL_HOSTS)]
    if not is_loopback(host):
        name = host_header_name(host)
        hosts += [name, f"{name}:*"]
    hosts += list(extra_hosts)
    origins = [*LOCAL_ORIGINS, *(f"{o}:*" for o in LOCAL_ORIGINS), *extra_origins]
    return AccessPolicy(
        host=host, token=token, insecure=insecure,
        allowed_hosts=tuple(h.strip().lower() for h in hosts),
        allowed_origins=tuple(o.strip().lower().rstrip("/") for o in origins),
    )


def listen_socket(host: str, port: int) -> Any:
    """A socket bound to ``host:port`` and listening, for the server to take over.

    Bound here, before the server says where it listens or starts its work, so that a port
    out of range, a port another program holds or an address this machine does not have is one
    error saying what to do (it was a traceback, or an address announced and then a log line).
    """
    import socket

    if not 1 <= port <= 65535:
        raise ConfigError(f"--port must be between 1 and 65535, got {port}")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise ConfigError(f"cannot listen on {host!r}: not an address of this machine ({exc})") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        import errno

        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(f"port {port} on {host} is in use (another program, or another docshelf, listens "
                              "there); choose another with --port") from None
        if exc.errno == errno.EACCES:
            raise ConfigError(f"not allowed to listen on port {port} (ports under 1024 need privileges); "
                              "choose another with --port") from None
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


class AccessGuard:
    """Plain ASGI middleware enforcing an ``AccessPolicy`` on HTTP and WebSocket requests."""

    def __init__(self, app: Any, policy: AccessPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            denial = self.policy.deny(scope.get("headers", []))
            if denial is not None:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008, "reason": denial.message})
                    return
                body = json.dumps({"error": {"type": "Unauthorized" if denial.status == 401 else "Forbidden",
                                             "message": denial.message}}).encode()
                headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
                if denial.status == 401:
                    headers.append((b"www-authenticate", b'Bearer realm="docshelf"'))
                await send({"type": "http.response.start", "status": denial.status, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def _header_bytes(value: str) -> bytes:
    """A header as received: str headers are latin-1 decoded by ASGI frameworks."""
    try:
        return value.encode("latin-1")
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogatepass")


def _matches(value: str, allowed: tuple[str, ...]) -> bool:
    """Exact match, or ``base:*`` for ``base`` with any port."""
    value = value.rstrip("/")
    for pattern in allowed:
        if value == pattern:
            return True
        if pattern.endswith(":*"):
            base, _, port = value.rpartition(":")
            if base == pattern[:-2] and port.isdigit():
                return True
    return False
