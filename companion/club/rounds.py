"""A night's round, from the organiser to the tables.

``companion club --seat GAME --present NAMES --tables N`` (:func:`seat_main`) seats the
round (:mod:`companion.club.night`), prints it and stores it in the dashboard's state
dir. A dashboard running on that state dir (it holds :data:`LOCK_FILE`) picks it up
within a few seconds (:class:`RoundSender`) and sends each table its seats on
``companion/<table>/round`` (retained, so a table that connects later still gets it);
a table left out of the round has its old one cleared. It notes what it sent in
:data:`SENT_FILE`, which the command waits for to say "sent".
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from companion.club import night as nights
from companion.club import wire
from companion.errors import NightError, RoundRefused, WireError
from companion.lang import _

LOCK_FILE = "club-dashboard.lock"
SENT_FILE = "club-night-sent.json"
#: How long ``--seat`` waits for a running dashboard to send the round.
SEND_WAIT = 15.0


def round_topic(table: str) -> str:
    return f"{wire.ROOT}/{table}/round"


def round_payload(day: str, rnd: nights.Round, seat: Any) -> bytes:
    """What one table is sent: the round, its game, who sits there, and the table's
    offer id (:mod:`companion.club.offers`: its match carries it back)."""
    payload = {"night": day, "round": rnd.number, "game": rnd.game, "table": seat.table,
               "players": list(seat.players)}
    if rnd.offers.get(seat.table):
        payload["offer"] = rnd.offers[seat.table]
    return wire.encode(payload)


@dataclass(frozen=True)
class Offer:
    """A round as a table receives it (``offer_id``: "" from a dashboard before offer
    ids)."""

    night: str
    round: int
    game: str
    players: tuple[str, ...]
    offer_id: str = ""


def parse_offer(data: bytes, table: str) -> Offer:
    """A round sent to ``table``, checked as anything arriving is (its size, every
    number's range, the game, every name by the one rule for names, the game's number
    of players); :class:`~companion.errors.WireError` if it is not one."""
    from companion.club.offers import valid_offer_id
    from companion.errors import BadSetup, UnknownGame
    from companion.games import engine
    from companion.names import check_players

    payload = wire.decode(data)
    offer_id = payload.get("offer", "")
    if offer_id != "" and not valid_offer_id(offer_id):
        raise WireError("'offer' is not an offer id")
    night = wire.need(payload, "night", str)
    number = wire.need(payload, "round", int)
    game = wire.need(payload, "game", str)
    if len(night) > 10 or not 1 <= number <= nights.ROUNDS_MAX:
        raise WireError("not a round of a night")
    if wire.need(payload, "table", str) != table:
        raise WireError("a round for another table")
    try:
        rules = engine(game)
        players = check_players(wire.need(payload, "players", list))
    except (UnknownGame, BadSetup) as err:
        raise WireError(str(err)) from None
    if not rules.min_players <= len(players) <= rules.max_players:
        raise WireError(f"{len(players)} players for {game}")
    return Offer(night, number, game, tuple(players), offer_id)


#: A match of the round's game and players started this recently means the table has
#: started the round already (a reboot brings the broker's kept copy of the offer back),
#: for a round from a dashboard before offer ids.
STARTED_WITHIN = 12 * 3600


def already_started(offer: Offer, matches: Sequence[Any], now: float,
                    offers_started: Collection[str] = ()) -> bool:
    """The table has started this round already: one of its matches was started from
    the round's offer (``offers_started``: the offer ids its matches were started from).
    Only a round without an id (a dashboard before them) is told by the game and the
    players: one of ``matches`` (anything with ``game_id``, ``players`` and
    ``started``) is this round's game with its players, started lately. (By the game
    and the players, round 2 of a group seated again at its table, or round 1 after the
    group played a game of it with NEW, was never offered.)"""
    from companion.club.seating import key

    if offer.offer_id:
        return offer.offer_id in offers_started
    players = {key(name) for name in offer.players}
    return any(match.game_id == offer.game and {key(n) for n in match.players} == players
               and now - match.started < STARTED_WITHIN for match in matches)


# -- the dashboard's side ---------------------------------------------------------------


class DashboardLock:
    """Held by a running dashboard on its state dir, so ``--seat`` knows one is there."""

    def __init__(self, state_dir: Path):
        self.path = Path(state_dir) / LOCK_FILE
        self._handle: Any = None

    def take(self, tries: int = 20) -> bool:
        """Hold the lock (False: another dashboard holds it). The kernel lets go of it
        when the process ends, however it ends: a crash or a power cut leaves nothing
        stuck. A few tries: :meth:`held` takes it for an instant to look."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+")  # noqa: SIM115 - held open while the dashboard runs
        for attempt in range(tries):
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                if attempt < tries - 1:
                    time.sleep(0.01)
                continue
            self._handle = handle
            return True
        handle.close()
        return False

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    @staticmethod
    def held(state_dir: Path) -> bool:
        """A dashboard runs on ``state_dir`` now."""
        path = Path(state_dir) / LOCK_FILE
        if not path.exists():
            return False
        with open(path, "a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
            return False


#: What a dashboard subscribes to besides the tables' own topics: the rounds the broker
#: keeps for them (:meth:`RoundSender.heard`).
ROUNDS_TOPIC = f"{wire.ROOT}/+/round"


def round_table(topic: str) -> str | None:
    """The table of a round topic (None: not one)."""
    from companion.config import valid_table_name

    parts = topic.split("/")
    if len(parts) == 3 and parts[0] == wire.ROOT and parts[2] == "round" and \
            valid_table_name(parts[1]):
        return parts[1]
    return None


class RoundSender:
    """Sends the night's newest round to the tables when the night's file changes;
    ``publish(topic, payload, retain)``; ``today()`` the day a night is kept for.

    It clears a round the broker keeps for a table only when that round is one of its
    own night's that is no offer any more (a round of a night gone by, or a table left
    out of the newest round): it hears what the broker keeps (:meth:`heard`). A second
    dashboard started on a state dir with an older night's file used to clear the round
    of every table its ledger knew, tonight's rounds of the dashboard that seated them
    too, so a table that connected later was never offered its seat (found attacking
    issue 36)."""

    def __init__(self, state_dir: Path, publish: Callable[[str, bytes, bool], Any],
                 today: Callable[[], str]):
        self.state_dir = Path(state_dir)
        self.publish = publish
        self.today = today
        self._seen: tuple[int, int] | None = None
        self._sent: dict[str, tuple[str, int]] = {}  # table: (day, round) it was sent
        self.lock = DashboardLock(self.state_dir)
        self._kept: dict[str, str] = {}  # table: the offer of the round the broker keeps
        self._stale: set[str] = set()  # this dashboard's offers that are no offer any more

    @classmethod
    def for_dashboard(cls, state_dir: Path, link: Any) -> RoundSender | None:
        """The running dashboard's sender over its broker link (it holds the lock that
        tells ``--seat`` a dashboard is there until :meth:`close`); None when another
        dashboard holds it (one store, one dashboard)."""
        sender = cls(state_dir, lambda topic, data, retain: link.publish(
            topic, data, retain=retain), lambda: nights.night_of(time.time()))
        return sender if sender.lock.take() else None

    def close(self) -> None:
        self.lock.release()

    def check(self) -> int:
        """Send a new round if there is one; how many tables were sent theirs."""
        path = self.state_dir / nights.NIGHT_FILE
        try:
            info = os.stat(path)
        except OSError:
            return 0
        mark = (info.st_mtime_ns, info.st_size)
        if mark == self._seen:
            return 0
        self._seen = mark
        night = nights.load(self.state_dir, self.today())
        rnd = night.current
        current = set(rnd.offers.values()) if rnd is not None else set()
        self._stale = set(nights.offers_sent(self.state_dir) or {}) - current
        self._clear_stale()
        if rnd is None:  # a new night: last night's rounds are no offer any more
            return 0
        seated = {seat.table for seat in rnd.seats}
        for table in sorted(set(self._sent) - seated):
            self.publish(round_topic(table), b"", True)  # not in this round
            del self._sent[table]
        sent = 0
        for seat in rnd.seats:
            if self._sent.get(seat.table) != (night.day, rnd.number):
                self.publish(round_topic(seat.table), round_payload(night.day, rnd, seat), True)
                self._sent[seat.table] = (night.day, rnd.number)
                sent += 1
        _write_json(self.state_dir / SENT_FILE, {"day": night.day, "round": rnd.number})
        return sent


    def heard(self, topic: str, data: bytes) -> None:
        """The round the broker keeps for a table (``companion/<table>/round``, retained,
        this dashboard's or another's): cleared when it is one of this dashboard's
        that is no offer any more, left alone when it is anyone else's."""
        from companion.club.offers import valid_offer_id

        table = round_table(topic)
        if table is None:
            return
        self._kept.pop(table, None)
        try:
            offer = wire.decode(data).get("offer") if data else None
        except WireError:
            return
        if valid_offer_id(offer):
            self._kept[table] = offer
            self._clear_stale()

    def _clear_stale(self) -> None:
        for table, offer in sorted(self._kept.items()):
            if offer in self._stale:
                self.publish(round_topic(table), b"", True)
                del self._kept[table]


def _write_json(path: Path, data: Any) -> None:
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(data))
    os.replace(partial, path)


