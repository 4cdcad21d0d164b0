"""A club night's rounds, kept in the dashboard's state dir (``club-night.json``).

The organiser says who is present (``companion club --seat GAME --present NAMES
--tables N``, or the club page); :func:`next_round` seats them with
:mod:`companion.club.seating` (round 1 a seeded draw, later rounds by the standing in
the night) and the round is stored here, where a running dashboard picks it up and sends
it to the tables (:mod:`companion.club.rounds`).

A round's result at a table is the finished match started from the offer that table
was sent (:mod:`companion.club.offers`: an id of its own per table and round), from that
table, with the seat's game and players; the night's standing is :func:`~companion.club.
seasons.standings` over those matches (more wins, then a better average place, then
more matches). A file from another night (a night runs until 06:00) starts a new one.
"""

from __future__ import annotations

import json
import os
import random
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.club import offers as offer_ids
from companion.club.seating import Seat, key, pairs, seat_round
from companion.errors import NightError, SeatingError
from companion.lang import _, ngettext

NIGHT_FILE = "club-night.json"
#: Most bytes the night's file may hold (a night of many rounds of 200 players is well
#: under it); most players present, tables, and rounds in a night.
NIGHT_MAX = 4 * 1024 * 1024
PLAYERS_MAX = 1000
TABLES_MAX = 500
ROUNDS_MAX = 100
#: A table's clock may be behind the dashboard's: the matches finished up to this long
#: before the night's first round was drawn are read for its results (the offer, not
#: the time, says which match is a round's result).
SKEW = 12 * 3600.0
#: A night runs until this hour of the next morning (a round seated at 00:30 belongs to
#: the night before).
NIGHT_ENDS = 6


def night_of(when: float) -> str:
    """The night a moment belongs to: the date it began (YYYY-MM-DD)."""
    from companion.clock import day_text

    return day_text(when - NIGHT_ENDS * 3600)


@dataclass
class Round:
    """One round of the night: its number, game, the seed of its draw, when it was
    drawn (the dashboard's clock), who sits where, and each table's offer id (a round
    stored before offers has none: no match is its result)."""

    number: int
    game: str
    seed: int
    at: float
    seats: list[Seat]
    offers: dict[str, str] = field(default_factory=dict)

    def as_json(self, *, offers: bool = False) -> dict[str, Any]:
        """The round as printed (``offers``: with each table's offer id, as stored: the
        ids are for the tables and the night's file only)."""
        tables = []
        for seat in self.seats:
            table = {"table": seat.table, "players": list(seat.players)}
            if offers and self.offers.get(seat.table):
                table["offer"] = self.offers[seat.table]
            tables.append(table)
        return {"round": self.number, "game": self.game, "seed": self.seed, "at": self.at,
                "tables": tables}

    @classmethod
    def from_json(cls, data: Any) -> Round:
        try:
            seats = [Seat(str(t["table"]), tuple(str(p) for p in t["players"]))
                     for t in data["tables"]]
            offers = {str(t["table"]): t["offer"] for t in data["tables"]
                      if offer_ids.valid_offer_id(t.get("offer"))}
            return cls(int(data["round"]), str(data["game"]), int(data["seed"]),
                       float(data["at"]), seats, offers)
        except (KeyError, TypeError, ValueError) as err:
            raise NightError(_("a round in {path} is not readable: {problem}")
                             .format(path=NIGHT_FILE, problem=err)) from None


@dataclass
class Night:
    """The rounds of one day."""

    day: str
    rounds: list[Round] = field(default_factory=list)

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None


def load(state_dir: Path, day: str) -> Night:
    """Today's night from ``state_dir`` (a new one when the file is from another day or
    not there)."""
    from companion.errors import UnreadableFile
    from companion.files import read_text_file

    try:
        data = json.loads(read_text_file(state_dir / NIGHT_FILE, NIGHT_MAX, "the night"))
    except UnreadableFile as err:
        if err.missing:
            return Night(day)
        raise NightError(str(err)) from None
    except ValueError as err:
        raise NightError(_("{path} is not JSON: {problem}")
                         .format(path=state_dir / NIGHT_FILE, problem=err)) from None
    if not isinstance(data, dict) or data.get("day") != day:
        return Night(day)
    rounds = data.get("rounds")
    if not isinstance(rounds, list):
        raise NightError(_("{path} has no list of rounds").format(path=state_dir / NIGHT_FILE))
    return Night(day, [Round.from_json(item) for item in rounds])


def save(state_dir: Path, night: Night) -> None:
    """Write the night whole (a new file moved over the old: a power cut leaves one or
    the other, never half)."""
    state_dir.mkdir(parents=True, exist_ok=True)
    path = state_dir / NIGHT_FILE
    partial = path.with_suffix(".partial")
    text = json.dumps({"day": night.day,
                       "rounds": [r.as_json(offers=True) for r in night.rounds]},
                      ensure_ascii=False, indent=1)
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, path)


# -- results and standings ----------------------------------------------------------------


