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

The commands that change the table (the roster, the game) live here with
:data:`COMMANDS` and :func:`run`; those that only read in :mod:`companion.remote.reads`;
the way to the owner thread and back (:func:`call`, :func:`guarded`,
:class:`RemoteError`) in :mod:`companion.remote.calls`. Every one of them is given from
here too, so a transport imports this module alone.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from companion.chance import PHYSICAL, from_afar, physical
from companion.errors import IllegalEvent, RemoteError, RosterFull, UnknownGame, written
from companion.lang import _
from companion.names import check_name, seated_spellings
from companion.remote.calls import CALL_TIMEOUT, ERRORS, PENDING_MAX, call, guarded
from companion.remote.reads import (
    HISTORY_DEFAULT,
    HISTORY_MAX,
    ev_json,
    ev_payload,
    expecting,
    export,
    export_args,
    history,
    history_limit,
    open_match,
    players,
    session_state,
    state,
    status,
    store_of,
    waiting_state,
)
from companion.timer_log import with_timer

if TYPE_CHECKING:
    from companion.app import App
    from companion.session import Session

__all__ = [
    "CALL_TIMEOUT",
    "COMMANDS",
    "ERRORS",
    "HISTORY_DEFAULT",
    "HISTORY_MAX",
    "PENDING_MAX",
    "RemoteError",
    "add_player",
    "call",
    "ev_json",
    "ev_payload",
    "event",
    "export",
    "export_args",
    "guarded",
    "history",
    "history_limit",
    "leave",
    "new_game",
    "players",
    "remove_player",
    "rename_player",
    "roll",
    "run",
    "session_state",
    "state",
    "status",
    "undo",
    "waiting_state",
]


# -- the roster ------------------------------------------------------------------------------


def add_player(app: App, name: str) -> dict[str, Any]:
    """Add ``name`` to the roster: ``{"added": name, "count": roster size}`` (the
    roster itself is PLAYERS; a reply never repeats it)."""
    store = store_of(app)
    check_name(name)  # a name the rule refuses is a bad argument (BADARG), not a store error
    added = store.add_player(name)  # as the name rule cleaned it
    return {"added": added, "count": len(store.roster())}


def rename_player(app: App, old: str, new: str) -> dict[str, Any]:
    """Rename a roster name (past matches keep the name they were played under)."""
    store = store_of(app)
    check_name(new)  # BADARG for a name the rule refuses (see add_player)
    stored = store.rename_player(old, new)
    return {"renamed": old.strip(), "to": stored}  # the new name as the roster has it


def remove_player(app: App, name: str) -> dict[str, Any]:
    """Take ``name`` off the roster (past matches keep it)."""
    store = store_of(app)
    store.remove_player(name)
    return {"removed": name.strip(), "count": len(store.roster())}


# -- the game ---------------------------------------------------------------------------------


