"""The figures folded over the finished matches: each player's and each game's running
record (:class:`Tally`), read from a store afresh (:func:`figures`) or kept between
calls per store and period (:func:`cached_figures`, :func:`warm`, :func:`keep`)."""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from companion import games
from companion.games import GAMES
from companion.names import placeholder_seats, player_key
from companion.stats.ratings import low_wins, places, rate, shown_rating
from companion.store import MatchSummary, Store


def _seconds(match: MatchSummary) -> float:
    if match.first_event is None or match.last_event is None:
        return 0.0
    # A clock set back mid-game (a Pi without a real-time clock) must not count negative.
    return max(0.0, match.last_event - match.first_event)


def _last_active(match: MatchSummary) -> float:
    if match.finished is not None:
        return match.finished
    return match.last_event if match.last_event is not None else match.started


# -- running figures -------------------------------------------------------------------------


@dataclass(slots=True)
class _Record:
    """One player's running figures in one game, or over every game."""

    plays: int = 0
    wins: int = 0
    places: int = 0
    seconds: float = 0.0
    scores: float = 0.0
    scored: int = 0
    highest: float | None = None
    lowest: float | None = None
    rounds: int = 0
    counted_rounds: int = 0
    streak: int = 0
    longest: int = 0
    last_played: float | None = None

    def add(self, won: bool, place: int, seconds: float, score: float | None,
            rounds: int | None, when: float) -> None:
        # Plain comparisons, not min()/max(): this runs for every player of every match.
        self.plays += 1
        if won:
            self.wins += 1
            self.streak += 1
            if self.streak > self.longest:
                self.longest = self.streak
        else:
            self.streak = 0
        self.places += place
        self.seconds += seconds
        if score is not None:
            self.scores += score
            self.scored += 1
            if self.highest is None or score > self.highest:
                self.highest = score
            if self.lowest is None or score < self.lowest:
                self.lowest = score
        if rounds is not None:
            self.rounds += rounds
            self.counted_rounds += 1
        if self.last_played is None or when > self.last_played:
            self.last_played = when

    def seen(self, when: float) -> None:
        self.last_played = when if self.last_played is None else max(self.last_played, when)

    def common(self) -> dict[str, Any]:
        """The figures that make sense for one game and over all games."""
        return {
            "plays": self.plays,
            "wins": self.wins,
            "win_rate": round(self.wins / self.plays, 4) if self.plays else 0.0,
            "avg_place": round(self.places / self.plays, 2) if self.plays else None,
            "seconds_played": round(self.seconds, 1),
            "longest_streak": self.longest,
            "last_played": self.last_played,
        }


@dataclass
class _Game:
    """One game's running figures: its own, its players' and their ratings."""

    plays: int = 0
    seconds: float = 0.0
    rounds: int = 0
    counted_rounds: int = 0
    all_low: bool = True
    last_played: float | None = None
    players: dict[str, _Record] = field(default_factory=dict)
    ratings: dict[str, Any] = field(default_factory=dict)


class _Together(NamedTuple):
    """Who played a match and who won it (name keys), for head-to-head."""

    game_id: str
    players: frozenset[str]
    winners: frozenset[str]


