"""The data behind the table page's pages: plain functions of a store (history, one
match, a player, the figures, an export) and of a snapshot (the live table), so the
pages, the JSON API and the club page read the same things the same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion import lang
from companion.errors import RemoteError, one_line
from companion.lang import _
from companion.names import player_key
from companion.remote.web import views
from companion.remote.web.people import NAME_MAX, player_details
from companion.table.bag import entered_tokens
from companion.table.dice import entered, entered_dice

#: The largest whole number a body or an id may hold (SQLite's and most languages' 64
#: bits).
INT_MAX = 2**63 - 1
#: "Every match" for :meth:`Store.past` (its LIMIT).
PAST_ALL = INT_MAX


class Spoken:
    """The device's language for a template: ``{{ lang }}`` is its code now ("de"), for
    ``<html lang>``; ``lang.date``, ``lang.number`` ... are :mod:`companion.lang`'s."""

    def __str__(self) -> str:
        return lang.current()

    def __html__(self) -> str:
        return lang.current()

    def __getattr__(self, name: str) -> Any:
        return getattr(lang, name)


def speaking(env: Any) -> Any:
    """Make the Jinja2 Environment ``env`` speak the device's language: the i18n
    extension with :mod:`companion.lang`'s functions (``{{ _("Players") }}``,
    ``{{ _("{name}'s turn").format(name=x) }}``, ``ngettext``, ``pgettext``; autoescape
    still escapes what they return) and ``lang`` (the language's code, as
    :class:`Spoken`). Called by the table page's app; the club page's gets it from there,
    and any other environment may call it too. Returns ``env``."""
    env.add_extension("jinja2.ext.i18n")
    env.install_gettext_callables(gettext=lang.gettext, ngettext=lang.ngettext,
                                  pgettext=lang.pgettext, npgettext=lang.npgettext,
                                  newstyle=False)
    env.globals["lang"] = Spoken()
    return env


def _record_json(record: Any) -> dict[str, Any]:
    result = record.result or {}
    return {"id": record.id, "game": record.game_id, "title": views.game_title(record.game_id),
            "players": list(record.players), "started": record.started,
            "finished": record.finished, "abandoned": record.abandoned,
            "winners": list(result.get("winners", [])), "totals": result.get("totals", {}),
            "events": record.event_count, "origin": getattr(record, "origin", ""),
            "seconds": None if record.finished is None else record.finished - record.started}


def past_matches(store: Any, game: str = "", player: str = "", limit: int = 200,
                 ) -> list[dict[str, Any]]:
    """The newest ``limit`` finished and abandoned matches, newest first, of ``game``
    and with ``player`` (any case) when given: a filter looks through every match, not
    only the newest ``limit`` (a player who last played long ago keeps their page)."""
    wanted = player_key(player) if player.strip() else ""  # any spelling of that player
    records = store.past(limit if not (game or wanted) else PAST_ALL)
    rows = [_record_json(record) for record in records
            if (not game or record.game_id == game)
            and (not wanted or any(player_key(name) == wanted for name in record.players))
            ][:limit]
    ids = [row["id"] for row in rows]
    dice, tokens = store.with_entered_dice(ids), store.with_entered_tokens(ids)
    for row in rows:  # typed in from real dice or the real tin, not the device's: say so
        row["entered_dice"] = row["id"] in dice
        row["entered_tokens"] = row["id"] in tokens
    return rows


def stored_match(store: Any, match_id: int) -> Any:
    """The match's record, or ``NOTFOUND`` (a 404) when the log has no such match (an
    id past any the log can hold included)."""
    from companion.errors import StoreError

    if not 0 < match_id <= INT_MAX:
        raise RemoteError("NOTFOUND", _("no match {number}").format(
            number=one_line(str(match_id), 24)))
    try:
        return store.match(match_id)
    except StoreError as problem:
        raise RemoteError("NOTFOUND", str(problem)) from None


