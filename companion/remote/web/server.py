"""The web page's server: uvicorn in a thread of its own, with its own event loop.

:func:`start` runs on the app's owner thread *after* the first frame (it is posted to
the queue by :func:`companion.launch.web_page`). It binds the socket there, so a port
in use is one log line and the device carries on without the page, then leaves the
rest (importing Starlette, uvicorn and Jinja2, building the app) to the server thread.

The server waits on its sockets and on an event for :meth:`WebServer.stop`; it has no
ticking loop of its own (uvicorn's ``main_loop`` wakes ten times a second, so it is not
used, and without it the ``Date`` header is left out).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import threading
from typing import Any

from companion.config import parse_listen
from companion.errors import CompanionError
from companion.lang import _
from companion.remote.web.gate import with_headers

log = logging.getLogger("companion")


def free_port() -> int:
    """A TCP port on the loopback that nothing listens on now (benchmarks and tests)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class WebServer:
    """Serves ``make_asgi()`` on an already bound socket until :meth:`stop`."""

    def __init__(self, make_asgi: Any, sock: socket.socket, source: Any = None):
        self.make_asgi = make_asgi
        self.sock = sock
        #: The source the page shows (its hub is ended and it is detached at stop).
        self.source = source
        self.hub = None if source is None else source.hub
        self.host, self.port = sock.getsockname()[:2]
        #: Set once the server answers (or failed: then :attr:`failed` says why).
        self.ready = threading.Event()
        self.failed: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="web", daemon=True)

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{'[' + host + ']' if ':' in host else host}:{self.port}"

    def start(self) -> WebServer:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except Exception as problem:  # noqa: BLE001 - the device carries on without a page
            self.failed = f"{type(problem).__name__}: {problem}"
            log.exception("web page stopped")
        finally:
            self.ready.set()
            self.sock.close()

    async def _serve(self) -> None:
        import uvicorn

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        if self.hub is not None:
            self.hub.bind(self._loop)
        config = uvicorn.Config(self.make_asgi(), lifespan="off", http=json_errors_h11(),
                                ws="none",
                                log_config=None, log_level="warning", access_log=False,
                                date_header=False, server_header=False,
                                timeout_graceful_shutdown=2)
        config.load()
        server = uvicorn.Server(config)
        server.lifespan = config.lifespan_class(config)
        await server.startup(sockets=[self.sock])
        if server.should_exit:
            raise CompanionError("the web server did not start")
        log.info("web page on %s", self.url)
        self.ready.set()
        await self._stop.wait()
        await server.shutdown(sockets=[self.sock])

    def stop(self, timeout: float = 5.0) -> None:
        """End the open streams, stop serving and wait for the thread (idempotent)."""
        if self.hub is not None:
            self.hub.close()
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(stop.set)
            except RuntimeError:
                pass  # the loop ended already
        if self._thread.is_alive():
            self._thread.join(timeout)
        if self.source is not None:
            self.source.detach()


#: Where a request's head ends: a blank line (h11 takes a bare LF for a line end too).
_HEAD_END = re.compile(rb"\n\r?\n")


def framing_problem(head: bytes) -> str:
    """Why the request at the start of ``head`` (raw bytes, as they came) says its
    body's length ambiguously, in words; "" when it does not, or its head is not all
    here yet. Two Content-Length headers (equal or not, or one listing two values) or
    Content-Length beside Transfer-Encoding: two readers could each take a different
    body (request smuggling), so the request is refused before it is parsed. h11 would
    merge equal lengths and let chunked win, and the page would never see either. So is
    a header folded onto a second line (obsolete since 2014, sent by no browser): h11
    joins it to the header above ("Content-Length: 2" and " ,2" are one header of two
    lengths to it), a reader that does not would see a header of its own."""
    end = _HEAD_END.search(head)
    if end is None:
        return ""
    lengths, encoded = 0, False
    for line in head[: end.start()].split(b"\n")[1:]:
        if line[:1] in (b" ", b"\t"):
            return _("a request writes each header on one line")
        name, colon, value = line.partition(b":")
        name = name.strip().lower()
        if colon and name == b"content-length":
            lengths += 1 + value.count(b",")
        elif colon and name == b"transfer-encoding":
            encoded = True
    if lengths > 1:
        return _("a request gives its Content-Length once")
    if lengths and encoded:
        return _("a request gives Content-Length or Transfer-Encoding, not both")
    return ""


