"""The main menu: the five games, Tools, History and Settings."""

from __future__ import annotations

import importlib

from companion import __version__
from companion.games import GAMES, GameInfo, available
from companion.ui.canvas import COLUMNS
from companion.ui.resume import resume_offer, unfinished_first
from companion.ui.screen import (
    Context,
    Lines,
    Menu,
    MenuItem,
    Message,
    Screen,
    wrap,
)
from companion.ui.tools import tools_menu


def home_menu(ctx: Context | None = None) -> Menu:
    """The main menu, the root of every other screen."""
    items = [MenuItem(info.title, _game_opener(info), note="" if _playable(info.game_id)
                      else "soon") for info in GAMES if info.in_menu]
    items += [
        MenuItem("Tools", lambda ctx, menu: tools_menu(menu)),
        MenuItem("History", lambda ctx, menu: _history(ctx, menu)),
        MenuItem("Settings", lambda ctx, menu: settings_menu(ctx, menu)),
    ]
    return Menu("Tabletop Companion", items)


def start_screen(ctx: Context) -> Screen:
    """What the device shows when it starts: a notice if the game log had a problem,
    then the offer to resume an unfinished game (also when the log can only be read),
    then the main menu."""
    home = home_menu(ctx)
    after = resume_offer(ctx, home) or home
    if ctx.notice:
        return Message("Game log", wrap(ctx.notice), after)
    return after


def _history(ctx: Context, menu: Screen) -> Screen:
    # Imported when opened: the figures bring openskill, which the start need not pay for.
    from companion.ui.history import history_menu

    return history_menu(ctx, menu)


def _playable(game_id: str) -> bool:
    from companion.ui.games import has_screens

    return available(game_id) and has_screens(game_id)


def _game_opener(info: GameInfo):
    def open_game(ctx: Context, menu: Screen) -> Screen:
        if not _playable(info.game_id):
            return Message(info.title, ["Coming soon.", "Tools work for any", "game meanwhile."],
                           menu)
        flows = importlib.import_module("companion.ui.games")
        return unfinished_first(ctx, menu,
                                lambda: flows.setup_screen(ctx, info.game_id, menu))

    return open_game


def settings_menu(ctx: Context, parent: Screen) -> Screen:
    """Settings: pair a phone with the web page, the phones paired, and what the
    device is configured as."""
    from companion.ui.pair import pair_screen, paired_phones

    return Menu("Settings", [MenuItem("Pair a phone", pair_screen),
                             MenuItem("Paired phones", paired_phones),
                             MenuItem("This device", settings_screen)], parent)


def _pieces(text: str, width: int) -> list[str]:
    """``text`` in pieces of ``width`` characters, to show whole over several lines."""
    return [text[start : start + width] for start in range(0, len(text), width)] or [""]


def settings_screen(ctx: Context, parent: Screen) -> Screen:
    """What the device is configured as (edit the config file to change it)."""
    config = ctx.config
    if config is None:
        return Lines("Settings", [f"Version {__version__}"], parent)
    d, b, idle = config.display, config.buttons, config.idle
    where = f"I2C {d.i2c_port} 0x{d.i2c_address:02X}" if d.interface == "i2c" else "SPI"
    lines = [
        f"Display {d.driver}",
        where,
        f"Rotate {d.rotate * 90}",
        f"Contrast {d.contrast}",
        f"Up {b.up} Down {b.down} OK {b.ok}",
        f"Back {b.back} Roll {b.roll}",
        f"Long press {b.hold_time:g} s",
        f"Dim after {idle.dim_after:g} s",
        f"Blank after {idle.blank_after:g} s",
        # a port's URL or the page's address may be longer than a line: whole, as the path
        *_pieces(f"Serial {config.serial.url or 'off'}", COLUMNS),
        *_pieces(f"Web {getattr(ctx, 'web_address', '') or 'off'}", COLUMNS),
        f"Version {__version__}",
        "Config file:",
        # a path is cut nowhere: it goes on over as many lines as it takes
        *_pieces(config.source or "(defaults)", COLUMNS),
    ]
    return Lines("Settings", lines, parent)
