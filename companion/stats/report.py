"""``companion stats``: the figures printed, as a table to read in a terminal or as one
JSON object, and what it says when there is nothing to show or a name is typed wrong."""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from companion import games, lang
from companion.errors import CompanionError, StoreError
from companion.games import GAMES
from companion.lang import _, ngettext, pgettext
from companion.names import player_key
from companion.stats.periods import since_date
from companion.stats.tally import figures
from companion.store import Store
from companion.words import counted

_PROG = "companion stats"


def stats_main(
    state_dir: str | Path,
    game: str | None = None,
    players: Sequence[str] | None = None,
    since: str | None = None,
    as_json: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
    table: str | None = None,
) -> int:
    """``companion stats``: print the figures (a table, or JSON); 0, or 1 with one line
    on ``err`` when the log cannot be read, 2 for a bad --game/--player/--since."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    known = [info.game_id for info in GAMES]
    try:
        if game is not None and game not in known:
            raise CompanionError(_("--game: no game {game} (games: {games})")
                                 .format(game=repr(game), games=", ".join(known)))
        if players is not None and len(players) > 2:
            raise CompanionError(_("--player: one name, or two for their head-to-head"))
        start = None if since is None else since_date(since)
    except CompanionError as problem:
        print(f"{_PROG}: {problem}", file=err)
        return 2
    path = Path(state_dir) / Store.DEFAULT_NAME
    if not path.is_file():
        print(f"{_PROG}: " + _("no game log in {folder} ({file} not found)").format(
            folder=state_dir, file=Store.DEFAULT_NAME), file=err)
        return 1
    try:
        with Store(path, readonly=True) as store:
            shown = figures(store, game=game, player=players, since=start, table=table)
            unknown = _without_games(shown, players or [], store.roster(), since)
    except StoreError as problem:
        print(f"{_PROG}: {problem}", file=err)
        return 1
    if unknown:  # a name typed wrong must not read as "No finished games yet."
        print(f"{_PROG}: {unknown}", file=err)
        return 1
    text = (json.dumps(shown, ensure_ascii=False, indent=1) + "\n" if as_json
            else format_table(shown))
    if not as_json and not shown["games"] and (game or table):
        # "No finished games yet." would read as if the log had none at all
        text = _no_games_of(games.title(game) if game else None, table, since) + "\n"
    out.write(text)
    out.flush()
    return 0


def _no_games_of(game: str | None, table: str | None, since: str | None) -> str:
    """That no match of ``game`` (its title) or of club table ``table`` finished (in
    the period, when ``since``)."""
    # Translators: {game} is a game's name as its rule sheet prints it (Final Count).
    if game and table:
        said = (_("No finished {game} games of table {table} in this period.") if since
                else _("No finished {game} games of table {table} yet."))
    elif game:
        said = (_("No finished {game} games in this period.") if since
                else _("No finished {game} games yet."))
    else:
        said = (_("No finished games of table {table} in this period.") if since
                else _("No finished games of table {table} yet."))
    return said.format(game=game, table=table)


def _without_games(shown: Mapping[str, Any], players: Sequence[str], roster: Sequence[str],
                   since: str | None) -> str:
    """What to say about each ``--player`` the figures have no game for ("" if none):
    that they played no finished game (in the period), and whether the roster knows
    them at all (with the names it does know, when it is short)."""
    found = {player_key(name) for name in shown["players"]}
    known = {player_key(name) for name in roster}
    said = []
    for name in (name.strip() for name in players):
        if player_key(name) in found:
            continue
        line = (_("{name}: no finished games since {date}") if since
                else _("{name}: no finished games")).format(name=name, date=since)
        if player_key(name) not in known:
            listed = ", ".join(roster[:10]) + (", ..." if len(roster) > 10 else "")
            line += " " + (_("(no player of that name on the roster: {names})").format(
                names=listed) if roster else _("(no player of that name; the roster is empty)"))
        said.append(line)
    return "; ".join(said)


def format_table(shown: Mapping[str, Any]) -> str:
    """The figures as a table to read in a terminal (``companion stats``)."""
    lines: list[str] = []
    for game_id, game in shown["games"].items():
        bits = [ngettext("{n} played", "{n} played", game["plays"]).format(n=game["plays"])]
        if game["rounds_per_match"] is not None:
            # Counted as the table counts this game: "4.5 hands a match" for Final Count.
            # Translators: {rounds} is a count of hands, rounds or games ("4.5 hands").
            bits.append(_("{rounds} a match").format(
                rounds=counted(game["rounds_per_match"], games.unit(game_id))))
        bits.append(_("{time} in all").format(time=_duration(game["seconds_played"])))
        if game["last_played"] is not None:
            bits.append(_("last {date}").format(date=_day(game["last_played"])))
        lines += [f"{game['title']} ({game_id}): {_bits(bits)}", _heading(game["low_wins"])]
        for name, row in game["players"].items():
            lines.append(
                f"  {name:12} {row['plays']:5} {row['wins']:4} {row['win_rate']:4.0%}"
                f" {_cell(row['avg_score']):>7} {_cell(row['best_score']):>6}"
                f" {_cell(row['avg_place']):>5} {row['longest_streak']:6}"
                f" {_cell(row['rating']):>6} {_duration(row['seconds_played']):>8}"
                f"  {_day(row['last_played'])}")
        lines.append("")
    if shown.get("head_to_head"):
        duel = shown["head_to_head"]
        first, second = duel["players"]
        # Translators: two players' matches together; {player_wins} and {who_wins} are
        # how many of them {player} and {who} won.
        lines.append(ngettext(
            "{player} v {who}: {n} together, {player} won {player_wins}, {who} won {who_wins}",
            "{player} v {who}: {n} together, {player} won {player_wins}, {who} won {who_wins}",
            duel["matches"]).format(player=first, who=second, n=duel["matches"],
                                    player_wins=duel["wins"][first],
                                    who_wins=duel["wins"][second]))
        for game_id, part in duel["games"].items():
            # Translators: {game} is a game's name; {player_wins}-{who_wins} the score.
            lines.append("  " + ngettext(
                "{game}: {n} together, {player_wins}-{who_wins}",
                "{game}: {n} together, {player_wins}-{who_wins}", part["matches"]).format(
                    game=games.title(game_id), n=part["matches"],
                    player_wins=part["wins"][first], who_wins=part["wins"][second]))
    if not lines:
        lines.append(_("No finished games in this period.") if shown["since"]
                     else _("No finished games yet."))
    return "\n".join(lines).rstrip("\n") + "\n"


def _bits(bits: Sequence[str]) -> str:
    """A game's figures on its title line: "3 played, 2 hands a match, ..."."""
    return pgettext("between figures in a list", ", ").join(bits)


