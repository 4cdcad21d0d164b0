"""The club view of the web page (``companion club --web HOST:PORT``).

The table page's app (:func:`companion.remote.web.asgi.build_app`) over the dashboard's
store, read only, with the club's own front page in place of the table: every table
live (from the dashboard's snapshot) and the league, ratings and wins per game across
every table (:func:`companion.stats.cached_figures` over the same store). History,
match pages, exports and Players are the table page's own, now club-wide.

Live updates reuse the page's script: ``/api/club/stream`` sends ``view`` events with
the rendered tables, at most a few a second however busy the club is (changes that
arrive meanwhile are folded into the next one).

Routes (a contract, like the table page's): ``GET /`` the club page, ``GET /api/club``
``{"tables": {NAME: {...}}, "league": [...], "night": {...} or null, "seasons": [...],
"tie_break": [...], "broker": {...}, "held": [{"id": N, "table": T, "what": W, "text":
...}], "refused_devices": [{"id": N, "table": T, "bound": B, "text": ...}]}`` (a table's
``two_devices``: two devices speak for it at once; a season's ``locked``: when the
organiser locked it, else null), ``GET /api/club/stream`` (SSE); the organiser's only
(the browser that opened the organiser's link, :mod:`companion.club.organiser`): ``POST
/api/club/held/ID/accept`` and ``.../refuse``, ``POST /api/club/devices/ID/move`` (the
refused device of row ID to the table it spoke for), ``POST /api/club/seasons/N/lock``
(the N-th season, from 0), ``POST /api/club/seat``.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from companion import lang
from companion.club.dashboard import Dashboard
from companion.lang import _

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: Shortest gap between two updates of one open page (seconds).
MIN_GAP = 0.2
KEEPALIVE = 15.0


def league(figures: dict[str, Any]) -> list[dict[str, Any]]:
    """Per game: players by rating (best first), with wins and plays; a match a table
    never finished adds no game and no player."""
    from companion.stats import without_unplayed

    games = []
    for game_id, game in (without_unplayed(figures).get("games") or {}).items():
        rows = [{"name": name, "rating": f.get("rating"), "wins": f.get("wins", 0),
                 "plays": f.get("plays", 0)} for name, f in game.get("players", {}).items()]
        rows.sort(key=lambda r: (r["rating"] is None, -(r["rating"] or 0), r["name"]))
        games.append({"game_id": game_id, "title": game.get("title", game_id),
                      "plays": game.get("plays", 0), "rows": rows})
    return games


#: What the open club page shows of a table: nothing that identifies its device or its
#: session on the broker (a device id, a match's uid), only what the room can see.
PUBLIC_TABLE = ("table", "online", "match", "unconfirmed", "last_seen", "two_devices")
PUBLIC_MATCH = ("game_id", "players", "events", "state", "standings", "behind",
                "entered_dice", "entered_tokens")


def public_tables(tables: dict[str, Any]) -> dict[str, Any]:
    """The dashboard's tables with only :data:`PUBLIC_TABLE` and :data:`PUBLIC_MATCH`."""
    shown = {}
    for name, entry in tables.items():
        table = {key: entry.get(key) for key in PUBLIC_TABLE}
        if isinstance(table["match"], dict):
            table["match"] = {key: table["match"].get(key) for key in PUBLIC_MATCH}
        shown[name] = table
    return shown