def results(rnd: Round, matches: Iterable[offer_ids.Played]) -> dict[str, Any]:
    """Each table's finished match of the round (a :class:`~companion.store.
    MatchSummary`), or None while it is being played: the match started from the offer
    the table was sent, that came from that table, with the seat's game and players
    (the first the dashboard stored, should the table have sent two: never by the time
    a table says it started one, which the table writes)."""
    seats = {rnd.offers[seat.table]: seat for seat in rnd.seats if rnd.offers.get(seat.table)}
    found: dict[str, Any] = {seat.table: None for seat in rnd.seats}
    for match, offer, table in matches:
        seat = seats.get(offer)
        if seat is None or table != seat.table or match.game_id != rnd.game or \
                {key(name) for name in match.players} != {key(name) for name in seat.players}:
            continue
        if found[table] is None or match.id < found[table].id:
            found[table] = match
    return found


def matches_of(store: Any, night: Night) -> list[offer_ids.Played]:
    """The store's finished matches started from one of the night's offers."""
    if not night.rounds:
        return []
    sent = {offer for rnd in night.rounds for offer in rnd.offers.values()}
    return offer_ids.played(store, sent, night.rounds[0].at - SKEW)


def offers_sent(state_dir: Path) -> dict[str, str] | None:
    """Every offer id in the night's file (whatever its night), with the table it was
    sent to; None when this dashboard has seated no night (it cannot tell an offer)."""
    from companion.errors import UnreadableFile
    from companion.files import read_text_file

    try:
        data = json.loads(read_text_file(state_dir / NIGHT_FILE, NIGHT_MAX, "the night"))
        rounds = [Round.from_json(item) for item in data["rounds"]]
    except (UnreadableFile, ValueError, KeyError, TypeError, NightError):
        return None
    return {offer: table for rnd in rounds for table, offer in rnd.offers.items()}


def night_matches(night: Night, matches: Sequence[Any]) -> list[Any]:
    """The finished matches of the night's rounds."""
    return [match for rnd in night.rounds for match in results(rnd, matches).values()
            if match is not None]


def standings(night: Night, matches: Sequence[Any]) -> list[dict[str, Any]]:
    """The night's standings, best first: rank, name, wins, average place, played."""
    from companion.club.seasons import standings as by_game

    mine = [match._replace(game_id="night") for match in night_matches(night, matches)]
    games = by_game(mine)
    return games[0]["rows"] if games else []


# -- the next round -----------------------------------------------------------------------


def next_round(night: Night, game: str, present: Sequence[str], tables: Sequence[str],
               matches: Sequence[Any], now: float, seed: int | None = None) -> Round:
    """Seat ``present`` at ``tables`` for the night's next round of ``game``."""
    from companion.errors import UnknownGame
    from companion.games import engine, title
    from companion.names import check_players

    try:
        rules = engine(game)
    except UnknownGame as err:
        raise NightError(str(err)) from None
    names = check_players(present)
    if len(names) > PLAYERS_MAX:
        raise NightError(ngettext("at most {n} players a night", "at most {n} players a night",
                                  PLAYERS_MAX).format(n=PLAYERS_MAX))
    if len(night.rounds) >= ROUNDS_MAX:
        raise NightError(ngettext("at most {n} rounds a night", "at most {n} rounds a night",
                                  ROUNDS_MAX).format(n=ROUNDS_MAX))
    seed = secrets.randbits(32) if seed is None else seed
    ranking = [row["name"] for row in standings(night, matches)]
    try:
        seats = seat_round(names, tables, rules.min_players, rules.max_players,
                           random.Random(seed), ranking=ranking,
                           met=pairs(r.seats for r in night.rounds))
    except SeatingError as err:
        # Translators: {game} is the game's name (as its rule sheet prints it), {problem}
        # why its players cannot be seated.
        raise NightError(_("{game}: {problem}").format(game=title(game), problem=err)) from None
    return Round(len(night.rounds) + 1, game, seed, now, seats,
                 {seat.table: offer_ids.new_offer_id() for seat in seats})


# -- the club page ------------------------------------------------------------------------


def view(state_dir: Path, store: Any, day: str) -> dict[str, Any] | None:
    """The night for the club page: the current round (every table, who sits where and
    its result once finished) and the night's standings; None before the first round."""
    from companion.games import title

    try:
        night = load(state_dir, day)
    except NightError:
        return None
    rnd = night.current
    if rnd is None:
        return None
    matches = matches_of(store, night)
    found = results(rnd, matches)
    tables = []
    for seat in rnd.seats:
        match = found[seat.table]
        tables.append({"table": seat.table, "players": list(seat.players),
                       "result": None if match is None else {
                           "winners": list(match.winners), "totals": dict(match.totals)}})
    return {"round": rnd.number, "game": rnd.game, "title": title(rnd.game),
            "seed": rnd.seed, "tables": tables,
            "finished": sum(table["result"] is not None for table in tables),
            "standings": standings(night, matches)}
