"""The door of both web pages (the table page and the club page): one ASGI middleware
that every request passes before any handler runs.

In order, for every request:

1. **Host.** Only the names and addresses this machine really has are answered: its host
   name, ``<host name>.local``, ``localhost`` and the loopback addresses, the address the
   request came in on, and the names in ``[web] hosts``. Anything else is a page asked
   for under a name that points here by trick (DNS rebinding): 421, and nothing runs.
2. **Writes** (POST, PUT, PATCH, DELETE): refused with 403 when ``Origin`` is not this
   page's own origin (scheme, host and port) or ``Sec-Fetch-Site`` says the request
   came from another site; 415 when the body is not ``application/json``. All of this
   before a byte of the body is read: a form or a ``no-cors`` fetch from another page
   never reaches a handler. A request that gives ``Host``, ``Origin``,
   ``Content-Type``, ``Content-Length`` or ``Sec-Fetch-Site`` twice is refused (400):
   two readers could each take a different one; so is one with both Content-Length and
   Transfer-Encoding. (The server refuses both framings before h11 parses the request,
   :func:`companion.remote.web.server.framing_problem`: h11 merges two equal
   Content-Length headers into one, so this door would never see them.)
3. **Headers** on every answer: a Content-Security-Policy with no inline script or
   style and no framing, ``nosniff``, no referrer, and ``Cache-Control: no-store`` on
   the API.
4. **Bugs**: an exception no handler turned into an answer is logged as one line
   (never a traceback in the terminal the simulator draws in) and answered 500 with
   words, not Python's.

Every refusal is the pages' one-line JSON, ``{"error": "...", "code": "..."}``.
"""

from __future__ import annotations

import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from companion.errors import Refused, one_line
from companion.lang import N_, _
from companion.logs import problem_words
from companion.network import machine_names

log = logging.getLogger("companion")

