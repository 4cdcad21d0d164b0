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

        from companion.remote.web.asgi import Refusal

        if not hmac.compare_digest(request.query_params.get("token", ""), self.token):
            raise Refusal(401, _("not the organiser's link (companion club printed it)"))
        reply = RedirectResponse("/", status_code=303)
        reply.set_cookie(COOKIE, self.token, httponly=True, samesite="strict", path="/")
        return reply

    def context(self, request: Any) -> dict[str, Any]:
        """What the page's form needs: nothing for anyone but the organiser."""
        if not self.is_organiser(request):
            return {"organiser": None}
        from companion.club import night as nights
        from companion.games import GAMES, available

        try:
            current = nights.load(self.state_dir, nights.night_of(time.time())).current
        except nights.NightError:
            current = None
        present = [name for seat in current.seats for name in seat.players] if current else []
        tables = len(current.seats) if current else \
            max(1, len(nights.known_tables(self.state_dir)))
        return {"organiser": {
            "games": [(info.game_id, str(info.title)) for info in GAMES
                      if available(info.game_id)],
            "game": current.game if current else "final-count",
            "present": ", ".join(present), "tables": tables}}

    async def seat(self, request: Any) -> Any:
        """``POST /api/club/seat``: the organiser seats the night's next round."""
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import JSONResponse

        from companion.club.night import NightError
        from companion.errors import BadSetup
        from companion.names import BadName, check_players
        from companion.remote.web.asgi import Refusal, read_json

        if not self.is_organiser(request):
            raise Refusal(401, _("only the organiser seats a round (open the organiser's "
                                 "link companion club printed)"))
        body = await read_json(request, {"game": str, "present": (str, list), "tables": int,
                                         "seed": int}, required=("game", "present", "tables"))
        present = body["present"]
        if isinstance(present, str):
            present = [name for line in present.splitlines() for name in line.split(",")
                       if name.strip()]
        if not 1 <= body["tables"] <= 500 or not 0 <= body.get("seed", 0) < 2**32:
            raise Refusal(400, _("tables are 1 to 500, a seed 0 to 4294967295"))
        try:
            names = check_players(present)
            rnd = await run_in_threadpool(self._seat, body["game"], names, body["tables"],
                                          body.get("seed"))
        except (NightError, BadName, BadSetup) as err:
            raise Refusal(400, str(err)) from None
        return JSONResponse(rnd)

    def _seat(self, game: str, names: list[str], tables: int, seed: int | None) -> Any:
        from companion.club.rounds import seat_round_here

        return seat_round_here(self.state_dir, game, names, tables, seed).as_json()
