"""Resuming: which game waits to be resumed, the offer at start, and the question
before a new game while one is unfinished.

Below both the main menu (:mod:`companion.ui.home`) and the Tools (whose scoreboard is
a game of its own), which both ask before starting a new game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.lang import pgettext
from companion.ui.canvas import fitting
from companion.ui.screen import Confirm, Context, Menu, MenuItem, Message, Screen, wrap

__all__ = ["resume_offer", "unfinished_first", "waiting_session"]


def resume_offer(ctx: Context, home: Screen) -> Screen | None:
    """"Resume Final Count, hand 4?" for the newest unfinished match, if any: a game
    left while it was not saved (:attr:`Context.parked`), else the log's newest. While
    the log can only be read it is offered all the same, to look at or to play on
    unsaved (written once saving works again)."""
    session = _waiting(ctx, home)
    if session is None or isinstance(session, Message):
        return session
    names = ", ".join(session.match.players)
    lines = [*wrap(_question(session.title, session.match.state())), *wrap(names)]
    if not session.saved:  # the last line says what playing on means now
        lines = [*lines[:3], pgettext("screen 21", "Not saved for now")]
    return Confirm(pgettext("screen 21", "Unfinished game"), lines[:4],
                   lambda ctx: _resume(ctx, session, home), home)


def _question(game: str, state: dict) -> str:
    """"Resume Final Count, hand 4?": where the game stands, in the game's own word
    (hand, round or game number); two lines of the question, the names under them."""
    # Translators: {game} is a game's name as its rule sheet prints it.
    questions = (("hand", pgettext("screen 21x2", "Resume {game}, hand {n}?")),
                 ("round", pgettext("screen 21x2", "Resume {game}, round {n}?")),
                 ("game_number", pgettext("screen 21x2", "Resume {game}, game {n}?")))
    for key, question in questions:
        if isinstance(state.get(key), int):
            return question.format(game=game, n=state[key])
    return pgettext("screen 21x2", "Resume {game}?").format(game=game)


def waiting_session(ctx: Context) -> Any:
    """The session of the game waiting to be resumed, None when there is none: a game
    left while it was not saved (:attr:`Context.parked`), else the log's newest
    unfinished one (CompanionError when it cannot be read). The buttons and the second
    ways in (:mod:`companion.remote.commands`) ask this same question. A match of a game
    this device does not know (now: unregistered, a club's own game gone) waits for
    nobody: it stays in the log as it was, and never stands in a new game's way."""
    if ctx.parked is not None:
        return ctx.parked
    from companion import games
    from companion.session import Session

    record = None if ctx.store is None else ctx.store.unfinished()
    if record is None or not games.available(record.game_id):
        return None
    session = Session.resume(ctx.store, record.id, ctx.listeners, ctx.new_secret())
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
        return Message(pgettext("screen 21", "Cannot resume"), wrap(str(err)), home)


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

    # "Resume Final Card-Down" where the row has room for the game's name; else the
    # name is the title and the row says "Resume" (a row is never cut).
    # Translators: a menu row, tried first: {game} is a game's name (the longest,
    # "Final Card-Down", is 15 letters); "Resume" alone follows it when it does not fit.
    whole = pgettext("screen 21 (if it fits)", "Resume {game}").format(game=session.title)
    row = fitting(whole, pgettext("screen 21", "Resume"))
    title = pgettext("screen 21", "Unfinished game") if row == whole else session.title
    return Menu(title, [
        MenuItem(row, lambda ctx, _menu: _resume(ctx, session, menu)),
        MenuItem(pgettext("screen 21", "End it, new game"), end_it),
    ], menu)
