"""The table page as an ASGI app (Starlette): pages, the JSON API and the event stream.

Every handler talks to a *source* (:mod:`companion.remote.web.source`) and never to the
screen. Every request first passes the door (:mod:`companion.remote.web.gate`: the
host, the origin and type of a write, the security headers). Reads are open on the
local network unless ``open_reads`` is off; writes need a token from pairing
(:mod:`companion.remote.web.pairing`). Every refusal is JSON with one line,
``{"error": "...", "code": "..."}`` (an HTML page gets a short page), never a traceback.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor, register_url_convertor
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from companion.errors import PairingLocked, PairingRefused, Refusal, RemoteError, one_line
from companion.lang import _
from companion.remote import commands
from companion.remote.web import views
from companion.remote.web.body import read_json
from companion.remote.web.gate import BUG_WORDS, Gate
from companion.remote.web.help import help_routes
from companion.remote.web.pages import (
    INT_MAX,
    export_text,
    match_details,
    past_matches,
    playable_games,
    player_figures,
    player_page_data,
    speaking,
    table_context,
)
from companion.remote.web.pairing import Pairing
from companion.remote.web.source import Change, SharedSnapshot
from companion.remote.web.stream import (
    KEEPALIVE,
    ev_message,
    event_stream,
    hub_changes,
    keepalive_text,
    said_message,
    sse,
)
from companion.words import counted

log = logging.getLogger("companion")

HERE = Path(__file__).parent
#: The cookie a paired phone keeps.
COOKIE = "companion_pair"
#: A year: the token itself ends when the device restarts.
COOKIE_AGE = 365 * 24 * 3600

#: HTTP status per :data:`commands.ERRORS` code (and READONLY for a store source).
STATUS = {"BADARG": 400, "NOTFOUND": 404, "NOGAME": 409, "ILLEGAL": 409, "OPEN": 409, "STORE": 409,
          "FULL": 409, "BUSY": 503, "INTERNAL": 500, "READONLY": 403, "LOCKED": 429}


def error(status: int, message: str, headers: Mapping[str, str] | None = None,
          **extra: Any) -> JSONResponse:
    """The one-line JSON answer of every refusal: ``{"error": message, ...extra}``."""
    return JSONResponse({"error": " ".join(str(message).split()), **extra}, status_code=status,
                        headers=dict(headers or {}))


# -- the app ---------------------------------------------------------------------------------


class Site:
    """The handlers, sharing one source, one pairing and one template environment."""

    def __init__(self, source: Any, pairing: Pairing | None, open_reads: bool,
                 template_dirs: Sequence[str | Path], title: str,
                 keepalive: float = KEEPALIVE):
        self.source = source
        self.pairing = pairing
        self.open_reads = open_reads
        self.title = title
        self.keepalive = keepalive
        self.snapshots = SharedSnapshot(source)
        loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader([str(d) for d in template_dirs]),
                                      jinja2.FileSystemLoader(str(HERE / "templates"))])
        self.templates = speaking(jinja2.Environment(loader=loader, autoescape=True,
                                                     trim_blocks=True, lstrip_blocks=True))
        self.templates.globals.update(game_title=views.game_title, site_title=title,
                                      seat_class=views.seat_class, unit=views.unit,
                                      player_url=views.player_url,
                                      script_words=views.script_words, together=views.together)
        self.templates.filters.update(when=views.when, duration=views.length, counted=counted,
                                      number=views.number, fill=_fill,
                                      sheet_word=views.sheet_word)

    # -- access -------------------------------------------------------------------------

    def paired(self, request: Request) -> bool:
        if self.pairing is None:
            return False
        token = request.cookies.get(COOKIE)
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            token = auth[7:].strip()
        return self.pairing.paired(token)

    def may_read(self, request: Request) -> bool:
        return self.open_reads or self.paired(request)

    def check_read(self, request: Request) -> None:
        if not self.may_read(request):
            raise Refusal(401, _pair_first())

    def check_write(self, request: Request) -> None:
        if not self.source.writable:
            raise Refusal(403, _("this page only shows the game log; it changes nothing"))
        if not self.paired(request):
            raise Refusal(401, _pair_first())

    # -- rendering ------------------------------------------------------------------------

    def render(self, request: Request, name: str, status: int = 200, **context: Any) -> Response:
        """A page: ``name`` from the template dirs, with the site's common context."""
        html = self.templates.get_template(name).render(
            request=request, paired=self.paired(request), writable=self.source.writable,
            **context)
        return HTMLResponse(html, status_code=status)

    def live_html(self, snap: Mapping[str, Any]) -> str:
        return self.templates.get_template("_live.html").render(**table_context(snap))

    def view_message(self, snap: Mapping[str, Any], cache: dict[str, str] | None = None) -> str:
        """The ``view`` stream message: the live part of the table page, rendered."""
        if cache is not None and "view" in cache:
            return cache["view"]
        state = snap["state"]
        data = {"game": state.get("game"), "match_id": state.get("match_id"),
                "seq": state.get("seq", 0),
                "over": bool(state.get("over")), "expecting": state.get("expecting"),
                "turn": state.get("turn"), "players": state.get("players", []),
                "keepalive": self.keepalive,
                "pads": state.get("pads", []), "last": views.last_words(snap["events"]),
                "title": views.page_title(state, self.title),
                "html": self.live_html(snap)}
        text = sse(json.dumps(data, ensure_ascii=False, separators=(",", ":")), event="view")
        if cache is not None:
            cache["view"] = text
        return text

    # -- pages -----------------------------------------------------------------------------

    async def table_page(self, request: Request) -> Response:
        if not self.may_read(request):
            return RedirectResponse("/pair", status_code=303)
        snap = await self.snapshots.get()
        return self.render(request, "table.html", live=self.live_html(snap),
                           state=snap["state"], last_words=views.last_words(snap["events"]),
                           page_title=views.page_title(snap["state"], self.title))

    async def history_page(self, request: Request) -> Response:
        if not self.may_read(request):
            return RedirectResponse("/pair", status_code=303)
        game = request.query_params.get("game", "")
        player = request.query_params.get("player", "")
        rows = await run_in_threadpool(self.source.read, lambda s: past_matches(s, game, player))
        games = sorted({row["game"] for row in rows} | ({game} if game else set()))
        return self.render(request, "history.html", rows=rows, game=game, player=player,
                           games=games)

    async def match_page(self, request: Request) -> Response:
        if not self.may_read(request):
            return RedirectResponse("/pair", status_code=303)
        match_id = request.path_params["match_id"]
        data = await run_in_threadpool(self.source.read, lambda s: match_details(s, match_id))
        return self.render(request, "match.html", match=data)

    async def players_page(self, request: Request) -> Response:
        if not self.may_read(request):
            return RedirectResponse("/pair", status_code=303)
        data = await run_in_threadpool(self.source.read, self._player_figures)
        return self.render(request, "players.html", **data)

    async def player_page(self, request: Request) -> Response:
        if not self.may_read(request):
            return RedirectResponse("/pair", status_code=303)
        name = request.path_params["name"]
        data = await run_in_threadpool(self.source.read, lambda s: player_page_data(s, name))
        return self.render(request, "player.html", player=data)

    async def api_player(self, request: Request) -> Response:
        self.check_read(request)
        name = request.path_params["name"]
        data = await run_in_threadpool(self.source.read, lambda s: player_page_data(s, name))
        return JSONResponse(data)

    async def new_page(self, request: Request) -> Response:
        if not self.paired(request):
            return RedirectResponse("/pair", status_code=303)
        roster = await run_in_threadpool(self.source.read, lambda s: s.roster())
        snap = await self.snapshots.get()
        return self.render(request, "new.html", games=playable_games(), roster=roster,
                           open_game=views.open_game(snap["state"], snap.get("waiting")))

    async def pair_page(self, request: Request) -> Response:
        """The pair form; ``?code=123456`` (the QR code on the device's Pair screen)
        fills it in. The page's script sends it at once only when the person opened the
        address themselves (typed, or scanned from the QR: ``Sec-Fetch-Site: none``);
        sent there from another site, the form waits for a tap, so no page elsewhere
        can spend the code's tries (and lock pairing) by sending its visitors here."""
        code = request.query_params.get("code", "").strip()
        code = code if len(code) == 6 and code.isascii() and code.isdigit() else ""
        opened_here = request.headers.get("sec-fetch-site", "").strip().lower() == "none"
        return self.render(request, "pair.html", code=code, auto=bool(code) and opened_here)

    # -- reads ------------------------------------------------------------------------------

    async def api_state(self, request: Request) -> Response:
        self.check_read(request)
        snap = await self.snapshots.get()
        return JSONResponse(snap["state"])

    async def api_history(self, request: Request) -> Response:
        self.check_read(request)
        game = request.query_params.get("game", "")
        player = request.query_params.get("player", "")
        rows = await run_in_threadpool(self.source.read, lambda s: past_matches(s, game, player))
        return JSONResponse(rows)

    async def api_match(self, request: Request) -> Response:
        self.check_read(request)
        match_id = request.path_params["match_id"]
        data = await run_in_threadpool(self.source.read, lambda s: match_details(s, match_id))
        return JSONResponse(data)

    async def api_players(self, request: Request) -> Response:
        self.check_read(request)
        return JSONResponse(await run_in_threadpool(self.source.read, self._player_figures))

    def _player_figures(self, store: Any) -> dict[str, Any]:
        """The Players page's figures (the club's page: finished matches' players only)."""
        return player_figures(store, getattr(self.source, "played_only", False))

    async def export(self, request: Request) -> Response:
        self.check_read(request)
        match_id, fmt = request.path_params["match_id"], request.path_params["fmt"]
        if fmt not in ("jsonl", "csv"):
            raise Refusal(404, _("no export as {format} (jsonl or csv)").format(
                format=repr(fmt)))
        text = await run_in_threadpool(self.source.read, lambda s: export_text(s, match_id, fmt))
        kind = "application/x-ndjson" if fmt == "jsonl" else "text/csv"
        return Response(text.encode("utf-8"), media_type=f"{kind}; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="match-{match_id}.{fmt}"'})

    async def backup(self, request: Request) -> Response:
        """A fresh backup of the game log (:mod:`companion.remote.web.backup`): for a
        paired phone only, like every write (it holds every name and game)."""
        self.check_write(request)
        from companion.remote.web.backup import backup_response

        return await backup_response(self.source)

    # -- the stream ---------------------------------------------------------------------------

    async def stream(self, request: Request) -> Response:
        self.check_read(request)
        last = _whole(request.headers.get("last-event-id") or request.query_params.get("last"))
        wanted = _whole(request.query_params.get("match"))
        hub = self.source.hub
        queue = hub.subscribe()  # before the snapshot: nothing falls between the two
        try:
            snap = await self.snapshots.get()
            caught_up = await self.catch_up(snap, last, wanted)
        except BaseException:
            hub.unsubscribe(queue)
            raise

        async def messages() -> Any:
            for text in caught_up:
                yield text
            yield self.view_message(snap)
            async for change in hub_changes(queue, self.keepalive):
                if change is None:
                    yield keepalive_text(self.keepalive)
                elif change.tick > snap["tick"]:  # not in the snapshot already
                    yield self.change_text(change)

        return event_stream(messages(), lambda: hub.unsubscribe(queue))

    def change_text(self, change: Change) -> str:
        text = ""
        if change.said is not None:
            text += said_message(change.said)
        if change.payload is not None:
            text += ev_message(change.payload)
        if change.snapshot is not None:
            text += self.view_message(change.snapshot, change.cache)
        return text

    async def catch_up(self, snap: Mapping[str, Any], last: int | None,
                       wanted: int | None) -> list[str]:
        """What a page that saw events up to ``last`` of match ``wanted`` (the match on
        the table when None) missed: the events after it, from the table's match or
        from the log; ``reset`` when events it saw were taken back meanwhile."""
        if last is None:
            return []
        state = snap["state"]
        current = state.get("match_id")
        target = current if wanted is None else wanted
        if target is None:
            return []
        if target == current:
            game, events = state.get("game"), snap["events"]
        else:
            try:
                game, events = await run_in_threadpool(
                    self.source.read, lambda s: (s.match(target).game_id, s.events(target)))
            except RemoteError:
                return [sse(json.dumps({"match_id": target, "seq": None}), event="reset")]
        if last > len(events):
            return [sse(json.dumps({"match_id": target, "seq": len(events)}), event="reset")]
        return [ev_message(commands.ev_json(game, target, seq, event))
                for seq, event in enumerate(events[last:], last + 1)]

    # -- writes ------------------------------------------------------------------------------

    async def pair(self, request: Request) -> Response:
        data = await read_json(request, {"code": str}, required=("code",))
        if self.pairing is None:
            raise Refusal(403, _("this page does not pair phones"))
        try:
            token = await run_in_threadpool(self.pairing.redeem, data["code"],
                                            request.headers.get("user-agent", ""))
        except PairingLocked as locked:
            raise Refusal(429, str(locked), {"Retry-After": str(locked.seconds)},
                          code="LOCKED", seconds=locked.seconds) from None
        except PairingRefused as refused:
            raise Refusal(401, str(refused)) from None
        response = JSONResponse({"paired": True, "token": token})
        response.set_cookie(COOKIE, token, max_age=COOKIE_AGE, httponly=True, samesite="strict")
        return response

    async def do(self, request: Request, fn: Callable[..., Any], *args: Any, **kw: Any,
                 ) -> Response:
        payload = await run_in_threadpool(self.source.command, fn, *args, **kw)
        return JSONResponse(payload)

    async def write_body(self, request: Request,
                         fields: Mapping[str, type | tuple[type, ...]] | None = None,
                         required: Sequence[str] = ()) -> dict[str, Any]:
        """The body of a write (see :func:`read_json`), once this phone may write."""
        self.check_write(request)
        return await read_json(request, fields or {}, required)

    async def add_player(self, request: Request) -> Response:
        data = await self.write_body(request, {"name": str}, ("name",))
        return await self.do(request, commands.add_player, data["name"])

    async def rename_player(self, request: Request) -> Response:
        data = await self.write_body(request, {"name": str, "to": str}, ("name", "to"))
        return await self.do(request, commands.rename_player, data["name"], data["to"])

    async def remove_player(self, request: Request) -> Response:
        data = await self.write_body(request, {"name": str}, ("name",))
        return await self.do(request, commands.remove_player, data["name"])

    async def new_match(self, request: Request) -> Response:
        data = await self.write_body(request, {"game": str, "players": list, "options": dict,
                                               "force": bool}, ("game", "players"))
        return await self.do(request, commands.new_game, data["game"], data["players"],
                             data.get("options", {}), force=data.get("force", False))

    async def event(self, request: Request) -> Response:
        data = await self.write_body(request, {"event": dict}, ("event",))
        return await self.do(request, commands.event, data["event"])

    async def roll(self, request: Request) -> Response:
        await self.write_body(request)
        return await self.do(request, commands.roll)

    async def undo(self, request: Request) -> Response:
        await self.write_body(request)
        return await self.do(request, commands.undo)

    async def leave(self, request: Request) -> Response:
        await self.write_body(request)
        return await self.do(request, commands.leave)

    # -- errors --------------------------------------------------------------------------------

    def wants_json(self, request: Request) -> bool:
        path = request.url.path
        return path.startswith("/api/") or "/export." in path or \
            "text/html" not in request.headers.get("accept", "")

    async def on_refusal(self, request: Request, exc: Exception) -> Response:
        if isinstance(exc, Refusal):
            if self.wants_json(request):
                return error(exc.status, exc.message, headers=exc.headers, **exc.extra)
            return self.failure(request, exc.status, exc.message)
        return self.failure(request, getattr(exc, "status_code", 500), _http_message(exc))

    async def on_remote(self, request: Request, exc: Exception) -> Response:
        code = getattr(exc, "code", "INTERNAL")
        # A refusal that quotes the request (an engine's "not <value>") is cut, as the
        # CLI cuts it: a 60 KB value is not sent back whole.
        status = STATUS.get(code, 400)
        message = one_line(getattr(exc, "message", str(exc)), getattr(exc, "shown_limit", 200))
        if code == "INTERNAL":  # a bug, logged where it happened: words, not Python's
            message = _(BUG_WORDS)
        if self.wants_json(request):
            return error(status, message, code=code)
        return self.failure(request, status, message)

    def on_bug(self, scope: Mapping[str, Any], status: int, message: str) -> Response | None:
        """The door's answer to a bug it caught (and logged in one line): the error
        page for a browser; None (the door's JSON) when even that fails."""
        try:
            return self.failure(Request(dict(scope)), status, message)
        except Exception:  # noqa: BLE001 - the door answers in JSON then
            return None

    def failure(self, request: Request, status: int, message: str) -> Response:
        if self.wants_json(request):
            return error(status, message)
        return self.render(request, "error.html", status=status, status_code=status,
                           message=message)


def _http_message(exc: Exception) -> str:
    status = getattr(exc, "status_code", 500)
    if status == 404:
        return _("no such page")
    if status == 405:
        return _("this address does not take that method")
    return str(getattr(exc, "detail", "")) or _("refused")


def _pair_first() -> str:
    return _("pair this phone first (Settings > Pair a phone on the device)")


def _fill(text: str, **parts: Any) -> Markup:
    """A translated sentence with markup in its fields (``{{ _("{names} won") |
    fill(names=strong) }}``): the sentence is escaped, a field is escaped unless it is
    Markup already."""
    return Markup.escape(text).format(**parts)


def _whole(text: str | None) -> int | None:
    if text is None or not text.strip().isascii() or not text.strip().isdigit():
        return None
    value = int(text.strip())
    return value if value < 2**62 else None


class MatchId(Convertor[int]):
    """A match id in an address, of any length: digits past any real id read as one
    past the largest (the page answers 404 NOTFOUND), never as Python's int of
    thousands of digits (which it refuses past 4,300 with a ValueError: a 500)."""

    regex = "[0-9]+"

    def convert(self, value: str) -> int:
        return int(value) if len(value) <= 20 else INT_MAX + 1

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("match_id", MatchId())


def build_app(
    source: Any,
    *,
    pairing: Pairing | None = None,
    open_reads: bool = True,
    extra_routes: Iterable[BaseRoute] = (),
    template_dirs: Sequence[str | Path] = (),
    title: str = "Tabletop Companion",
    hosts: Sequence[str] = (),
    keepalive: float | None = None,
) -> Starlette:
    """The ASGI app over ``source`` (see the package docstring), behind the door
    (:class:`~companion.remote.web.gate.Gate`; ``hosts``: names besides this machine's
    own that it answers to, ``[web] hosts``)."""
    site = Site(source, pairing, open_reads, template_dirs, title,
                KEEPALIVE if keepalive is None else keepalive)
    routes: list[BaseRoute] = [
        *extra_routes,
        Route("/", site.table_page),
        Route("/history", site.history_page),
        Route("/matches/{match_id:match_id}", site.match_page),
        Route("/matches/{match_id:match_id}/export.{fmt}", site.export),
        Route("/players", site.players_page),
        Route("/new", site.new_page),
        Route("/pair", site.pair_page),
        *help_routes(site),
        Route("/api/state", site.api_state),
        Route("/api/stream", site.stream),
        Route("/api/history", site.api_history),
        Route("/api/matches/{match_id:match_id}", site.api_match),
        Route("/api/players", site.api_players),
        Route("/api/backup", site.backup),
        Route("/api/pair", site.pair, methods=["POST"]),
        Route("/api/players", site.add_player, methods=["POST"]),
        Route("/api/players/rename", site.rename_player, methods=["POST"]),
        Route("/api/players/remove", site.remove_player, methods=["POST"]),
        Route("/api/matches", site.new_match, methods=["POST"]),
        Route("/api/events", site.event, methods=["POST"]),
        Route("/api/roll", site.roll, methods=["POST"]),
        Route("/api/undo", site.undo, methods=["POST"]),
        Route("/api/leave", site.leave, methods=["POST"]),
        Route("/players/{name:path}", site.player_page),
        Route("/api/players/{name:path}", site.api_player),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    # No handler for Exception: Starlette's would answer, then raise it again for the
    # server to print. The door catches it below them all and logs one line.
    app = Starlette(routes=routes, middleware=[
        Middleware(Gate, hosts=hosts, failure=site.on_bug)], exception_handlers={
        Refusal: site.on_refusal, HTTPException: site.on_refusal,
        RemoteError: site.on_remote})
    app.state.site = site
    app.state.source = source

    return app