def _heading(low_wins: bool) -> str:
    """The column headings of a game's table (each as wide as its column)."""
    # Translators: the column headings of `companion stats`; each is as wide as its
    # column (player 12 characters, plays 5, wins 4, won 4, avg 7, best and lowest 6,
    # place 5, streak 6, rating 6, time 8): a longer one pushes the columns apart.
    best = pgettext("stats column", "lowest") if low_wins else pgettext("stats column", "best")
    player, plays = pgettext("stats column", "player"), pgettext("stats column", "plays")
    wins, won = pgettext("stats column", "wins"), pgettext("stats column", "won")
    average, place = pgettext("stats column", "avg"), pgettext("stats column", "place")
    streak, rating = pgettext("stats column", "streak"), pgettext("stats column", "rating")
    time_played, last = pgettext("stats column", "time"), pgettext("stats column", "last")
    return (f"  {player:12} {plays:>5} {wins:>4} {won:>4} {average:>7} {best:>6}"
            f" {place:>5} {streak:>6} {rating:>6} {time_played:>8}  {last}")


def _cell(value: float | int | None) -> str:
    if value is None:
        return "-"
    return lang.number(value) if isinstance(value, float) else str(value)


def _duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    if minutes >= 60:
        return _("{hours} h {minutes} min").format(hours=minutes // 60,
                                                   minutes=f"{minutes % 60:02d}")
    return _("{minutes} min").format(minutes=minutes)


def _day(when: float | None) -> str:
    """A date as the language writes it ("-" for none, "?" for one no calendar holds)."""
    try:
        return "-" if when is None else lang.date(dt.datetime.fromtimestamp(when))
    except (OverflowError, OSError, ValueError):
        return "?"