class Tally:
    """Figures folded over finished matches in the order they finished.

    :meth:`add` takes the next match (it must have finished after the ones before it);
    :meth:`figures` gives the result as plain JSON without changing the tally.
    """

    def __init__(self) -> None:
        self.games: dict[str, _Game] = {}
        self.overall: dict[str, _Record] = {}
        self.names: dict[str, str] = {}
        self.together: list[_Together] = []
        #: How many matches, the sum of their ids and the last (finished, id): what
        #: :func:`cached_figures` compares with :meth:`Store.finished_mark`.
        self.count = 0
        self.id_sum = 0
        self.last: tuple[float, int] | None = None

    def add(self, match: MatchSummary) -> None:
        """Fold in one finished match."""
        assert match.finished is not None
        game = self.games.setdefault(match.game_id, _Game())
        low = low_wins(match)
        # Each seat keyed once; its total and its win are found by its name. P1, P2 (the
        # set-up's placeholders) are no one.
        seats = {} if placeholder_seats(match.players) else self._keys(match.players)
        keys = list(dict.fromkeys(seats.values()))
        totals = {seats[name]: value for name, value in match.totals.items() if name in seats}
        winners = {seats[name] for name in match.winners if name in seats}
        placed = places(keys, totals, winners, low)
        seconds = _seconds(match)
        game.plays += 1
        game.seconds += seconds
        game.all_low = game.all_low and low
        if match.rounds is not None:
            game.rounds += match.rounds
            game.counted_rounds += 1
        game.last_played = _latest(game.last_played, match.finished)
        for key in keys:
            won = key in winners
            args = (won, placed[key], seconds, totals.get(key), match.rounds, match.finished)
            game.players.setdefault(key, _Record()).add(*args)
            self.overall.setdefault(key, _Record()).add(*args)
        rate(game.ratings, keys, placed)
        self.together.append(_Together(match.game_id, frozenset(keys), frozenset(winners)))
        self.count += 1
        self.id_sum += match.id
        self.last = (match.finished, match.id)

    def _keys(self, seats: Iterable[str]) -> dict[str, str]:
        """Each seat's name -> its player's key (:func:`companion.names.player_key`); the
        figures show the spelling of a player's latest match (of its last seat that is
        theirs)."""
        keys = {}
        for name in seats:
            keys[name] = key = player_key(name)
            self.names[key] = name
        return keys

    # -- the result --------------------------------------------------------------------

    def figures(
        self,
        game: str | None = None,
        player: str | Sequence[str] | None = None,
        unfinished: Iterable[MatchSummary] = (),
        since: float | None = None,
    ) -> dict[str, Any]:
        """The figures as JSON (the ``companion stats --json`` shape): ``games`` ->
        GAME -> its own figures and ``players`` -> NAME -> theirs; ``players`` -> NAME
        -> over all games; ``head_to_head`` when ``player`` names two.

        ``unfinished`` matches (begun at or after ``since``) add to ``last_played`` of the
        games and players that have a finished match; they add no row of their own (a
        match never finished is no "0 played" row anywhere).
        """
        wanted = _wanted(player)
        names = dict(self.names)
        seen = self._unfinished_seen(unfinished, since, names)
        games: dict[str, Any] = {}
        for game_id in _game_order(self.games):
            if game is not None and game_id != game:
                continue
            shown = self._game(game_id, seen, wanted, names)
            if wanted is None or shown["players"]:
                games[game_id] = shown
        result: dict[str, Any] = {
            "since": since,
            "plays": sum(shown["plays"] for shown in games.values()),
            "games": games,
            "players": self._overall(game, seen, wanted, names),
        }
        if wanted is not None and len(wanted) == 2:
            result["head_to_head"] = self._head_to_head(list(wanted), game)
        return result

    def _overall(
        self,
        game: str | None,
        seen: Mapping[tuple[str, str | None], float],
        wanted: Mapping[str, str] | None,
        names: Mapping[str, str],
    ) -> dict[str, Any]:
        """Each player over every game (or over ``game`` alone), most wins first."""
        records = self.overall if game is None else self.games.get(game, _Game()).players
        open_last: dict[str, float] = {}
        for (game_id, key), when in seen.items():
            if key is not None and game in (None, game_id):
                open_last[key] = max(open_last.get(key, when), when)
        keys = [key for key in records if wanted is None or key in wanted]
        rows = {}
        for key in keys:
            record = records[key]
            rows[key] = {**record.common(),
                         "last_played": _latest(record.last_played, open_last.get(key))}
        order = sorted(keys, key=lambda key: (-rows[key]["wins"], -rows[key]["plays"], key))
        return {names[key]: rows[key] for key in order}

    @staticmethod
    def _unfinished_seen(
        unfinished: Iterable[MatchSummary], since: float | None, names: dict[str, str]
    ) -> dict[tuple[str, str | None], float]:
        """(game, player key or None for the game) -> when an unfinished match of it
        was last played; adds its players' spellings to ``names`` if new there."""
        seen: dict[tuple[str, str | None], float] = {}
        for match in unfinished:
            when = _last_active(match)
            if since is not None and when < since:
                continue
            seats = () if placeholder_seats(match.players) else match.players
            for name in seats:
                names.setdefault(player_key(name), name)
            for key in [None, *(player_key(name) for name in seats)]:
                seen[(match.game_id, key)] = _latest(seen.get((match.game_id, key)), when)
        return seen

    def _game(
        self,
        game_id: str,
        seen: Mapping[tuple[str, str | None], float],
        wanted: Mapping[str, str] | None,
        names: Mapping[str, str],
    ) -> dict[str, Any]:
        tally = self.games.get(game_id, _Game())
        low = tally.all_low and tally.plays > 0
        rows = {}
        for key in tally.players:
            if wanted is not None and key not in wanted:
                continue
            record = tally.players[key]
            rating = tally.ratings.get(key)
            rows[key] = {
                **record.common(),
                "avg_score": round(record.scores / record.scored, 2) if record.scored else None,
                "best_score": _whole(record.lowest if low else record.highest),
                "rating": shown_rating(rating),
                "rounds_per_match": _average(record.rounds, record.counted_rounds),
                "last_played": _latest(record.last_played, seen.get((game_id, key))),
            }
        order = sorted(rows, key=lambda key: (
            rows[key]["rating"] is None, -(rows[key]["rating"] or 0.0), -rows[key]["wins"], key))
        return {
            "title": games.title(game_id),
            "plays": tally.plays,
            "low_wins": low,
            "seconds_played": round(tally.seconds, 1),
            "rounds_per_match": _average(tally.rounds, tally.counted_rounds),
            "last_played": _latest(tally.last_played, seen.get((game_id, None))),
            "players": {names[key]: rows[key] for key in order},
        }

    def _head_to_head(self, keys: list[str], game: str | None) -> dict[str, Any]:
        both = [m for m in self.together
                if keys[0] in m.players and keys[1] in m.players
                and (game is None or m.game_id == game)]
        names = [self.names.get(key, key) for key in keys]

        def count(matches: list[_Together]) -> dict[str, Any]:
            return {"matches": len(matches),
                    "wins": {name: sum(key in m.winners for m in matches)
                             for name, key in zip(names, keys, strict=True)}}

        per_game = {g: count([m for m in both if m.game_id == g])
                    for g in _game_order({m.game_id for m in both})}
        return {"players": names, **count(both), "games": per_game}


    def opponents(self, player: str) -> list[dict[str, Any]]:
        """Everyone ``player`` has finished a match with, most shared matches first:
        each the head-to-head of the two (``players``, ``matches``, ``wins``, ``games``,
        as ``companion stats --player A --player B`` gives it)."""
        me = player_key(player)
        others = {key for m in self.together if me in m.players for key in m.players} - {me}
        rows = [self._head_to_head([me, other], None) for other in others]
        return sorted(rows, key=lambda row: (-row["matches"], row["players"][1].casefold()))