def new_game(app: App, game_id: str, names: list[str], options: Mapping[str, Any] | None = None,
             force: bool = False, *, notes: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Start ``game_id`` with ``names`` on the screen; the new match's :func:`status`.

    Refused with ``OPEN`` while another match is unfinished (on the screen, or in the
    log waiting to be resumed), unless ``force``: then that match is abandoned first,
    so it stays in the history as abandoned instead of being lost from view. ``notes``
    are stored with the match (the club round's offer it was started from).
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
    options = with_timer(game_id, options, app.ctx.config)  # [timer], kept with it
    names = _seated_by_the_roster(app.ctx.store, names)
    open_now = open_match(app)
    if open_now is not None and not force:
        raise RemoteError("OPEN", _still_open(open_now))
    if open_now is not None:
        _abandon_open(app, open_now)
    ctx = app.ctx
    session = Session.start(game_id, names, options, store=ctx.store,
                            listeners=ctx.listeners, notes=notes, secret=ctx.new_secret())
    try:
        screen = table_screen(session, home_menu(ctx)).route(ctx)
    except UnknownGame:
        session.abandon()  # an engine without screens yet: do not leave it to resume
        raise
    app.set_screen(screen)
    app.wake()  # a change from afar is news for the people at the table
    return status(app)


def _seated_by_the_roster(store: Any, names: list[str]) -> list[str]:
    """A game's players as the roster writes them (they join it, as the letter picker
    adds them on the device): "Kate" is the roster's "ΚΑΤΕ" (the one name rule,
    :meth:`companion.store.Roster.seat_players`). Refused with FULL when the names it
    lacks would take it past :data:`~companion.store.ROSTER_MAX`, and (BadName:
    BADARG) when a new one would look like a roster name on the screen ("Ànn" beside
    "Ann")."""
    if store is None:
        return names
    try:
        return store.seat_players(names)
    except RosterFull as full:
        raise RemoteError("FULL", str(full)) from None


def leave(app: App) -> dict[str, Any]:
    """Abandon the unfinished match (on the screen, or waiting to be resumed) and show
    the main menu: ``{"left": match_id, "game": game_id}``. The match stays in the
    history marked abandoned."""
    from companion.ui.home import home_menu

    open_now = open_match(app)
    if open_now is None:
        raise RemoteError("NOGAME", _("no unfinished game to leave"))
    _abandon_open(app, open_now)
    app.set_screen(home_menu(app.ctx))
    app.wake()
    return {"left": open_now["match_id"], "game": open_now["game"]}


def _move(command: Callable[..., Any]) -> Callable[..., Any]:
    """A move on the game (an event, a roll, an undo) from afar: when the rules refuse
    it, the table hears it as it hears a refused press (:meth:`App.refused`: said
    aloud in a few words), and the caller gets the refusal as before. What is not the
    game's refusal (no game, bad arguments, busy) is the caller's business alone."""

    @functools.wraps(command)
    def move(app: App, *args: Any, **kw: Any) -> Any:
        try:
            return command(app, *args, **kw)
        except (IllegalEvent, RemoteError) as refused:
            if not isinstance(refused, RemoteError) or refused.code == "ILLEGAL":
                app.refused(str(refused))
            raise

    return move


@_move
def event(app: App, event: dict[str, Any]) -> dict[str, Any]:
    """Apply ``event`` to the match on the screen, as the buttons would."""
    if not isinstance(event, dict):
        raise RemoteError("BADARG", _('an event is a JSON object, like {{"type": "call", ...}}')
                          .format())
    session = _game_screen(app).session
    # A player named in another spelling is the seat ("kate" for the seated "ΚΑΤΕ"):
    # the one name rule, as NEW seats a roster player; so is the draw's place.
    event = seated_spellings(event, session.match.player_fields, session.match.players)
    # The dice and tokens are the device's: what a remote leaves out is drawn here from
    # the match's own source, a chosen value is refused unless the table uses its own
    # dice or tokens (then it is kept marked entered).
    event = from_afar(session.match, event, session.chances,
                      lambda kind: physical(app.ctx.config, kind))
    session.apply(event)
    app.refresh_game()
    app.wake()
    return _applied(session, event)


@_move
def roll(app: App) -> dict[str, Any]:
    """Press ROLL on the game: the device rolls for the player whose turn it is (or the
    Hit Goal, or Block Lottery's pool), or draws Block Lottery's next lottery token.
    Refused at a table that rolls real dice (or draws real tokens) for that draw."""
    from companion.device.buttons import Press
    from companion.ui.screen import Confirm

    game = _game_screen(app)
    match = game.session.match
    expect = match.expecting()
    drawn = [kind for kind in ("roll", "goal", "pool", "token") if kind in expect.types]
    if not drawn:
        raise RemoteError("ILLEGAL", _("nothing to roll now ({prompt})").format(
            prompt=expect.prompt or _("game over")))
    chance = match.chance({"type": drawn[0]})
    if chance is not None and physical(app.ctx.config, chance.kind):
        raise RemoteError("ILLEGAL", _(PHYSICAL[chance.kind]))
    before = len(game.session.match.events)
    # Exactly what the ROLL button does on the game screen. The Hit Goal takes two
    # presses, one die each; one ROLL from afar rolls the goal, so press again when the
    # first press only rolled the first die.
    screen = game
    for _press in range(2):
        screen = game.press(app.ctx, Press("roll"))
        if isinstance(screen, Confirm):
            # The device asks before its button draws ("Start the lottery?" while a
            # player may still re-roll): a ROLL typed from afar is the yes, as the
            # page's Draw button is, never a question left open on the screen.
            screen = screen.press(app.ctx, Press("ok"))
        if len(game.session.match.events) > before or "goal" not in expect.types:
            break
    session = game.session
    if len(session.match.events) == before:
        # The screen would show "Not allowed" over itself; the caller gets the reason.
        why = " ".join(getattr(screen, "lines", ())) or _("the roll was refused")
        raise RemoteError("ILLEGAL", why)
    app.show_from_afar(lambda: screen)
    app.wake()
    return _applied(session, session.match.events[-1])


@_move
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
            "over": match.over, "expecting": expecting(match)}


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


# -- helpers ------------------------------------------------------------------------------


def _applied(session: Session, event: dict[str, Any]) -> dict[str, Any]:
    match = session.match
    return {"match_id": session.match_id, "seq": len(match.events), "event": event,
            "over": match.over, "expecting": expecting(match)}


def _game_screen(app: App) -> Any:
    game = app.game_screen()
    if game is None:
        # Translators: NEW is the console's command, typed as it is.
        raise RemoteError("NOGAME", _("no game on the screen (NEW starts one)"))
    return game


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
