"""Which screens play each game: the main menu, resume and ``--new`` ask here.

Each game's screens live in one module of ``companion/ui``: a setup screen (players,
options) and the table screen (a :class:`~companion.ui.play.GameScreen`). ``SCREENS``
names them; a game whose screen module is not there yet shows "coming soon".
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import NamedTuple

from companion.errors import UnknownGame
from companion.lang import _
from companion.ui.screen import Context, Screen


class GameScreens(NamedTuple):
    module: str
    setup: str
    table: str


SCREENS: dict[str, GameScreens] = {
    "final-count": GameScreens("companion.ui.final_count.table", "FinalCountSetup",
                               "FinalCountTable"),
    "full-counter": GameScreens("companion.ui.full_counter.table", "FullCounterSetup",
                                "FullCounterTable"),
    "card-down": GameScreens("companion.ui.card_down.table", "CardDownSetup", "CardDownTable"),
    "block-lottery": GameScreens("companion.ui.block_lottery.setup", "BlockLotterySetup",
                                 "BlockLotteryTable"),
    "count-up-21": GameScreens("companion.ui.count_up.table", "CountUpSetup", "CountUpTable"),
    "scoreboard": GameScreens("companion.ui.scoreboard.table", "ScoreboardSetup",
                              "ScoreboardTable"),
}


def has_screens(game_id: str) -> bool:
    """True when the game's screens are built."""
    screens = SCREENS.get(game_id)
    return screens is not None and importlib.util.find_spec(screens.module) is not None


def _screens(game_id: str) -> tuple[object, GameScreens]:
    if not has_screens(game_id):
        # Translators: {game} is the game's code in quotes ('final-count').
        raise UnknownGame(_("no screens for {game} yet").format(game=repr(game_id)))
    screens = SCREENS[game_id]
    return importlib.import_module(screens.module), screens


def setup_screen(ctx: Context, game_id: str, parent: Screen | None,
                 names: list[str] | None = None) -> Screen:
    """The setup screen of ``game_id`` (players, options): ``Setup(parent, names)``,
    seating the roster's most recent players when no ``names`` are given."""
    module, screens = _screens(game_id)
    setup = getattr(module, screens.setup)
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
    module, screens = _screens(game_id)
    return getattr(module, screens.table)


def table_screen(session, home: Screen | None) -> Screen:
    """The main screen of a session's game (for resume and ``--new``):
    ``Table(session, home)``."""
    return table_class(session.match.game_id)(session, home)