def match_details(store: Any, match_id: int) -> dict[str, Any]:
    """One match for its page: the record, the score table, the chart, the log (each
    event taken back at the place it held, ``"undone": true``, before what took it)."""
    record = stored_match(store, match_id)
    moves = store.played(match_id)
    events = [move.event for move in moves if not move.undone]
    table = views.score_table(record, events)
    players, points = views.series(table)
    data = _record_json(record)
    said = dict(views.log_lines(events, None, (record.game_id, record.players,
                                               record.options)))
    data.update(options=record.options, table=table,
                entered_dice=entered_dice(events) > 0,
                entered_tokens=entered_tokens(events) > 0,
                undone=sum(1 for move in moves if move.undone),
                chart=views.chart_svg(players, points, views.unit(record.game_id)),
                log=[{"seq": move.seq, "event": move.event, "entered": entered(move.event),
                      "undone": move.undone,
                      # What an event taken back meant is not known: its words alone.
                      "words": views.event_words(move.event) if move.undone
                      else said[move.seq]} for move in moves],
                standings=views.standings(record.players, data["totals"], data["winners"],
                                          views.high_wins(record.game_id)))
    return data


def export_text(store: Any, match_id: int, fmt: str) -> str:
    """The match exactly as ``companion export --format fmt`` writes it: that command's
    own code (:func:`companion.transcript.match_text`), on the store the page reads."""
    from companion.transcript import match_text

    record = stored_match(store, match_id)
    text = match_text(store, record, fmt)
    if text is None:
        raise RemoteError("STORE", _("match {number} has no scores to export")
                          .format(number=record.id))
    return text


def player_figures(store: Any, played_only: bool = False) -> dict[str, Any]:
    """The roster and the figures ``companion stats --json`` gives
    (:func:`companion.stats.figures`: ``players`` -> NAME -> plays, wins, win_rate...;
    ``games`` -> GAME -> ``players`` -> NAME -> rating, avg_score, best_score...), and
    ``roster_figures``: each roster name -> its player's figures over all games (the
    figures spell a player as they last played, the roster as it was typed: "Ann" on
    the roster is the "ann" who won; ``{}`` for a name with no finished match).
    ``played_only`` (the club's page): only players and games with a finished match (a
    match a table never finished adds no one)."""
    from companion.stats import figures, without_unplayed

    roster, shown = store.roster(), figures(store)
    if played_only:
        shown = without_unplayed(shown)
    by_key = {player_key(name): row for name, row in shown["players"].items()}
    return {"roster": roster, "figures": shown,
            "roster_figures": {name: by_key.get(player_key(name), {}) for name in roster}}


def player_page_data(store: Any, name: str) -> dict[str, Any]:
    """A player's page (:func:`~.people.player_details`) with their matches."""
    if not name.strip() or len(name) > NAME_MAX:
        raise RemoteError("NOTFOUND", _("no such player"))
    return player_details(store, name, past_matches(store, player=name))


def playable_games() -> list[dict[str, Any]]:
    """The games a new match may be: id, title, player counts, options with defaults."""
    from companion.games import GAMES, available, engine
    from companion.ui.games import has_screens

    games = []
    for info in GAMES:
        if not (info.in_menu and available(info.game_id) and has_screens(info.game_id)):
            continue
        cls = engine(info.game_id)
        # An option a new match gets by itself (Full Counter's zones) is not asked.
        settled = cls.new_options({})
        options = {name: value for name, value in cls.option_defaults.items()
                   if name not in settled}
        games.append({"id": info.game_id, "title": str(info.title), "min": cls.min_players,
                      "max": cls.max_players, "options": options})
    return games


def table_context(snap: Mapping[str, Any]) -> dict[str, Any]:
    """The live part of the table page from a snapshot."""
    from companion.store import MatchRecord

    state = snap["state"]
    if state.get("match") is None and "game" not in state:
        waiting = snap.get("waiting")
        rows = [] if not waiting else views.standings(
            waiting["players"], waiting["totals"], [], views.high_wins(waiting["game"]))
        return {"state": state, "rows": rows, "log": [], "chart": "", "context": {},
                "waiting": waiting}
    result = snap.get("result") or {}
    record = MatchRecord(id=state.get("match_id") or 0, game_id=state["game"],
                         players=tuple(state["players"]), options=dict(snap.get("options", {})),
                         started=0.0, finished=None, result=result, abandoned=False,
                         event_count=state.get("seq", 0))
    events = snap["events"]
    # The snapshot's result is these events' standings: no second replay for the sheet.
    players, points = views.series(views.score_table(record, events, snap.get("result")))
    return {
        "state": state,
        "rows": views.standings(state["players"], state.get("totals", {}),
                                state.get("winners", []), views.high_wins(state["game"])),
        "log": views.log_lines(events, game=(record.game_id, record.players,
                                              record.options)),
        "chart": views.chart_svg(players, points, views.unit(state["game"])),
        "context": state.get("context") or {},
        "waiting": None,
    }