def json_errors_h11() -> type:
    """uvicorn's h11 protocol, answering a request it cannot parse (a negative
    Content-Length, a broken header) with the pages' one-line JSON instead of plain
    text, so every refusal has one shape; and refusing a request whose raw head frames
    its body twice (:func:`framing_problem`) before h11 reads it."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class JsonErrors(H11Protocol):
        def handle_events(self) -> None:
            # At IDLE the unread bytes begin with the next request's head (pipelined
            # ones too: h11 reads one request at a time).
            if self.conn.their_state is h11.IDLE:
                problem = framing_problem(self.conn.trailing_data[0])
                if problem:
                    log.warning("web page: refused a request: %s", problem)
                    self.transport.write(_raw_400(problem))
                    self.transport.close()
                    return
            super().handle_events()

        def send_400_response(self, msg: str) -> None:
            body = _error_body(_("the request is not valid HTTP"))
            headers = [(b"content-type", b"application/json"),
                       (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
            for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                          h11.Data(data=body), h11.EndOfMessage()):
                self.transport.write(self.conn.send(event))
            self.transport.close()

    return JsonErrors


def _error_body(message: str) -> bytes:
    return json.dumps({"error": message, "code": "BADARG"}, ensure_ascii=False).encode()


def _raw_400(message: str) -> bytes:
    """A whole 400 answer with the pages' one-line JSON, written without h11 (which has
    seen no request to answer)."""
    body = _error_body(message)
    head = [b"HTTP/1.1 400 Bad Request", b"content-type: application/json",
            b"content-length: " + str(len(body)).encode(), b"connection: close"]
    head += [name + b": " + value for name, value in with_headers([], api=True)]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


def bind(listen: str) -> socket.socket:
    """A listening TCP socket on ``HOST:PORT``; CompanionError in one line if not."""
    try:
        host, port = parse_listen(listen)
    except ValueError as problem:
        raise CompanionError(f"web page: listen {problem}") from None
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
    except OSError as problem:
        raise CompanionError(f"web page: cannot listen on {listen}: "
                             f"{problem.strerror or problem}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(64)
        sock.set_inheritable(True)
    except OSError as problem:
        sock.close()
        raise CompanionError(f"web page: cannot listen on {listen}: "
                             f"{problem.strerror or problem}") from None
    return sock


def start(app: Any, listen: str, *, open_reads: bool = True) -> WebServer:
    """The page for a live device on ``listen``; call on the owner thread. Sets
    ``app.ctx.pairing`` (the Pair screen shows its code) and starts listening to the
    sessions. CompanionError (one line) when the address cannot be used."""
    from companion.remote.web.pairing import LockMemory, Pairing
    from companion.remote.web.source import DeviceSource
    from companion.ui.pair import phone_paired

    sock = bind(listen)

    def paired(phone: Any) -> None:  # a server thread: the panel changes on the owner's
        app.post("call", lambda app: app.set_screen(phone_paired(app.screen, phone.name)))

    state_dir = getattr(getattr(app, "game_log", None), "state_dir", None)
    pairing = Pairing(app.ctx.clock, on_paired=paired,
                      memory=LockMemory(state_dir) if state_dir is not None else None)
    source = DeviceSource(app)

    web = getattr(app.ctx.config, "web", None)
    hosts = tuple(getattr(web, "hosts", ()))

    def make_asgi() -> Any:
        from companion.remote.web.asgi import build_app

        return build_app(source, pairing=pairing, open_reads=open_reads, hosts=hosts)

    app.ctx.pairing = pairing
    app.ctx.web_address = listen
    source.attach()
    return WebServer(make_asgi, sock, source).start()