def rival_and_nemesis(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """From :meth:`Tally.opponents`: the ``rival`` (most shared matches) and the
    ``nemesis`` (the one who won most often against the player, when anyone did),
    each ``{"name", "matches", "won", "lost"}``; None when there is none."""

    def line(row: Mapping[str, Any]) -> dict[str, Any]:
        me, other = row["players"]
        return {"name": other, "matches": row["matches"], "won": row["wins"][me],
                "lost": row["wins"][other]}

    lines = [line(row) for row in rows]
    rival = lines[0] if lines else None
    beaten = [item for item in lines if item["lost"] > 0]
    nemesis = max(beaten, key=lambda item: (item["lost"] - item["won"], item["lost"]),
                  default=None)
    return {"rival": rival, "nemesis": nemesis}


def opponents(store: Store, player: str) -> list[dict[str, Any]]:
    """:meth:`Tally.opponents` of ``player`` over every finished match in ``store``."""
    tally = Tally()
    for match in store.summaries():
        tally.add(match)
    return tally.opponents(player)


def _wanted(player: str | Sequence[str] | None) -> dict[str, str] | None:
    if player is None:
        return None
    named = [player] if isinstance(player, str) else list(player)
    return {player_key(name): name.strip() for name in named}


def _game_order(game_ids: Iterable[str]) -> list[str]:
    """The menu's order, then any other game ids (imported from a newer device) by name."""
    known = [info.game_id for info in GAMES]
    return sorted(game_ids, key=lambda g: (g not in known, known.index(g) if g in known else 0,
                                            g))


def _latest(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    return a if b is None else max(a, b)


def _average(total: float, count: int) -> float | None:
    return round(total / count, 2) if count else None


def _whole(value: float | None) -> float | int | None:
    """Scores as stored: 340, not 340.0."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


# -- from a store ----------------------------------------------------------------------------


def figures(
    store: Store,
    game: str | None = None,
    player: str | Sequence[str] | None = None,
    since: float | None = None,
    table: str | None = None,
) -> dict[str, Any]:
    """The figures of ``store`` (see :meth:`Tally.figures` for the shape), read afresh.

    ``game`` keeps one game; ``player`` one player (two: and their head-to-head);
    ``since`` the matches finished at or after that time; ``table`` those played at that
    club table (a club dashboard's store).
    """
    kept = None if table is None else store.ids_from(table)
    tally = Tally()
    for match in store.summaries(game=game, since=since):
        if kept is None or match.id in kept:
            tally.add(match)
    unfinished = [match for match in store.summaries(finished=False, game=game)
                  if kept is None or match.id in kept]
    return tally.figures(game, player, unfinished, since)


#: Per store, per period start: the tally of every game, kept up to date.
_KEPT: weakref.WeakKeyDictionary[Store, dict[float | None, Tally]] = (
    weakref.WeakKeyDictionary())
#: Periods kept per store: the device's three, and one more while a day turns over.
_PERIODS_KEPT = 4


def cached_figures(
    store: Store,
    game: str | None = None,
    player: str | Sequence[str] | None = None,
    since: float | None = None,
) -> dict[str, Any]:
    """:func:`figures`, from a tally kept between calls (for the History screens).

    Matches finished since the last call are folded in; anything else that changed the
    finished matches (an undone finish, an import, another process's write) shows in
    :meth:`Store.finished_mark` and the tally is built again.
    """
    kept = _KEPT.setdefault(store, {})
    tally = kept.get(since)
    count, id_sum = store.finished_mark(since)
    if tally is not None and (tally.count, tally.id_sum) != (count, id_sum):
        newer = store.summaries(since=since, after=tally.last) if tally.last else []
        if (tally.count + len(newer), tally.id_sum + sum(m.id for m in newer)) == (
                count, id_sum):
            for match in newer:
                tally.add(match)
        else:
            tally = None
    if tally is None:
        tally = Tally()
        for match in store.summaries(since=since):
            tally.add(match)
        kept.pop(since, None)
        kept[since] = tally
        while len(kept) > _PERIODS_KEPT:
            kept.pop(next(iter(kept)))
    unfinished = store.summaries(finished=False, game=game)
    return tally.figures(game, player, unfinished, since)


def warm(path: str | Path) -> Tally:
    """The all-time tally of the game log at ``path``, built over a read-only connection
    of its own, so any thread may build it (the device does, after its first frame, so
    the first History screen opens at once). Hand it over with :func:`keep`."""
    tally = Tally()
    with Store(path, readonly=True) as reader:
        for match in reader.summaries():
            tally.add(match)
    return tally


def forget(store: Store) -> None:
    """Drop what :func:`cached_figures` kept for ``store``: the owner knows the finished
    matches changed in a way the finished mark cannot show (a finished match reopened
    and finished again with the same id: the club dashboard counts those)."""
    _KEPT.pop(store, None)


def keep(store: Store, tally: Tally, since: float | None = None) -> None:
    """Let :func:`cached_figures` start from ``tally`` (built by :func:`warm`), on the
    thread that owns ``store``. Nothing is trusted blindly: the next call checks the
    tally against the store's finished mark, folds in what finished since, and builds
    afresh if anything else changed meanwhile."""
    _KEPT.setdefault(store, {}).setdefault(since, tally)


def without_unplayed(shown: dict[str, Any]) -> dict[str, Any]:
    """:func:`figures` without the players and games that have no finished match (a
    game started and never finished is no "0 played" row on a page)."""
    games = {}
    for game_id, game in (shown.get("games") or {}).items():
        if game.get("plays"):
            rows = {name: row for name, row in game.get("players", {}).items()
                    if row.get("plays")}
            games[game_id] = {**game, "players": rows}
    players = {name: row for name, row in (shown.get("players") or {}).items()
               if row.get("plays")}
    return {**shown, "games": games, "players": players}
