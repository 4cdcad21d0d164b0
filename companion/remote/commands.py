"""What a second way in may do, written once: the serial console and the web page
both call these, so a rule such as "a new game while one is open asks first" holds on
both.

Every command is a function of the :class:`~companion.app.App` that runs **on the
app's owner thread** (the one that owns the screen, the match and the store), takes
plain arguments, and returns a JSON-able payload or raises :class:`RemoteError` with
one of the :data:`ERRORS` codes. No protocol text lives here: the serial console
writes ``OK <json>`` / ``ERR <CODE> <message>``, the web page JSON bodies and status
codes.

A transport's thread never calls a command directly; it uses :func:`call`, which
posts the command to the app's queue (exactly as a button press reaches the app) and
waits for its answer::

    payload = call(app, new_game, "final-count", ["Ann", "Bob"], {})

:func:`run` is the one place that turns every other exception into a
:class:`RemoteError` (a bug becomes ``INTERNAL``, logged), so a caller never sees a
traceback. :func:`ev_payload` is the JSON of one applied (or undone) event that both
mirrors push (serial ``EV <json>``, the page's Server-Sent Events); :func:`state` the
snapshot of the match for the page.

Two rules keep a second way in from wrecking what the buttons are doing:

- **An open game is never lost.** :func:`new_game` refuses with ``OPEN`` while a match
  is unfinished (on the screen, or waiting in the log to be resumed) unless the caller
  says ``force``; then that match is marked abandoned (kept in the history as such),
  never left orphaned. :func:`leave` abandons it on purpose.
- **Nothing is dropped silently.** When the app's queue is backed up, :func:`call`
  answers ``BUSY`` and the command is not run (never half-run, never run late).
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from companion.config import physical_dice
from companion.errors import (
    BadSetup,
    CompanionError,
    IllegalEvent,
    StoreError,
    UnknownGame,
    written,
)
from companion.lang import _, ngettext
from companion.names import check_name
from companion.remote.dice import PHYSICAL_ROLL, remote_faces
from companion.remote.pads import pads
from companion.store import ROSTER_MAX, RosterFull, joining

if TYPE_CHECKING:
    from companion.app import App
    from companion.session import Session

__all__ = [
    "COMMANDS",
    "ERRORS",
    "HISTORY_DEFAULT",
    "HISTORY_MAX",
    "RemoteError",
    "add_player",
    "call",
    "event",
    "ev_json",
    "ev_payload",
    "export",
    "export_args",
    "history",
    "history_limit",
    "leave",
    "new_game",
    "players",
    "remove_player",
    "rename_player",
    "roll",
    "run",
    "state",
    "status",
    "undo",
]

log = logging.getLogger("companion")

#: HISTORY without a number, and the most it gives.
HISTORY_DEFAULT, HISTORY_MAX = 10, 100
#: Seconds :func:`call` waits for the owner thread to start a command before it
#: answers BUSY (the thread is stuck in something long: a display that hangs).
CALL_TIMEOUT = 5.0
#: Remote commands waiting in the app's queue at once, from every transport
#: together; one more is answered BUSY rather than piling up behind the buttons.
PENDING_MAX = 8

#: The error codes of the commands, each with what it means.
ERRORS: dict[str, str] = {
    "BADARG": "the command's arguments are missing or wrong",
    "NOGAME": "no game on the screen",
    "ILLEGAL": "the game refused it: against the rules or not the moment",
    "OPEN": "a game is still open: LEAVE it first (it is kept as abandoned), or force",
    "STORE": "the game log cannot do it (no log, a name taken, disk full)",
    "FULL": f"the roster holds at most {ROSTER_MAX} names",
    "BUSY": "the device is busy; the command was not run (send it again)",
    "INTERNAL": "a bug; the device carries on (details in its log)",
}


class RemoteError(CompanionError):
    """A command is refused: ``code`` (a key of :data:`ERRORS`) and one-line ``message``."""

    def __init__(self, code: str, message: str):
        message = " ".join(str(message).split()) or ERRORS.get(code, "error")
        super().__init__(message)
        self.code = code
        self.message = message


# -- reading --------------------------------------------------------------------------------


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
        "expecting": _expecting(match),
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
    expect = _expecting(match)
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
        "pads": pads(match, physical=physical_dice(app.ctx.config)),
        "saved": saving(app),
        # The turn timer follows the game on the screen only.
        "timer": app.timer.status() if session is app.current_session() else None,
    }


def waiting_state(app: App) -> dict[str, Any] | None:
    """The game waiting to be resumed on the device (after a restart, or left while
    unsaved), as the page shows it: ``match_id``, ``game``, ``title``, ``players``,
    ``totals``, ``seq``; None when there is none or the log cannot say."""
    try:
        open_now = _open_match(app)
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
    return _store(app).roster()


def history(app: App, limit: int = HISTORY_DEFAULT) -> list[dict[str, Any]]:
    """The last ``limit`` finished matches, newest first."""
    return [record.to_json() for record in _store(app).history(history_limit(limit))]


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
    from companion.export import csv_text, jsonl_lines
    from companion.store import MatchRecord

    ref, fmt = export_args(ref, fmt)
    session = app.current_session() if ref == "current" else None
    store = app.ctx.store
    if session is not None and (session.match_id is None or store is None):
        match = session.match  # a game not saved anywhere: export what is in memory
        record = MatchRecord(id=0, game_id=match.game_id, players=tuple(match.players),
                             options=dict(match.options), started=0.0, finished=None,
                             result=None, abandoned=False, event_count=len(match.events))
        events = list(match.events)
    else:
        store = _store(app)
        if session is not None:
            match_id = session.match_id
        elif ref == "current":
            record_now = store.unfinished()
            if record_now is None:
                raise RemoteError("NOGAME", _("no match in progress"))
            match_id = record_now.id
        else:
            match_id = store.resolve(ref)
        record, events = store.match(match_id), store.events(match_id)
    if fmt == "jsonl":
        return jsonl_lines(record, events)
    sheet = csv_text(record, events)
    if sheet is None:
        raise RemoteError("BADARG", _("match {number} has no scores to export").format(
            number=record.id))
    return sheet.splitlines()


# -- the roster ------------------------------------------------------------------------------


def add_player(app: App, name: str) -> dict[str, Any]:
    """Add ``name`` to the roster: ``{"added": name, "count": roster size}`` (the
    roster itself is PLAYERS; a reply never repeats it)."""
    store = _store(app)
    check_name(name)  # a name the rule refuses is a bad argument (BADARG), not a store error
    added = store.add_player(name)  # as the name rule cleaned it
    return {"added": added, "count": len(store.roster())}


def rename_player(app: App, old: str, new: str) -> dict[str, Any]:
    """Rename a roster name (past matches keep the name they were played under)."""
    store = _store(app)
    check_name(new)  # BADARG for a name the rule refuses (see add_player)
    stored = store.rename_player(old, new)
    return {"renamed": old.strip(), "to": stored}  # the new name as the roster has it


def remove_player(app: App, name: str) -> dict[str, Any]:
    """Take ``name`` off the roster (past matches keep it)."""
    store = _store(app)
    store.remove_player(name)
    return {"removed": name.strip(), "count": len(store.roster())}


# -- the game ---------------------------------------------------------------------------------


def new_game(app: App, game_id: str, names: list[str], options: Mapping[str, Any] | None = None,
             force: bool = False) -> dict[str, Any]:
    """Start ``game_id`` with ``names`` on the screen; the new match's :func:`status`.

    Refused with ``OPEN`` while another match is unfinished (on the screen, or in the
    log waiting to be resumed), unless ``force``: then that match is abandoned first,
    so it stays in the history as abandoned instead of being lost from view.
    """
    from companion.games import new_match
    from companion.names import check_players
    from companion.session import Session
    from companion.ui.games import table_screen
    from companion.ui.home import home_menu

    if not isinstance(game_id, str):
        raise RemoteError("BADARG", _("a new game needs a game id"))
    names = check_players(names)  # the one rule for names, however they come in
    if options is not None and not isinstance(options, Mapping):
        raise RemoteError("BADARG", _("options are NAME=VALUE pairs (a JSON object)"))
    options = dict(options or {})
    new_match(game_id, names, options)  # refused here, before anything changes
    _room_on_the_roster(app.ctx.store, names)
    open_now = _open_match(app)
    if open_now is not None and not force:
        raise RemoteError("OPEN", _still_open(open_now))
    if open_now is not None:
        _abandon_open(app, open_now)
    ctx = app.ctx
    session = Session.start(game_id, names, options, store=ctx.store,
                            listeners=ctx.listeners)
    try:
        screen = table_screen(session, home_menu(ctx)).route(ctx)
    except UnknownGame:
        session.abandon()  # an engine without screens yet: do not leave it to resume
        raise
    app.set_screen(screen)
    app.wake()  # a change from afar is news for the people at the table
    return status(app)


def _room_on_the_roster(store: Any, names: list[str]) -> None:
    """A game's players join the roster (as the letter picker adds them on the device):
    refused with FULL when the names it lacks would take it past :data:`ROSTER_MAX`, and
    (BadName) when one of them would look like a roster name on the screen."""
    if store is None:
        return
    roster = store.roster()
    known = {name.casefold() for name in roster}
    lacking = [name for name in names if name.casefold() not in known]
    for name in lacking:  # "Аnn" beside the roster's "Ann": refused as ADD PLAYER refuses it
        check_name(name, roster)
    try:
        joining(roster, names)
    except RosterFull as full:
        raise RemoteError("FULL", str(full)) from None


def leave(app: App) -> dict[str, Any]:
    """Abandon the unfinished match (on the screen, or waiting to be resumed) and show
    the main menu: ``{"left": match_id, "game": game_id}``. The match stays in the
    history marked abandoned."""
    from companion.ui.home import home_menu

    open_now = _open_match(app)
    if open_now is None:
        raise RemoteError("NOGAME", _("no unfinished game to leave"))
    _abandon_open(app, open_now)
    app.set_screen(home_menu(app.ctx))
    app.wake()
    return {"left": open_now["match_id"], "game": open_now["game"]}


def event(app: App, event: dict[str, Any]) -> dict[str, Any]:
    """Apply ``event`` to the match on the screen, as the buttons would."""
    if not isinstance(event, dict):
        raise RemoteError("BADARG", _('an event is a JSON object, like {{"type": "call", ...}}')
                          .format())
    session = _game_screen(app).session
    # The die is the device's: faces a remote leaves out are rolled here, chosen ones are
    # refused unless the table rolls real dice (then they are kept marked entered).
    event = remote_faces(session.match, event, physical_dice(app.ctx.config), app.ctx.rng)
    session.apply(event)
    app.refresh_game()
    app.wake()
    return _applied(session, event)


def roll(app: App) -> dict[str, Any]:
    """Press ROLL on the game: the device rolls for the player whose turn it is (or the
    Hit Goal, or Block Lottery's pool). Refused at a table that rolls real dice."""
    from companion.device.buttons import Press

    game = _game_screen(app)
    expect = game.session.match.expecting()
    if not {"roll", "goal", "pool"} & set(expect.types):
        raise RemoteError("ILLEGAL", _("nothing to roll now ({prompt})").format(
            prompt=expect.prompt or _("game over")))
    if physical_dice(app.ctx.config):
        raise RemoteError("ILLEGAL", _(PHYSICAL_ROLL))
    before = len(game.session.match.events)
    # Exactly what the ROLL button does on the game screen. The Hit Goal takes two
    # presses, one die each; one ROLL from afar rolls the goal, so press again when the
    # first press only rolled the first die.
    screen = game
    for _press in range(2):
        screen = game.press(app.ctx, Press("roll"))
        if len(game.session.match.events) > before or "goal" not in expect.types:
            break
    session = game.session
    if len(session.match.events) == before:
        # The screen would show "Not allowed" over itself; the caller gets the reason.
        why = " ".join(getattr(screen, "lines", ())) or _("the roll was refused")
        raise RemoteError("ILLEGAL", why)
    app.set_screen(screen)
    app.wake()
    return _applied(session, session.match.events[-1])


def undo(app: App) -> dict[str, Any]:
    """Take back the last event, as the game menu's Undo does."""
    game = _game_screen(app)
    session = game.session
    undone = session.undo()
    hook = getattr(game, "undone", None)
    if callable(hook):
        hook(app.ctx)  # as the game menu's Undo does: drop screen state the event made
    app.refresh_game()
    app.wake()
    match = session.match
    return {"match_id": session.match_id, "seq": len(match.events), "undone": undone,
            "over": match.over, "expecting": _expecting(match)}


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


# -- running commands ------------------------------------------------------------------------


#: The commands by name, for a transport that dispatches on a name.
COMMANDS: dict[str, Callable[..., Any]] = {
    "status": status,
    "state": state,
    "players": players,
    "add_player": add_player,
    "rename_player": rename_player,
    "remove_player": remove_player,
    "new_game": new_game,
    "leave": leave,
    "event": event,
    "roll": roll,
    "undo": undo,
    "history": history,
    "export": export,
}


def run(app: App, name: str, *args: Any, **kw: Any) -> Any:
    """Run the command ``name`` (a key of :data:`COMMANDS`) on the owner thread; every
    failure comes out as :class:`RemoteError`, a bug as ``INTERNAL`` (and logged)."""
    command = COMMANDS.get(name)
    if command is None:
        raise RemoteError("BADARG", _("no command {name}").format(name=written(name)))
    return guarded(command, app, *args, **kw)


def guarded(fn: Callable[..., Any], app: App, *args: Any, **kw: Any) -> Any:
    """``fn(app, *args)`` with every exception turned into :class:`RemoteError`."""
    try:
        return fn(app, *args, **kw)
    except RemoteError:
        raise
    except IllegalEvent as problem:
        raise RemoteError("ILLEGAL", str(problem)) from None
    except StoreError as problem:
        code = "FULL" if getattr(problem, "full", False) else "STORE"
        raise RemoteError(code, str(problem)) from None
    except (UnknownGame, BadSetup) as problem:
        raise RemoteError("BADARG", str(problem)) from None
    except CompanionError as problem:
        raise RemoteError("ILLEGAL", str(problem)) from None
    except Exception as problem:  # noqa: BLE001 - a bug must not kill the owner thread
        log.error("remote command %s failed:\n%s", getattr(fn, "__name__", fn),
                  traceback.format_exc())
        raise RemoteError("INTERNAL", f"{type(problem).__name__}: {problem}") from None


class _Pending:
    """One command posted to the app's queue; the owner thread and the caller agree
    under a lock whether it runs (it started) or not (the caller gave up first)."""

    def __init__(self, wake: threading.Event | None) -> None:
        self.lock = threading.Lock()
        self.finished = threading.Event()
        self.wake = wake or self.finished
        self.started = self.cancelled = False
        self.result: Any = None
        self.error: RemoteError | None = None

    def give_up(self) -> bool:
        """True when the command will never run; False when it has started already."""
        with self.lock:
            if not self.started:
                self.cancelled = True
            return self.cancelled


_pending_lock = threading.Lock()
_pending_count: dict[int, int] = {}


def call(app: App, fn: Callable[..., Any], *args: Any, timeout: float = CALL_TIMEOUT,
         wake: threading.Event | None = None, **kw: Any) -> Any:
    """Run ``fn(app, *args)`` on the app's owner thread and return its result, or raise
    :class:`RemoteError` (its own, or ``BUSY``). Call it from any thread but the owner.

    ``BUSY`` when :data:`PENDING_MAX` remote commands wait already, or when the owner
    thread has not started this one within ``timeout`` seconds; the command then never
    runs (the owner skips it), so a refused command has changed nothing. Once started
    it is waited for to the end. ``wake`` (cleared here) lets a transport that is
    closing stop the wait early: setting it gives up as a timeout does.
    """
    if threading.current_thread() is getattr(app, "owner", None):
        return guarded(fn, app, *args, **kw)  # on the owner already: waiting would hang
    key = id(app)
    with _pending_lock:
        if _pending_count.get(key, 0) >= PENDING_MAX:
            # Translators: {command} is the command's name, as the console types it.
            raise RemoteError("BUSY", _("{command} was not run: {n} commands are waiting for "
                                        "the device already").format(command=_name(fn),
                                                                     n=PENDING_MAX))
        _pending_count[key] = _pending_count.get(key, 0) + 1
    if wake is not None:
        wake.clear()
    pending = _Pending(wake)

    def on_owner(app: App) -> None:
        with pending.lock:
            if pending.cancelled:
                return
            pending.started = True
        try:
            pending.result = guarded(fn, app, *args, **kw)
        except RemoteError as problem:
            pending.error = problem
        finally:
            pending.finished.set()
            pending.wake.set()

    try:
        app.post("call", on_owner)
        pending.wake.wait(timeout)
        if not pending.finished.is_set():
            if pending.give_up():
                raise RemoteError("BUSY", _("{command} was not run: the device did not get "
                                            "to it within {seconds} s").format(
                                                command=_name(fn), seconds=f"{timeout:g}"))
            pending.finished.wait()  # started: it ends soon, and its answer is the truth
    finally:
        with _pending_lock:
            _pending_count[key] -= 1
            if not _pending_count[key]:
                del _pending_count[key]
    if pending.error is not None:
        raise pending.error
    return pending.result


def _name(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__name__", "the command").replace("_", " ")


# -- helpers ------------------------------------------------------------------------------


def _expecting(match: Any) -> dict[str, Any]:
    expect = match.expecting()
    return {
        "types": list(expect.types),
        "player": expect.player,
        "choices": {name: list(values) for name, values in expect.choices.items()},
        "prompt": expect.prompt,
    }


def _applied(session: Session, event: dict[str, Any]) -> dict[str, Any]:
    match = session.match
    return {"match_id": session.match_id, "seq": len(match.events), "event": event,
            "over": match.over, "expecting": _expecting(match)}


def _game_screen(app: App) -> Any:
    game = app.game_screen()
    if game is None:
        # Translators: NEW is the console's command, typed as it is.
        raise RemoteError("NOGAME", _("no game on the screen (NEW starts one)"))
    return game


def _store(app: App) -> Any:
    if app.ctx.store is None:
        raise RemoteError("STORE", _("this device has no game log now, so nothing is saved"))
    return app.ctx.store


def _open_match(app: App) -> dict[str, Any] | None:
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
        where = ngettext("{n} events", "{n} events", count)
    elif session.saved:
        where = ngettext("{n} events, waiting to be resumed", "{n} events, waiting to be resumed",
                         count)
    else:
        where = ngettext("{n} events, not saved, waiting to be resumed",
                         "{n} events, not saved, waiting to be resumed", count)
    where = where.format(n=count)
    return {"session": session, "match_id": session.match_id,
            "game": session.match.game_id, "title": session.title, "where": where}


def _still_open(open_now: dict[str, Any]) -> str:
    """Why NEW is refused while ``open_now`` is unfinished, in words."""
    if open_now["match_id"] is None:
        # Translators: LEAVE, NEW and --force are the console's words and "force": true
        # the page's JSON: typed as they are. {where} says how many events and where.
        text = _('{game} ({where}) is not finished; LEAVE keeps it as abandoned, or add '
                 '--force to NEW (on the web: "force": true)')
    else:
        text = _('{game} (match {number}, {where}) is not finished; LEAVE keeps it as '
                 'abandoned, or add --force to NEW (on the web: "force": true)')
    return text.format(game=open_now["title"], number=open_now["match_id"],
                       where=open_now["where"])


def _abandon_open(app: App, open_now: dict[str, Any]) -> None:
    """Mark the open match abandoned (kept in the history as such). A log that can only
    be read notes it and marks it once saving works again, so it is not lost either."""
    session = open_now["session"]
    session.abandon()
    if session is app.ctx.parked:
        app.ctx.parked = None