#: What a page is told of a bug (the log has the details, in one line).
BUG_WORDS = N_("internal error: the device carries on (the details are in its log)")
#: Methods that change something: checked for origin and body type.
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: What a page may load: only from the device itself; nothing inline; no framing.
CSP = ("default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
#: The longest Host header looked at (a DNS name is at most 253 characters).
HOST_MAX = 300

ASGIApp = Callable[[dict[str, Any], Callable[[], Awaitable[Any]],
                    Callable[[dict[str, Any]], Awaitable[None]]], Awaitable[None]]


def normal_host(text: str) -> str:
    """A host name or address as compared: lower case, no trailing dot, an IPv6
    address without brackets and in its short form."""
    host = text.strip().lower().rstrip(".")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return host


def split_host(header: str) -> tuple[str, str]:
    """``Host`` as (host, port); port "" when none is given::

        >>> split_host("[::1]:8080")
        ('::1', '8080')
        >>> split_host("Pi.local")
        ('pi.local', '')
    """
    header = header.strip()
    if header.startswith("["):
        host, _, rest = header[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
        return normal_host(host), port
    host, _, port = header.partition(":") if header.count(":") == 1 else (header, "", "")
    return normal_host(host), port


def same_origin(origin: str, scheme: str, host_header: str) -> bool:
    """True when ``origin`` (an ``Origin`` header) is this page's own origin."""
    def parts(scheme: str, host_header: str) -> tuple[str, str, str]:
        host, port = split_host(host_header)
        return scheme, host, port or ("443" if scheme == "https" else "80")

    scheme_there, sep, rest = origin.strip().lower().partition("://")
    if not sep or not rest or "/" in rest:
        return False
    return parts(scheme_there, rest) == parts(scheme.lower(), host_header)


#: Headers a request may carry once only: the door decides on them.
ONCE = (b"host", b"origin", b"content-type", b"content-length", b"sec-fetch-site")


def _given_twice(headers: Iterable[tuple[bytes, bytes]]) -> str:
    """The first of :data:`ONCE` that ``headers`` holds more than once, or ""."""
    seen: set[bytes] = set()
    for key, _value in headers:
        if key in ONCE:
            if key in seen:
                return key.decode("latin-1")
            seen.add(key)
    return ""


def json_body(message: str, code: str, **extra: Any) -> bytes:
    return json.dumps({"error": " ".join(message.split()), "code": code, **extra},
                      ensure_ascii=False).encode("utf-8")


class Gate:
    """The ASGI middleware (see the module docstring). ``hosts`` are extra names the
    device answers to; ``failure(scope, status, message)`` may give a prettier answer
    to a bug (an HTML page for a browser), else one line of JSON."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str] = (),
                 failure: Callable[[Mapping[str, Any], int, str], Any] | None = None,
                 names: Iterable[str] | None = None):
        self.app = app
        self.names = frozenset(normal_host(name) for name in (
            names if names is not None else machine_names(hosts)))
        self.failure = failure

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            self.check(scope)
        except Refused as refused:
            await self.answer(send, refused.status, json_body(refused.message, refused.code))
            return
        started = False
        api = scope.get("path", "").startswith("/api/")

        async def guarded_send(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message = dict(message, headers=with_headers(message.get("headers", []), api))
            await send(message)

        try:
            await self.app(scope, receive, guarded_send)
        except Exception as exc:  # noqa: BLE001 - one line in the log, words to the page
            log.error("web page: %s %s failed: %s", scope.get("method"),
                      one_line(scope.get("path", ""), 80), problem_words(exc))
            if started:
                return  # the answer is on its way: the connection just ends
            message = _(BUG_WORDS)
            if self.failure is not None:
                response = self.failure(scope, 500, message)
                if response is not None:
                    await response(scope, receive, guarded_send)
                    return
            await self.answer(guarded_send, 500, json_body(message, "INTERNAL"))

    def check(self, scope: Mapping[str, Any]) -> None:
        """Refused unless the request may go on (see the module docstring)."""
        hosts = [value for key, value in scope.get("headers", []) if key == b"host"]
        if len(hosts) != 1 or len(hosts[0]) > HOST_MAX:
            raise Refused(400, "HOST", _("a request names exactly one host"))
        twice = _given_twice(scope.get("headers", []))
        if twice:
            # Which of two Origins or body types counts depends on the reader: the
            # check here might read one and the handler the other.
            raise Refused(400, "BADARG", _("the header {header} is given twice").format(
                header=twice))
        given = {key for key, _value in scope.get("headers", [])}
        if b"content-length" in given and b"transfer-encoding" in given:
            raise Refused(400, "BADARG",
                          _("a request gives Content-Length or Transfer-Encoding, not both"))
        host_header = hosts[0].decode("latin-1")
        host, port = split_host(host_header)
        server = scope.get("server") or ("", 0)
        known = host in self.names or host == normal_host(str(server[0]))
        if not known or (port and not port.isdigit()):
            raise Refused(421, "HOST", _("this device does not answer to that name; "
                                         "use its address or add the name to [web] hosts"))
        if scope.get("method", "GET") not in WRITES:
            return
        headers = {key.decode("latin-1"): value.decode("latin-1")
                   for key, value in scope.get("headers", [])}
        origin = headers.get("origin")
        if origin is not None and not same_origin(origin, scope.get("scheme", "http"),
                                                  host_header):
            raise Refused(403, "ORIGIN", _("a write must come from this device's own page"))
        if headers.get("sec-fetch-site", "same-origin").strip().lower() not in (
                "same-origin", "none"):
            raise Refused(403, "ORIGIN", _("a write must come from this device's own page"))
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise Refused(415, "MEDIA", _("a write's body must be application/json"))
        length = headers.get("content-length")
        if length is not None and not (length.strip().isascii() and length.strip().isdigit()):
            raise Refused(400, "BADARG", _("Content-Length must be a whole number of bytes"))

    @staticmethod
    async def answer(send: Any, status: int, body: bytes) -> None:
        headers = [(b"content-type", b"application/json"),
                   (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status,
                    "headers": with_headers(headers, True)})
        await send({"type": "http.response.body", "body": body})


def with_headers(headers: Iterable[tuple[bytes, bytes]], api: bool,
                 ) -> list[tuple[bytes, bytes]]:
    """``headers`` plus the security headers (and no-store on the API)."""
    drop = {name for name, _ in SECURITY_HEADERS}
    if api:
        drop.add(b"cache-control")
    kept = [(name, value) for name, value in headers if name.lower() not in drop]
    kept += SECURITY_HEADERS
    if api:
        kept.append((b"cache-control", b"no-store"))
    return kept
