"""The commands that only read: the match on the screen (:func:`status`, and
:func:`state` for the page), the game waiting to be resumed, the roster, the history, a
match exported; and the JSON of one event that both mirrors push (:func:`ev_payload`).
They change nothing at the table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.chance import physical
from companion.errors import CompanionError, RemoteError, written
from companion.lang import _, ngettext
from companion.ui.pads import pads

if TYPE_CHECKING:
    from companion.app import App
    from companion.session import Session

#: HISTORY without a number, and the most it gives.
HISTORY_DEFAULT, HISTORY_MAX = 10, 100


def status(app: App) -> dict[str, Any]:
    """The match on the screen (state and what it expects next), or only the screen's
    title outside a game."""
    screen = app.screen
    title = screen.title or type(screen).__name__
    session = app.current_session()
    if session is None:
        return {"screen": title, "game": None}
    match = session.match
    return {
        "screen": title,
        "game": match.game_id,
        "title": session.title,
        "match_id": session.match_id,
        "players": list(match.players),
        "options": dict(match.options),
        "seq": len(match.events),
        "over": match.over,
        "expecting": expecting(match),
        "state": match.state(),
        "timer": app.timer.status(),
    }


def state(app: App) -> dict[str, Any]:
    """The match at the table for the page (``GET /api/state``): ``game``, ``title``,
    ``match_id``, ``players`` (seat order), ``totals``, ``over``, ``winners``, ``turn``
    (whose turn, or None), ``prompt`` (the OLED's one-line prompt), ``seq`` (events so
    far), ``expecting``, ``saved`` (False while nothing can be written), ``timer`` (the
    turn timer, :meth:`companion.timer.TableTimer.status`; None when off); ``{"match":
    None}`` when no game is on the screen."""
    return session_state(app, app.current_session())


def session_state(app: App, session: Session | None) -> dict[str, Any]:
    """:func:`state` of ``session`` (the web page keeps showing a match that just
    finished, after the screen has moved on to its Game over picture)."""
    if session is None:
        return {"match": None, "saved": saving(app)}
    match = session.match
    result = match.result()
    expect = expecting(match)
    return {
        "game": match.game_id,
        "title": session.title,
        "match_id": session.match_id,
        "players": list(match.players),
        "totals": dict(result.get("totals", {})),
        "over": match.over,
        "winners": list(result.get("winners", [])) if match.over else [],
        "turn": expect["player"],
        "prompt": expect["prompt"] if not match.over else _("Game over"),
        "seq": len(match.events),
        "expecting": expect,
        "context": match.context(),
        "pads": pads(match, physical=lambda kind: physical(app.ctx.config, kind)),
        "saved": saving(app),
        # The turn timer follows the game on the screen only.
        "timer": app.timer.status() if session is app.current_session() else None,
    }


def waiting_state(app: App) -> dict[str, Any] | None:
    """The game waiting to be resumed on the device (after a restart, or left while
    unsaved), as the page shows it: ``match_id``, ``game``, ``title``, ``players``,
    ``totals``, ``seq``; None when there is none or the log cannot say."""
    try:
        open_now = open_match(app)
    except CompanionError:
        return None  # the log cannot be read now: the page says no more than it knows
    if open_now is None or open_now["session"] is app.current_session():
        return None
    match = open_now["session"].match
    return {"match_id": open_now["match_id"], "game": match.game_id,
            "title": open_now["title"], "players": list(match.players),
            "totals": dict(match.result().get("totals", {})), "seq": len(match.events)}


def saving(app: App) -> bool:
    """True when what is played now is written to the game log."""
    return app.ctx.store is not None and not app.unsaved()


def players(app: App) -> list[str]:
    """The roster, most recently used first."""
    return store_of(app).roster()


def history(app: App, limit: int = HISTORY_DEFAULT) -> list[dict[str, Any]]:
    """The last ``limit`` finished matches, newest first."""
    return [record.to_json() for record in store_of(app).history(history_limit(limit))]


def history_limit(limit: object) -> int:
    """``limit`` if it is a count :func:`history` gives (1 to HISTORY_MAX), else BADARG
    (the console checks its text with this too, before it queues the command)."""
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= HISTORY_MAX:
        raise RemoteError("BADARG", _("history takes a number from 1 to {n}").format(
            n=HISTORY_MAX))
    return limit


def export_args(ref: object, fmt: object) -> tuple[str, str]:
    """(match, format) as :func:`export` takes them: ``current``, ``last`` or a number,
    and ``jsonl`` or ``csv``; BADARG otherwise (the console checks with this too)."""
    ref = str(ref).strip().lower()
    if fmt not in ("jsonl", "csv"):
        # Translators: jsonl and csv are the formats' names, typed as they are.
        raise RemoteError("BADARG", _("export writes jsonl or csv, not {value}").format(
            value=written(fmt)))
    if ref not in ("current", "last") and not (ref.isascii() and ref.isdigit()):
        # Translators: "current" and "last" are typed as they are.
        raise RemoteError("BADARG", _("a match is current, last or a number, not {value}")
                          .format(value=written(ref)))
    return ref, str(fmt)


def export(app: App, ref: str = "current", fmt: str = "jsonl") -> list[str]:
    """A match as the lines ``companion export`` writes: ``ref`` is ``current`` (the
    game on the screen, or the unfinished one in the log), ``last`` or a match id."""
    from companion.store import MatchRecord
    from companion.transcript import csv_text, jsonl_lines

    ref, fmt = export_args(ref, fmt)
    session = app.current_session() if ref == "current" else None
    store = app.ctx.store
    if session is not None and (session.match_id is None or store is None):
        match = session.match  # a game not saved anywhere: export what is in memory
        record = MatchRecord(id=0, game_id=match.game_id, players=tuple(match.players),
                             options=dict(match.options), started=0.0, finished=None,
                             result=None, abandoned=False, event_count=len(match.events))
        events = list(match.events)
        played, undone = events, None
    else:
        store = store_of(app)
        if session is not None:
            match_id = session.match_id
        elif ref == "current":
            record_now = store.unfinished()
            if record_now is None:
                raise RemoteError("NOGAME", _("no match in progress"))
            match_id = record_now.id
        else:
            match_id = store.resolve(ref)
        record, moves = store.match(match_id), store.played(match_id)
        events = [move.event for move in moves if not move.undone]
        played, undone = [move.event for move in moves], [move.undone for move in moves]
    if fmt == "jsonl":  # each event taken back at its place, marked "undone"
        return jsonl_lines(record, played, undone=undone)
    sheet = csv_text(record, events)
    if sheet is None:
        raise RemoteError("BADARG", _("match {number} has no scores to export").format(
            number=record.id))
    return sheet.splitlines()


# -- the JSON both mirrors push ----------------------------------------------------------


def ev_payload(session: Session, event: dict[str, Any], undone: bool = False) -> dict[str, Any]:
    """One applied event as both mirrors send it: ``{"game", "match_id", "seq", "event"}``
    (``seq`` counts the events so far); an undo is ``{..., "seq": n, "undone": event}``
    with ``n`` the count of events left."""
    return ev_json(session.match.game_id, session.match_id, len(session.match.events), event,
                   undone)


def ev_json(game: str | None, match_id: int | None, seq: int, event: dict[str, Any],
            undone: bool = False) -> dict[str, Any]:
    """:func:`ev_payload` from its parts (events read back from the game log)."""
    return {"game": game, "match_id": match_id, "seq": seq,
            "undone" if undone else "event": event}


# -- what the commands share --------------------------------------------------------------


def expecting(match: Any) -> dict[str, Any]:
    """What ``match`` waits for next, as JSON: event ``types``, ``player``, ``choices``
    and the one-line ``prompt``."""
    expect = match.expecting()
    return {
        "types": list(expect.types),
        "player": expect.player,
        "choices": {name: list(values) for name, values in expect.choices.items()},
        "prompt": expect.prompt,
    }


def store_of(app: App) -> Any:
    """The app's game log; STORE when the device has none now."""
    if app.ctx.store is None:
        raise RemoteError("STORE", _("this device has no game log now, so nothing is saved"))
    return app.ctx.store


def open_match(app: App) -> dict[str, Any] | None:
    """The unfinished match a new game would push aside: the one on the screen, else
    the one waiting to be resumed (as the buttons see it); None when there is none."""
    from companion.ui.resume import waiting_session

    session = app.current_session()
    on_screen = session is not None and not session.match.over
    if not on_screen:
        session = waiting_session(app.ctx)
        if session is None:
            return None
    count = len(session.match.events)
    if on_screen:
        where = ngettext("{n} event", "{n} events", count)
    elif session.saved:
        where = ngettext("{n} event, waiting to be resumed", "{n} events, waiting to be resumed",
                         count)
    else:
        where = ngettext("{n} event, not saved, waiting to be resumed",
                         "{n} events, not saved, waiting to be resumed", count)
    where = where.format(n=count)
    return {"session": session, "match_id": session.match_id,
            "game": session.match.game_id, "title": session.title, "where": where}
