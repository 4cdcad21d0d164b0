"""A game's screens, as its registry line names them: the main menu, resume, ``--new``,
the phone's pads, Help and the words said aloud all ask here.

Each game's screens live in one package (or one module) of ``companion/ui``, named by
its line in :data:`companion.games.GAMES`; its ``SCREENS`` is a :class:`GameScreens`:
the setup screen (players, options), the table screen (a
:class:`~companion.ui.play.GameScreen`), and what else the game shows and says. A game
whose screens are not there yet shows "coming soon" (docs/adding-a-game.md).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from companion import games
from companion.errors import UnknownGame
from companion.lang import _
from companion.ui.screen import Context, Screen


class ScreenWalk(NamedTuple):
    """One way the screen walk (:mod:`companion.commands.inspect`) plays a game, seated
    with the most players it takes: its ``options``, the screens (class names) the walk
    must meet, and the walk's ``seed`` where the default one does not meet them all."""

    options: Mapping[str, Any] = MappingProxyType({})
    reaches: frozenset[str] = frozenset()
    seed: int | None = None


class GameScreens(NamedTuple):
    """Everything a game shows and says at the table, the ``SCREENS`` of its package.

    ``setup``: the setup screen class, ``Setup(parent, names)`` (a
    :class:`~companion.ui.play.SetupScreen`); ``table``: the table screen class,
    ``Table(session, home)``, whose ``all_keys`` are the game's buttons for Help;
    ``pads``: ``pads(match, expect) -> {type: fields}``, what a phone offers for each
    event the match takes now (:mod:`companion.ui.pads`); ``labels``: event type ->
    (its pad's name, its Send button), lazy messages, for a type of the game's own that
    the pads do not name already; ``words``: the class of its
    words said aloud (a :class:`~companion.ui.spoken.GameWords`; None: only what every
    game says); ``guide``: its Help (a :class:`~companion.ui.guides.Guide`; None: no
    help page); ``worst``: placeholder -> the largest value the game shows there, or
    the words it can be (lazy messages: the longest as the language says them), for
    lang-check (:mod:`companion.commands.worst`); ``narrower``: message -> placeholder
    -> the largest value that one message shows, where it is less than ``worst``;
    ``walks``: the ways lang-check's screen walk plays the game (:class:`ScreenWalk`;
    none given: one walk with the default options)."""

    setup: type
    table: type
    pads: Callable[[Any, Any], dict[str, list[dict[str, Any]]]] | None = None
    labels: Mapping[str, tuple[Any, Any]] = MappingProxyType({})
    words: type | None = None
    guide: Any = None
    worst: Mapping[str, str | tuple[Any, ...]] = MappingProxyType({})
    narrower: Mapping[str, Mapping[str, str]] = MappingProxyType({})
    walks: tuple[ScreenWalk, ...] = ()


def has_screens(game_id: str) -> bool:
    """True when the game's screens are built."""
    line = games.info(game_id)
    return line is not None and importlib.util.find_spec(line.screens) is not None


def game_screens(game_id: str) -> GameScreens:
    """The ``SCREENS`` of ``game_id``'s screens package; UnknownGame when there are none."""
    if not has_screens(game_id):
        # Translators: {game} is the game's code in quotes ('final-count').
        raise UnknownGame(_("no screens for {game} yet").format(game=repr(game_id)))
    return importlib.import_module(games.info(game_id).screens).SCREENS


def setup_screen(ctx: Context, game_id: str, parent: Screen | None,
                 names: list[str] | None = None) -> Screen:
    """The setup screen of ``game_id`` (players, options): ``Setup(parent, names)``,
    seating the roster's most recent players when no ``names`` are given."""
    setup = game_screens(game_id).setup
    if names is None:
        names = setup.recent_players(ctx)
    screen = setup(parent, names)
    timer = getattr(ctx.config, "timer", None)
    if timer is not None:  # [timer]: this game's Timer row starts there
        screen.timer_turn = screen.configured_turn = timer.turn
        screen.timer_mode = timer.mode
    return screen


def table_class(game_id: str) -> type:
    """The class of the main screen of ``game_id`` (its ``all_keys`` are the game's
    buttons for Help)."""
    return game_screens(game_id).table


def table_screen(session, home: Screen | None) -> Screen:
    """The main screen of a session's game (for resume and ``--new``):
    ``Table(session, home)``."""
    return table_class(session.match.game_id)(session, home)
