"""A player's page: their figures, everyone they played with (head-to-head), their
rival and nemesis, and their matches. Plain functions of a store, like the other page
data (:mod:`companion.remote.web.asgi`), so the club dashboard gets them too."""

from __future__ import annotations

from typing import Any

from companion.errors import RemoteError
from companion.lang import _
from companion.names import player_key

#: Longer than any name the roster takes (names.py caps them far below): refused early.
NAME_MAX = 64


def player_details(store: Any, name: str, matches: list[dict[str, Any]]) -> dict[str, Any]:
    """``name`` (any spelling of the player) with ``figures`` (``companion stats
    --player NAME --json``), ``opponents`` (a head-to-head per opponent, most shared
    matches first), ``rival`` and ``nemesis`` (:func:`companion.stats.rival_and_nemesis`)
    and ``matches`` (their finished and abandoned matches, newest first: ``matches``,
    the history rows with them); NOTFOUND for a name the roster does not have and no
    match has."""
    from companion.stats import figures, opponents, rival_and_nemesis, without_unplayed

    wanted = name.strip()
    key = player_key(wanted)  # one player in any spelling (companion.names.player_key)
    roster = store.roster()
    on_roster = [known for known in roster if known == wanted] or [
        known for known in roster if player_key(known) == key]
    played = [p for m in matches for p in m["players"] if player_key(p) == key]
    shown = on_roster[0] if on_roster else (played[0] if played else None)
    if shown is None:
        raise RemoteError("NOTFOUND", _("no player {name}").format(name=repr(wanted)))
    rows = opponents(store, shown)
    # Only games the player finished: one started and never finished is no "0 played".
    return {"name": shown, "figures": without_unplayed(figures(store, player=shown)),
            "opponents": rows,
            **rival_and_nemesis(rows), "matches": matches}