def with_locks(standings: list[dict[str, Any]],
               locked: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each season's standings, a locked one as it was when the organiser locked it
    (``locked``: the time; None while open)."""
    shown = []
    for season in standings:
        lock = locked.get(season["name"])
        if lock is None:
            shown.append({**season, "locked": None})
        else:
            shown.append({**season, "games": lock["standings"].get("games", []),
                          "locked": lock["at"]})
    return shown


def seen_text(when: float) -> str:
    """A "last seen" time: the hour today, else the day and hour (as the language
    writes them)."""
    from companion.clock import day_text
    from companion.club.review import day_and_hour

    today = day_text(time.time()) == day_text(when)
    return day_text(when, "%H:%M") if today else day_and_hour(when)


def date_text(iso: str) -> str:
    """A season's first or last day ("YYYY-MM-DD") as the language writes dates."""
    import datetime as dt

    try:
        return lang.date(dt.date.fromisoformat(iso))
    except (TypeError, ValueError):
        return str(iso)


def number_text(value: Any) -> str:
    """A rating or an average place as the language writes numbers ("2.5", "2,5"),
    with the digits Python prints (2.0 stays "2.0" in English)."""
    if not isinstance(value, float):
        return str(value)
    point = lang.pgettext("decimal separator", ".")
    return str(value).replace(".", point) if point != "." else str(value)


def speak(templates: Any) -> None:
    """Give the page's templates companion.lang's callables (``_``, ``ngettext``,
    ``pgettext``, ``npgettext``, ``{% trans %}``) unless the table page's environment
    has them already, and the club's filters of dates, times and numbers."""
    if "pgettext" not in templates.globals:
        templates.add_extension("jinja2.ext.i18n")
        templates.install_gettext_callables(  # type: ignore[attr-defined]
            gettext=lang.gettext, ngettext=lang.ngettext, pgettext=lang.pgettext,
            npgettext=lang.npgettext, newstyle=False)
    templates.filters.update(club_time=seen_text, club_date=date_text,
                             club_number=number_text)


class ClubPage:
    """The club's routes over a dashboard and a read-only store on its file."""

    def __init__(self, dashboard: Dashboard, store: Any, hosts: tuple[str, ...] = ()):
        from companion.remote.web.source import StoreSource

        self.hosts = hosts  # names the page answers to besides the machine's own
        self.dashboard = dashboard
        self.source = StoreSource(store)
        self.source.played_only = True  # the Players page: finished matches' players
        self.tick = 0
        self._league: tuple[Any, list[dict[str, Any]], list[dict[str, Any]]] | None = None
        self._html: tuple[Any, asyncio.Future[str]] | None = None
        self._night_view: tuple[Any, dict[str, Any] | None] | None = None
        from companion.club.organiser import Organiser

        # Seats a round from the organiser's browser (a dashboard with a state dir).
        self.organiser = Organiser(dashboard) if hasattr(dashboard, "state_dir") else None
        dashboard.on_change = self._changed

    def is_organiser(self, request: Any) -> bool:
        """The one check of who is the organiser on the page: the browser that opened
        the organiser's link (:class:`~companion.club.organiser.Organiser`); nobody
        on a dashboard without a state dir."""
        return self.organiser is not None and self.organiser.is_organiser(request)

    def _changed(self, snapshot: dict[str, Any]) -> None:  # the dashboard's thread
        from companion.remote.web.source import Change

        self.tick += 1
        self.source.hub.publish(Change(self.tick, None, None))

    def asgi(self) -> Any:
        from starlette.routing import Route

        from companion.remote.web.asgi import build_app

        routes = [Route("/", self.page), Route("/api/club", self.api),
                  Route("/api/club/stream", self.stream),
                  Route("/api/club/held/{ident:int}/{decision}", self.decide,
                        methods=["POST"]),
                  Route("/api/club/devices/{ident:int}/move", self.move, methods=["POST"]),
                  Route("/api/club/seasons/{index:int}/lock", self.lock, methods=["POST"]),
                  *(self.organiser.routes() if self.organiser else [])]
        # The table page's door too: Host, Origin, body type, headers.
        app = build_app(self.source, extra_routes=routes, template_dirs=[TEMPLATES],
                        title="Tabletop Companion club", hosts=self.hosts)
        speak(app.state.site.templates)
        return app

    async def data(self) -> dict[str, Any]:
        """The club now: every table, the league (recomputed only when a stored result
        changed: the dashboard's counter is its key, so an undone and re-finished match
        shows its new winner), and whether the broker is connected."""
        from starlette.concurrency import run_in_threadpool

        from companion.club.seasons import TIE_BREAK, season_table
        from companion.stats import cached_figures, forget

        snapshot = self.dashboard.snapshot()
        locked = snapshot.get("locked") or {}
        # The language too: a season's questions are words ("Ann / Ann: one player?").
        key = (snapshot.get("results", 0), tuple(sorted(locked)), lang.current())
        if self._league is None or self._league[0] != key:
            seasons = list(getattr(self.dashboard, "seasons", []))

            def fresh(store: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
                forget(store)  # the finished mark cannot show a re-finished match
                return cached_figures(store), season_table(store, seasons)
            figures, standings = await run_in_threadpool(self.source.read, fresh)
            self._league = (key, league(figures), with_locks(standings, locked))
        return {"tables": public_tables(snapshot["tables"]), "league": self._league[1],
                "night": await self._night(key),
                "seasons": self._league[2], "tie_break": [_(rule) for rule in TIE_BREAK],
                "broker": {"connected": self._problem() is None,
                           "problem": self._problem()},
                "held": list(snapshot.get("held") or []),
                "refused_devices": list(snapshot.get("refused_devices") or [])}

    async def _night(self, results: int) -> dict[str, Any] | None:
        """The night's round and standings (:func:`companion.club.night.view`), read
        again only when a result or the night's rounds changed."""
        from starlette.concurrency import run_in_threadpool

        from companion.club.night import NIGHT_FILE, night_of, view

        if not hasattr(self.dashboard, "state_dir"):
            return None
        state_dir = Path(self.dashboard.state_dir)
        try:
            stat = (state_dir / NIGHT_FILE).stat()
            mark: Any = (results, stat.st_mtime_ns, stat.st_size, night_of(time.time()))
        except OSError:
            return None
        if self._night_view is None or self._night_view[0] != mark:
            night = await run_in_threadpool(
                self.source.read, lambda store: view(state_dir, store, mark[3]))
            self._night_view = (mark, night)
        return self._night_view[1]

    def _problem(self) -> str | None:
        """Why the dashboard is not connected to the broker (None: it is)."""
        return getattr(self.dashboard, "problem", None)

    async def live_html(self, request: Any) -> str:
        """The live part of the page, rendered once per change and shared by every
        open page (twenty viewers cost one render, not twenty), off the event loop: a
        big night's page takes tens of milliseconds to render, which no other page's
        stream should wait for."""
        # The results stored so far too: they are the API's as soon as a batch is
        # committed, a tick only at the next snapshot (up to 0.1 s later), and a page
        # read between the two showed the round unfinished that /api/club had finished.
        key = (self.tick, self.dashboard.snapshot().get("results"), self._problem(),
               lang.current())
        entry = self._html
        if entry is None or entry[0] != key or entry[1].done() and (
                entry[1].cancelled() or entry[1].exception() is not None):
            entry = self._html = (key, asyncio.ensure_future(self._render(request)))
        if entry[1].done():
            return entry[1].result()
        return await asyncio.shield(entry[1])  # a viewer leaving cancels only its wait

    async def _render(self, request: Any) -> str:
        from starlette.concurrency import run_in_threadpool

        template = request.app.state.site.templates.get_template("_club_live.html")
        return await run_in_threadpool(template.render, **await self.data())

    async def page(self, request: Any) -> Any:
        site = request.app.state.site
        site.check_read(request)
        return site.render(request, "club.html", live=await self.live_html(request),
                           **(self.organiser.context(request) if self.organiser
                              else {"organiser": None}))

    async def decide(self, request: Any) -> Any:
        """The organiser accepts or refuses a held match."""
        decision = {"accept": "accepted", "refuse": "refused"}.get(
            request.path_params["decision"])
        if decision is None:
            from starlette.responses import JSONResponse

            return JSONResponse({"error": _("accept or refuse")}, status_code=404)
        ident = request.path_params["ident"]
        return await self._organiser_call(
            request, lambda receiver: receiver.organiser(ident, decision),
            _("no such match waits for the organiser"), {"decision": decision})

    async def move(self, request: Any) -> Any:
        """The organiser moves a refused device to the table it spoke for."""
        ident = request.path_params["ident"]
        return await self._organiser_call(
            request, lambda receiver: receiver.move_refused(ident),
            _("no such device waits for the organiser"), {})

    async def lock(self, request: Any) -> Any:
        """The organiser locks a season: its standings stay as they are now."""
        seasons = list(getattr(self.dashboard, "seasons", []))
        index = request.path_params["index"]
        season = seasons[index] if 0 <= index < len(seasons) else None
        return await self._organiser_call(
            request, lambda receiver: season is not None and receiver.lock(season),
            _("no such season, or it is locked already"), {"locked": getattr(season, "name", "")})

    async def _organiser_call(self, request: Any, fn: Any, missing: str,
                              done_body: dict[str, Any]) -> Any:
        """Run the organiser's ``fn(receiver)`` on the dashboard's thread (the
        organiser's browser only: the page's door has checked the Origin and the body's
        type already); 404 ``missing`` when it returns False."""
        from starlette.responses import JSONResponse

        request.app.state.site.check_read(request)
        if not self.is_organiser(request):
            return JSONResponse({"error": _("only the organiser decides (open the "
                                            "organiser's link companion club printed, or "
                                            "use companion club --review / --accept / "
                                            "--refuse)")},
                                status_code=403)
        loop = asyncio.get_running_loop()
        done: asyncio.Future[bool] = loop.create_future()
        self.dashboard.call(lambda receiver: loop.call_soon_threadsafe(
            done.set_result, bool(fn(receiver))))
        try:
            found = await asyncio.wait_for(done, 10.0)
        except TimeoutError:
            return JSONResponse({"error": _("the dashboard did not answer")}, status_code=503)
        if not found:
            return JSONResponse({"error": missing}, status_code=404)
        return JSONResponse({"ok": True, **done_body})

    async def api(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        request.app.state.site.check_read(request)
        return JSONResponse(await self.data())

    async def stream(self, request: Any) -> Any:
        from companion.remote.web.stream import event_stream, hub_changes, keepalive_text, sse

        request.app.state.site.check_read(request)
        hub = self.source.hub
        queue = hub.subscribe()

        async def view() -> str:
            html = await self.live_html(request)
            return sse(json.dumps({"html": html, "seq": self.tick, "match_id": None}),
                       event="view")

        async def messages() -> Any:
            yield await view()
            async for change in hub_changes(queue, KEEPALIVE):
                if change is None:
                    yield keepalive_text(KEEPALIVE)  # says how often: the page's watchdog
                    continue
                await asyncio.sleep(MIN_GAP)  # let a burst of changes settle
                while not queue.empty():
                    if queue.get_nowait() is None:
                        return
                yield await view()

        return event_stream(messages(), lambda: hub.unsubscribe(queue))


def serve(dashboard: Dashboard, listen: str, hosts: tuple[str, ...] = ()) -> Any:
    """The club page on ``listen`` (``HOST:PORT``), answering to this machine's names
    and ``hosts``; a started :class:`~companion.remote.web.server.WebServer`
    (``.stop()`` it)."""
    from companion.errors import CompanionError
    from companion.remote.web.server import WebServer, bind
    from companion.store import Store

    sock = bind(listen)
    page = ClubPage(dashboard, Store(dashboard.db_path, readonly=True), hosts)
    server = WebServer(page.asgi, sock, page.source).start()
    server.organiser_link = page.organiser.link(server.url)
    stop_serving = server.stop

    def stop(timeout: float = 5.0) -> None:  # the page, then the organiser's seat worker
        stop_serving(timeout)
        page.organiser.close()
    server.stop = stop
    server.ready.wait()
    if server.failed:
        page.organiser.close()
        raise CompanionError(_("club page: {problem}").format(problem=server.failed))
    return server
