"""The rule engines, one module per game, and the registry that names every game.

Each game is a :class:`~companion.games.base.Match` subclass. ``GAMES`` lists every game
the device shows in its menu, in menu order: a game is its engine module (here), its
screens package (:mod:`companion.ui`, one package a game: the setup and the table, the
phone's pads, its words aloud, its Help) and its one line here, which names both by
module path, so nothing else anywhere keeps a list of games (docs/adding-a-game.md)::

    >>> from companion.games import new_match
    >>> new_match("final-count", ["Ann", "Bob"], {"hit_goal": True}).options["hit_goal"]
    True

A game that lives outside the package (a test's, a club's own) joins with
:func:`register` and leaves with :func:`unregister`.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from companion.errors import UnknownGame, written
from companion.games.base import Event, Expect, Match
from companion.lang import lazy, pgettext

__all__ = ["GAMES", "Event", "Expect", "Match", "GameInfo", "engine", "new_match", "register",
           "replay", "unit", "unregister"]


class GameInfo(NamedTuple):
    """A game: its id, its title, where its engine lives (``module``: its ``MATCH`` is
    the Match subclass), where its screens live (``screens``: a package or module whose
    ``SCREENS`` is a :class:`companion.ui.games.GameScreens`), whether the main menu
    lists it (the scoreboard is for any other game and lives under Tools), and what its
    scores are counted by at the table: "hand", "round" or "game"."""

    game_id: str
    #: The games keep the names their rule sheets print; the Scoreboard's is a lazy
    #: message, said in the language of the moment (read it with :func:`title`).
    title: str | lazy
    module: str
    screens: str
    in_menu: bool = True
    unit: str = "round"


#: Every game, in menu order: the one place a game is named with its engine and screens.
GAMES: list[GameInfo] = [
    GameInfo("final-count", "Final Count", "companion.games.final_count",
             "companion.ui.final_count", unit="hand"),
    GameInfo("full-counter", "Full Counter", "companion.games.full_counter",
             "companion.ui.full_counter", unit="game"),
    GameInfo("card-down", "Final Card-Down", "companion.games.card_down",
             "companion.ui.card_down", unit="game"),
    GameInfo("block-lottery", "Block Lottery", "companion.games.block_lottery",
             "companion.ui.block_lottery"),
    GameInfo("count-up-21", "Count Up 21", "companion.games.count_up",
             "companion.ui.count_up", unit="game"),
    # Not a game with a rule sheet but the device's own tool: its name is translated,
    # the same words under Tools, on the table's screen, in History and on the pages.
    GameInfo("scoreboard", lazy("screen 21", "Scoreboard"), "companion.games.scoreboard",
             "companion.ui.scoreboard", in_menu=False),
]


def register(info: GameInfo) -> GameInfo:
    """Add a game that lives outside this package: its line, as the games' own above,
    goes after the others (the menu lists it last). ValueError when its id is taken or
    is not a game id (lowercase letters, digits and dashes, as events and the command
    line write it), or when its engine, built, gives another id or title: a
    programmer's mistake, said at once."""
    if not _GAME_ID.fullmatch(info.game_id):
        raise ValueError(f"a game id is lowercase letters, digits and dashes, not "
                         f"{info.game_id!r}")
    if any(known.game_id == info.game_id for known in GAMES):
        raise ValueError(f"a game {info.game_id!r} is registered already")
    if importlib.util.find_spec(info.module) is not None:  # built: it says the same
        match = importlib.import_module(info.module).MATCH
        for field, said in (("game id", match.game_id), ("title", match.title)):
            if said != (info.game_id if field == "game id" else str(info.title)):
                raise ValueError(f"{info.module}'s {field} is {said!r}, not its line's")
    GAMES.append(info)
    return info


def unregister(game_id: str) -> None:
    """Take back a game :func:`register` added (nothing when it is not there)."""
    GAMES[:] = [info for info in GAMES if info.game_id != game_id]


def info(game_id: str) -> GameInfo | None:
    """The registry line of ``game_id`` (None for a game this device does not know)."""
    return next((line for line in GAMES if line.game_id == game_id), None)


#: What a game id may be ("final-count", "count-up-21").
_GAME_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def engine(game_id: str) -> type[Match]:
    """The Match subclass for ``game_id``; UnknownGame if there is none (yet)."""
    for info in GAMES:
        if info.game_id == game_id:
            if not available(game_id):
                raise UnknownGame(pgettext("screen 21xN", "{game} is coming soon")
                                  .format(game=info.title))
            module = importlib.import_module(info.module)
            return module.MATCH
    known = ", ".join(info.game_id for info in GAMES)
    raise UnknownGame(pgettext("screen 21xN", "no game {game} (games: {known})")
                      .format(game=written(game_id), known=known))


def unit(game_id: str) -> str:
    """What ``game_id``'s scores are counted by: "hand", "round" or "game" ("round" for
    a game no longer known)::

        >>> unit("final-count"), unit("block-lottery"), unit("count-up-21")
        ('hand', 'round', 'game')
    """
    return next((info.unit for info in GAMES if info.game_id == game_id), "round")


def available(game_id: str) -> bool:
    """True if the engine for ``game_id`` is built (its module exists)."""
    return any(info.game_id == game_id and importlib.util.find_spec(info.module) is not None
               for info in GAMES)


def title(game_id: str) -> str:
    """The game's name at the table ("Final Count"); the id itself for a game this
    device does not know (a match imported from a newer one)."""
    return next((str(info.title) for info in GAMES if info.game_id == game_id), game_id)


def new_match(
    game_id: str, players: Sequence[str], options: Mapping[str, Any] | None = None
) -> Match:
    """Start a match of ``game_id`` with these players and options."""
    return engine(game_id)(players, options)


def replay(
    game_id: str,
    players: Sequence[str],
    options: Mapping[str, Any] | None,
    events: Sequence[Event],
) -> Match:
    """Rebuild a match from its event log."""
    return engine(game_id).replay(players, options, events)