def sent_round(state_dir: Path) -> tuple[str, int] | None:
    try:
        data = json.loads((Path(state_dir) / SENT_FILE).read_text())
        return str(data["day"]), int(data["round"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


# -- the command --------------------------------------------------------------------------


def seat_main(state_dir: Path, game: str, present: Sequence[str],
              tables: int | Sequence[str], *, as_json: bool = False, seed: int | None = None,
              out: TextIO | None = None, wall: Callable[[], float] = time.time,
              wait: float = SEND_WAIT) -> int:
    """``companion club --seat``: seat the night's next round at ``tables`` (a number
    or names: :mod:`companion.club.tonight`), store it, print it; a running dashboard
    sends it to the tables."""
    import sys

    out = out or sys.stdout
    rnd, tonight = seat_round_here(state_dir, game, present, tables, seed, wall)
    day = nights.night_of(rnd.at)
    if as_json:
        print(json.dumps({**rnd.as_json(), "empty": tonight.empty,
                          "offline": tonight.offline}, ensure_ascii=False), file=out)
    else:
        print(round_text(rnd), file=out)
    for note in tonight.notes:
        print(_("companion club: {note}").format(note=note), file=sys.stderr)
    if DashboardLock.held(state_dir):
        deadline = time.monotonic() + wait
        while sent_round(state_dir) != (day, rnd.number) and time.monotonic() < deadline:
            time.sleep(0.1)
        sent = sent_round(state_dir) == (day, rnd.number)
        said = (_("companion club: round {n} sent to the tables") if sent else
                _("companion club: round {n} stored; the dashboard has not sent it yet (is "
                  "its broker down?)"))
        print(said.format(n=rnd.number), file=sys.stderr)
    else:
        print(_("companion club: round {n} stored in {path} (no dashboard running: it is "
                "sent to the tables when one starts)").format(n=rnd.number, path=state_dir),
              file=sys.stderr)
    return 0


def seat_round_here(state_dir: Path, game: str, present: Sequence[str],
                    tables: int | Sequence[str], seed: int | None = None,
                    wall: Callable[[], float] = time.time, *,
                    online: set[str] | None = None) -> tuple[nights.Round, Any]:
    """Seat the night's next round in ``state_dir`` and store it (one at a time: the
    command and the club page may both try); the round and what it says of tonight's
    tables (:class:`~companion.club.tonight.Tonight`). ``online``: the tables online now
    (the running dashboard's own page knows); else read from the running dashboard's
    state dir, or unknown when none runs."""
    from companion.club import tonight
    from companion.errors import BadName

    state_dir = Path(state_dir)
    if online is None and DashboardLock.held(state_dir):
        online = tonight.online_now(state_dir)
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        with open(state_dir / "club-night.lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            now = wall()
            night = nights.load(state_dir, nights.night_of(now))
            club = tonight.club_tables(state_dir, online)
            matches = finished_matches(state_dir, night)
            try:
                rnd = nights.next_round(night, game, present, tonight.candidates(club, tables),
                                        matches, now, seed)
            except (NightError, BadName) as err:  # the game, the names, the seating
                raise RoundRefused(str(err)) from None
            said = tonight.said(rnd, club, tables, known=online is not None)
            night.rounds.append(rnd)
            nights.save(state_dir, night)
    except OSError as err:
        raise NightError(_("cannot keep the night in {path}: {problem}").format(
            path=state_dir, problem=err.strerror or err)) from None
    return rnd, said


def round_text(rnd: nights.Round) -> str:
    from companion.games import title

    lines = [_("Round {n}: {game} (draw seed {seed})").format(
        n=rnd.number, game=title(rnd.game), seed=rnd.seed)]
    width = max(len(seat.table) for seat in rnd.seats)
    lines += [f"  {seat.table:<{width}}  {', '.join(seat.players)}" for seat in rnd.seats]
    return "\n".join(lines)


def finished_matches(state_dir: Path, night: nights.Night) -> list[Any]:
    """The dashboard's matches finished since the night began (none without rounds or
    without a store yet)."""
    from companion.store import Store

    path = Path(state_dir) / Store.DEFAULT_NAME
    if not night.rounds or not path.exists():
        return []
    with Store(path, readonly=True) as store:
        return nights.matches_of(store, night)
