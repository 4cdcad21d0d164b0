"""The organiser on the club page: seating the night's next round from a browser.

The club page is open to the room (docs/web.md, "Safe on a LAN"); seating a round is the
organiser's alone. ``companion club --web`` prints the organiser's link once
(``/organiser?token=...``; the token is kept in the dashboard's state dir, readable by
its user only); opening it sets a cookie on that browser, whose club page then has the
form "Seat the next round" (game, who is present, how many tables). The form posts
``POST /api/club/seat {"game", "present", "tables", "seed"}`` (JSON, through the page's
door: this site only), which seats and stores the round exactly as ``companion club
--seat`` does; the dashboard sends it to the tables. The form's script is the web
page's ``static/club.js``.
"""

from __future__ import annotations

import hmac
import os
import secrets
import time
from pathlib import Path
from typing import Any

from companion import lang
from companion.errors import NightError, Refusal
from companion.lang import _

TOKEN_FILE = "club-organiser.token"
COOKIE = "companion_organiser"


def organiser_token(state_dir: Path) -> str:
    """The organiser's token (made once, kept in ``state_dir``, mode 600)."""
    path = Path(state_dir) / TOKEN_FILE
    try:
        token = path.read_text().strip()
        if len(token) >= 32:
            return token
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(token + "\n")
    return token


class Organiser:
    """The organiser's routes and what the page shows them, over a dashboard."""

    def __init__(self, dashboard: Any):
        self.dashboard = dashboard
        self.state_dir = Path(dashboard.state_dir)
        self.token = organiser_token(self.state_dir)
        self.worker = SeatWorker()

    def link(self, base: str) -> str:
        return f"{base}/organiser?token={self.token}"

    def routes(self) -> list[Any]:
        from starlette.routing import Route

        return [Route("/organiser", self.enter),
                Route("/api/club/seat", self.seat, methods=["POST"])]

    def is_organiser(self, request: Any) -> bool:
        return hmac.compare_digest(request.cookies.get(COOKIE, ""), self.token)

    async def enter(self, request: Any) -> Any:
        """``/organiser?token=T``: this browser is the organiser's from now on."""
        from starlette.responses import RedirectResponse

        if not hmac.compare_digest(request.query_params.get("token", ""), self.token):
            raise Refusal(401, _("not the organiser's link (companion club printed it)"))
        reply = RedirectResponse("/", status_code=303)
        reply.set_cookie(COOKIE, self.token, httponly=True, samesite="strict", path="/")
        return reply

    def context(self, request: Any) -> dict[str, Any]:
        """What the page's form needs: nothing for anyone but the organiser."""
        if not self.is_organiser(request):
            return {"organiser": None}
        self.worker.start()  # ready (and warm) by the time the form is sent
        from companion.club import night as nights
        from companion.club import tonight
        from companion.games import GAMES, available

        try:
            current = nights.load(self.state_dir, nights.night_of(time.time())).current
        except NightError:
            current = None
        present = [name for seat in current.seats for name in seat.players] if current else []
        club = tonight.ordered(tonight.club_tables(self.state_dir, self.online()))
        # Ticked: the tables of the last round, else the ones online now.
        ticked = {seat.table for seat in current.seats} if current else \
            {table.name for table in club if table.online}
        return {"organiser": {
            "games": [(info.game_id, str(info.title)) for info in GAMES
                      if available(info.game_id)],
            "game": current.game if current else "final-count",
            "present": ", ".join(present),
            "tables": len(current.seats) if current else max(1, len(ticked)),
            "club_tables": [{"name": table.name, "online": bool(table.online),
                             "ticked": table.name in ticked} for table in club]}}

    def online(self) -> set[str]:
        """The tables online now, as the dashboard's snapshot has them."""
        return {name for name, table in self.dashboard.snapshot()["tables"].items()
                if table.get("online")}

    async def seat(self, request: Any) -> Any:
        """``POST /api/club/seat``: the organiser seats the night's next round. The
        names are checked and the round seated off the page's event loop, once: a
        viewer's stream never waits for a big night's seating."""
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import JSONResponse

        from companion.config import valid_table_name
        from companion.remote.web.body import read_json

        if not self.is_organiser(request):
            raise Refusal(401, _("only the organiser seats a round (open the organiser's "
                                 "link companion club printed)"))
        body = await read_json(request, {"game": str, "present": (str, list),
                                         "tables": (int, list), "seed": int},
                               required=("game", "present", "tables"))
        tables = body["tables"]
        if isinstance(tables, int) and not 1 <= tables <= 500 or \
                not 0 <= body.get("seed", 0) < 2**32:
            raise Refusal(400, _("tables are 1 to 500, a seed 0 to 4294967295"))
        if isinstance(tables, list) and not (
                1 <= len(tables) <= 500 and len(set(map(str, tables))) == len(tables) and
                all(isinstance(name, str) and valid_table_name(name) for name in tables)):
            raise Refusal(400, _("tables are 1 to 500 table names, each once"))
        online = await run_in_threadpool(self.online)
        try:
            seated = await self.worker.run(seat_in_worker, lang.current(), self.state_dir,
                                           body["game"], body["present"], tables,
                                           body.get("seed"), online)
        except NightError as err:
            raise Refusal(400, str(err)) from None
        return JSONResponse(seated)

    def close(self) -> None:
        self.worker.close()


def seat_in_worker(language: str, state_dir: Path, game: str, present: str | list[Any],
                   tables: int | list[str], seed: int | None,
                   online: set[str]) -> dict[str, Any]:
    """Seat and store the round (in the seat worker's process), said in ``language``:
    the names checked once, by the one rule for names, then the round
    (:func:`~companion.club.rounds.seat_round_here`)."""
    from companion.club.rounds import seat_round_here

    if lang.current() != language:  # a worker started before [ui] language changed
        lang.use(language)
    if isinstance(present, str):
        present = [name for line in present.splitlines() for name in line.split(",")
                   if name.strip()]
    rnd, said = seat_round_here(state_dir, game, present, tables, seed, online=online)
    return {**rnd.as_json(), **said.as_json()}


def _warm() -> None:
    """What seating needs, loaded once in the worker before the organiser seats."""
    from companion.club import ledger, rounds, tonight  # noqa: F401 - to be ready
    from companion.games import engine
    from companion.names import check_players
    from companion.store import Store  # noqa: F401 - to be ready

    engine("final-count")
    check_players(["Ann", "Bob"])


class SeatWorker:
    """A process of its own that seats the organiser's rounds. The club page's event
    loop and the dashboard share one interpreter: seating 200 names on one of their
    threads holds the lock every Python thread needs, and on a busy machine a thread
    holding it may wait for a core while every open page's stream waits for it. In a
    process of its own it takes a core of its own. Started (and warmed) when the
    organiser first opens the page; a worker that died is started again."""

    def __init__(self) -> None:
        self._pool: Any = None

    def start(self) -> None:
        if self._pool is None:
            import concurrent.futures
            import multiprocessing

            self._pool = concurrent.futures.ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"))
            self._pool.submit(_warm)

    async def run(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` in the worker, awaited without blocking the event loop."""
        import asyncio
        from concurrent.futures.process import BrokenProcessPool

        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            self.start()
            try:
                return await loop.run_in_executor(self._pool, fn, *args)
            except BrokenProcessPool:  # the worker died (killed, out of memory)
                self.close()
                if attempt == 2:
                    raise

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
