"""The main menu: the five games, Tools, History and Settings."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

from companion import __version__
from companion.games import GAMES, GameInfo, available
from companion.ui.canvas import Canvas
from companion.ui.screen import (
    MENU_ROWS,
    Confirm,
    Context,
    Menu,
    MenuItem,
    Message,
    Press,
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


def resume_offer(ctx: Context, home: Screen) -> Screen | None:
    """"Resume Final Count, hand 4?" for the newest unfinished match, if any: a game
    left while it was not saved (:attr:`Context.parked`), else the log's newest. While
    the log can only be read it is offered all the same, to look at or to play on
    unsaved (written once saving works again)."""
    session = _waiting(ctx, home)
    if session is None or isinstance(session, Message):
        return session
    state = session.match.state()
    # Where the game stands, in the game's own word: hand, round or game number.
    where = next((f", {word} {state[key]}?" for key, word in
                  (("hand", "hand"), ("round", "round"), ("game_number", "game"))
                  if isinstance(state.get(key), int)), "?")
    question = f"Resume {session.title}" + where
    names = ", ".join(session.match.players)
    lines = [*wrap(question), *wrap(names)]
    if not session.saved:  # the last line says what playing on means now
        lines = [*lines[:3], "Not saved for now"]
    return Confirm("Unfinished game", lines[:4], lambda ctx: _resume(ctx, session, home), home)


def waiting_session(ctx: Context) -> Any:
    """The session of the game waiting to be resumed, None when there is none: a game
    left while it was not saved (:attr:`Context.parked`), else the log's newest
    unfinished one (CompanionError when it cannot be read). The buttons and the second
    ways in (:mod:`companion.remote.commands`) ask this same question."""
    if ctx.parked is not None:
        return ctx.parked
    from companion.session import Session

    record = None if ctx.store is None else ctx.store.unfinished()
    if record is None:
        return None
    session = Session.resume(ctx.store, record.id, ctx.listeners)
    if session.match.over:  # the power went between the last event and finishing
        if session.saved:
            ctx.store.finish(record.id, session.match.result())
        return None
    return session


def _waiting(ctx: Context, home: Screen) -> Any:
    """:func:`waiting_session`, or a message over ``home`` why it cannot be read."""
    from companion.errors import CompanionError

    try:
        return waiting_session(ctx)
    except CompanionError as err:
        return Message("Cannot resume", wrap(str(err)), home)


def _resume(ctx: Context, session: Any, home: Screen) -> Screen:
    from companion.ui.games import table_screen

    if ctx.parked is session:
        ctx.parked = None  # on the screen again
    return table_screen(session, home).route(ctx)


def unfinished_first(ctx: Context, menu: Screen, then: Callable[[], Screen]) -> Screen:
    """Before a new game from the buttons: when a game is unfinished, ask (resume it,
    or end it and go on to ``then``), so a new game never pushes one out of view."""
    session = _waiting(ctx, menu)
    if session is None or isinstance(session, Message):
        return session or then()

    def end_it(ctx: Context, _menu: Screen) -> Screen:
        session.abandon()  # a read-only log notes it, to be written later
        if ctx.parked is session:
            ctx.parked = None
        return then()

    return Menu("Unfinished game", [
        MenuItem(f"Resume {session.title}", lambda ctx, _menu: _resume(ctx, session, menu)),
        MenuItem("End it, new game", end_it),
    ], menu)


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


class Lines(Screen):
    """Read-only lines that scroll with UP/DOWN."""

    hint = "UP/DN scroll  OK back"

    def __init__(self, title: str, lines: Sequence[str], parent: Screen | None = None):
        super().__init__(parent)
        self.title = title
        self.lines = list(lines) or ["(nothing yet)"]
        self.top = 0

    def press(self, ctx: Context, press: Press) -> Screen:
        last_top = max(0, len(self.lines) - MENU_ROWS)
        if press.button == "up":
            self.top = 0 if press.long else max(0, self.top - 1)
            return self
        if press.button == "down":
            self.top = last_top if press.long else min(last_top, self.top + 1)
            return self
        if press.button in ("ok", "roll") and self.parent is not None:
            return self.parent.returned(ctx)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        more = f"{self.top + 1}/{len(self.lines)}" if len(self.lines) > MENU_ROWS else ""
        canvas.title(self.title, more)
        canvas.paragraph(self.lines[self.top : self.top + MENU_ROWS])


def settings_menu(ctx: Context, parent: Screen) -> Screen:
    """Settings: pair a phone with the web page, and what the device is configured as."""
    from companion.ui.pair import pair_screen

    return Menu("Settings", [MenuItem("Pair a phone", pair_screen),
                             MenuItem("This device", settings_screen)], parent)


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
        f"Rotate {d.rotate * 90}  contrast {d.contrast}",
        f"Up {b.up} Down {b.down} OK {b.ok}",
        f"Back {b.back} Roll {b.roll}",
        f"Long press {b.hold_time:g} s",
        f"Dim after {idle.dim_after:g} s",
        f"Blank after {idle.blank_after:g} s",
        f"Serial {config.serial.url or 'off'}",
        f"Web {getattr(ctx, 'web_address', '') or 'off'}",
        f"Version {__version__}",
        "Config file:",
        config.source or "(defaults)",
    ]
    return Lines("Settings", lines, parent)
