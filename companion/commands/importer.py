"""``companion import FILE``: the matches of an export (:mod:`companion.transcript`) into
this device's game log.

Every match is read, its players' names checked by the one name rule, its events
replayed through its engine and its times checked against what can be (finished after
it started, every event inside its match, nothing before 2000 or more than a day ahead
of this device's clock). Only if every match passes is anything stored: each as a
finished match with its own times and uid; its players join the roster. A match
stored already is refused and said, never stored twice: the same uid, or the same
game, players, options, times and events under another uid (a copy with its label
edited is still the same game, and ``stats`` must not count it twice).

A long history on a small Pi: the file is read twice, one match at a time (first the
checks, then the storing, :data:`BATCH` matches a commit), so memory stays flat however
long the file (``companion bench`` measures a 50 MB export). A line longer than
:data:`LINE_MAX` characters is refused before it is parsed, and every refusal is one
line naming the file's line, a long field cut (:func:`companion.errors.one_line`)::

    $ companion import backup.jsonl
    line 1: stored as match 12 (Final Count: Ann, Bob)
    $ companion import edited.jsonl
    companion import: edited.jsonl: line 1: "finished" is before "started"; nothing was imported
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from companion import games
from companion.errors import (
    BadName,
    BadSetup,
    CompanionError,
    DuplicateMatch,
    FileChanged,
    IllegalEvent,
    ImportRefused,
    LineError,
    RosterFull,
    StoreError,
    one_line,
    written,
)
from companion.jsonlines import EVENT_TIME, START_EXTRAS, is_undone, load_json, without_time
from companion.lang import _, ngettext, pgettext
from companion.names import check_players, seat_checked
from companion.store import Store, TakenBack, checked_uid, joining
from companion.words import counted

__all__ = [
    "BATCH",
    "LINE_MAX",
    "ExportedMatch",
    "ImportRefused",
    "check_match",
    "import_main",
    "import_stream",
    "import_text",
    "iter_export",
    "read_export",
]

#: The longest line read (characters): an export's lines are far shorter; a longer one
#: is refused before it is parsed, so one line can never take the memory.
LINE_MAX = 1 << 20
#: Matches stored per commit (one sync each).
BATCH = 500
#: No match was played before this (2000-01-01 00:00 UTC); earlier is a broken clock
#: or an edited file.
TIME_FLOOR = 946_684_800.0
#: How far ahead of this device's clock a time may be (clocks disagree a little).
AHEAD_MAX = 86_400.0

_IMPORT = "companion import"

#: Opens the file to import once more (it is read twice).
Opener = Callable[[], AbstractContextManager[TextIO]]


@dataclass
class ExportedMatch:
    """One match as an export file has it: its start line and its event lines. The
    times are as written (checked by :func:`check_match`)."""

    line: int
    game: str
    players: list[str]
    options: dict[str, Any]
    uid: str | None = None
    origin: str = ""
    started: float | None = None
    finished: float | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    #: When each event was stored (None where the line has no ``"at"``).
    times: list[float | None] = field(default_factory=list)
    #: The line number of each event.
    lines: list[int] = field(default_factory=list)
    #: The events taken back by undo (lines marked ``"undone": true``): the place each
    #: held, the event, its time as written (or None) and its line. They never count.
    undone: list[tuple[int, dict[str, Any], float | None, int]] = field(default_factory=list)

    def identity(self) -> str:
        """The uid, or (a file from before uids) one made from what was played, so the
        same file imported twice is still seen as the same match."""
        if self.uid:
            return self.uid
        played = [self.game, self.players, self.options, self.events]
        digest = hashlib.sha256(json.dumps(played, sort_keys=True).encode("utf-8"))
        return "import-" + digest.hexdigest()[:32]


def numbered_lines(source: TextIO) -> Iterator[tuple[int, str]]:
    """(number, line) for each line of ``source``; ImportRefused for one longer than
    :data:`LINE_MAX`, before more of it is read."""
    number = 0
    while True:
        line = source.readline(LINE_MAX + 1)
        if not line:
            return
        number += 1
        if number == 1:  # a byte order mark (a Windows editor's) is no part of the line
            line = line.removeprefix("\ufeff")
        if len(line) > LINE_MAX and not line.endswith("\n"):
            raise ImportRefused(_("line {line}: longer than {total} characters (not a line "
                                  "of an export)").format(line=number, total=f"{LINE_MAX:,}"))
        yield number, line


def iter_export(source: TextIO) -> Iterator[ExportedMatch]:
    """The matches of an export file, one at a time as they are read: each a ``start``
    line (with ``game`` and ``players``) then its events. ImportRefused names the first
    line that is wrong."""
    match: ExportedMatch | None = None
    for number, line in numbered_lines(source):
        if not line.strip():
            continue
        try:
            value = load_json(line)
        except ValueError as problem:
            raise ImportRefused(_("line {line}: not JSON ({reason})").format(
                line=number, reason=problem)) from None
        if not isinstance(value, dict):
            raise ImportRefused(_("line {line}: an event is a JSON object").format(line=number))
        if value.get("type") == "start":
            if match is not None:
                yield match
            match = _start_line(number, value)
            continue
        if match is None:
            raise ImportRefused(_("line {line}: a match begins with a start line (as "
                                  "companion export writes it)").format(line=number))
        at = value.get(EVENT_TIME)
        if at is not None and not _is_number(at):
            # Translators: {key} (and {other}) in these lines is a field of the export's
            # JSON ("at", "players", "started"): programs read it, it stays as it is.
            raise ImportRefused(_('line {line}: "{key}" is a time in seconds').format(
                line=number, key=EVENT_TIME))
        try:
            gone = is_undone(value, number)
        except LineError as problem:
            raise ImportRefused(str(problem)) from None
        if gone:  # never replayed: only what every event is, a "type", is checked
            if not isinstance(value.get("type"), str) or not value["type"]:
                raise ImportRefused(_("line {line}: {reason}").format(
                    line=number, reason=pgettext("screen 21xN", 'an event needs a "type"')))
            match.undone.append((len(match.events) + 1, without_time(value), at, number))
            continue
        match.events.append(without_time(value))
        match.times.append(at)
        match.lines.append(number)
    if match is None:
        raise ImportRefused(_("no match in the file (it is empty)"))
    yield match


def read_export(text: str) -> list[ExportedMatch]:
    """Every match of an export held in memory (:func:`iter_export` over ``text``)."""
    return list(iter_export(io.StringIO(text)))


def _start_line(number: int, start: dict[str, Any]) -> ExportedMatch:
    known = ("type", "game", "players", "options", *START_EXTRAS)
    extra = [key for key in start if key not in known]
    if extra:
        raise ImportRefused(_("line {line}: a start line has no field {key}").format(
            line=number, key=written(extra[0])))
    game, players, options = start.get("game"), start.get("players"), start.get("options", {})
    if not isinstance(game, str) or not game:
        raise ImportRefused(_('line {line}: the start line names no "{key}"').format(line=number,
                                                                            key="game"))
    if not isinstance(players, list) or not all(isinstance(name, str) for name in players):
        raise ImportRefused(_('line {line}: "{key}" is a list of names').format(line=number,
                                                                       key="players"))
    if not isinstance(options, dict):
        raise ImportRefused(_('line {line}: "{key}" is an object, like {{"hit_goal": true}}')
                            .format(line=number, key="options"))
    for key in ("started", "finished"):
        if start.get(key) is not None and not _is_number(start[key]):
            raise ImportRefused(_('line {line}: "{key}" is a time in seconds').format(
                line=number, key=key))
    uid, origin = start.get("uid"), start.get("origin", "")
    if uid is not None:
        try:
            checked_uid(uid)  # the store's own rule, before anything is stored
        except StoreError as problem:
            raise ImportRefused(_("line {line}: {reason}").format(
                line=number, reason=problem)) from None
    if not isinstance(origin, str):
        raise ImportRefused(_('line {line}: "{key}" is text').format(line=number, key="origin"))
    return ExportedMatch(line=number, game=game, players=list(players), options=dict(options),
                         uid=uid, origin=origin, started=start.get("started"),
                         finished=start.get("finished"))


def _is_number(value: Any) -> bool:
    """A JSON number that can be a time (any size: the range is checked later, without
    ever making a float of a 300-digit whole number)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return isinstance(value, int) or math.isfinite(value)


@dataclass
class _Checked:
    """A match that replayed and whose times can be: what the store keeps of it."""

    source: ExportedMatch
    result: dict[str, Any]
    times: list[float]
    started: float
    finished: float
    #: The events taken back, as the store keeps them.
    undone: list[TakenBack] = field(default_factory=list)


def check_match(match: ExportedMatch, roster: Sequence[str], now: float) -> _Checked:
    """Replay ``match`` through its engine, check its names and its times; ImportRefused
    (naming the line) if it cannot be stored as a finished match. ``now`` is this
    device's clock (the times of an old file without any)."""
    _check_names(match.players, roster, match.line)
    try:
        played = games.engine(match.game).replay(match.players, match.options, match.events)
    except (BadSetup, CompanionError) as problem:
        index = getattr(problem, "index", None)
        if isinstance(problem, IllegalEvent) and index is not None:
            raise ImportRefused(_("line {line}: {reason}").format(
                line=match.lines[index], reason=problem)) from None
        raise ImportRefused(_("line {line}: {reason}").format(
            line=match.line, reason=problem)) from None
    if not played.over:
        last = match.lines[-1] if match.lines else match.line
        raise ImportRefused(_("line {line}: the match is not over (only finished matches are "
                              "imported)").format(line=last))
    started, finished, times, undone_at = _checked_times(match, now)
    undone = [TakenBack(seq, event, at, at) for (seq, event, _written, _line), at
              in zip(match.undone, undone_at, strict=True)]
    return _Checked(match, played.result(), times, started, finished, undone)


def _checked_times(match: ExportedMatch, now: float,
                   ) -> tuple[float, float, list[float], list[float]]:
    """(started, finished, each event's time, each undone event's time) for the store;
    ImportRefused for a time that cannot be. A file without times (an older export)
    takes them from ``now``."""
    def when(value: float | None, line: int, key: str) -> float | None:
        if value is None:
            return None
        if value < TIME_FLOOR:
            raise ImportRefused(_('line {line}: "{key}" is before 2000 (a broken clock?)')
                                .format(line=line, key=key))
        if value > now + AHEAD_MAX:
            raise ImportRefused(_('line {line}: "{key}" is more than a day ahead of this '
                                  "device's clock").format(line=line, key=key))
        return float(value)

    given_start = when(match.started, match.line, "started")
    given_end = when(match.finished, match.line, "finished")
    # Every event line in file order: (its time, its line, whether it was taken back).
    rows = sorted([*((at, line, False) for at, line in zip(match.times, match.lines,
                                                           strict=True)),
                   *((at, line, True) for _seq, _event, at, line in match.undone)],
                  key=lambda row: row[1])
    stated = [when(at, line, EVENT_TIME) for at, line, _ in rows]
    if None in stated and any(at is not None for at in stated):
        missing = rows[stated.index(None)][1]
        raise ImportRefused(_('line {line}: this event has no time ("{key}") but others do')
                            .format(line=missing, key=EVENT_TIME))
    times = [at for at, row in zip(stated, rows, strict=True) if at is not None and not row[2]]
    started = next(t for t in (given_start, times[0] if times else None, given_end, now)
                   if t is not None)
    finished = next(t for t in (given_end, times[-1] if times else None, started)
                    if t is not None)
    if finished < started:
        raise ImportRefused(_('line {line}: "{key}" is before "{other}"').format(
            line=match.line, key="finished", other="started"))
    for at, row in zip(stated, rows, strict=True):
        line = row[1]
        if at is not None and not started <= at <= finished:
            said = (_('line {line}: "{key}" is before it started (outside its match)')
                    if at < started else
                    _('line {line}: "{key}" is after it finished (outside its match)'))
            raise ImportRefused(said.format(line=line, key=EVENT_TIME))
    undone_at = [started if at is None else at
                 for at, row in zip(stated, rows, strict=True) if row[2]]
    return started, finished, times or [started] * len(match.events), undone_at


def _check_names(players: Sequence[str], roster: Sequence[str], line: int) -> None:
    """The one name rule (:func:`companion.names.seat_players`, its two steps, each name
    checked once): each name as the rule writes it, none like another seated one, and
    none new to the roster that looks like a roster name ("Ànn" beside "Ann"). A
    spelling of a roster player is that player ("Bob" when the roster says "Вob" since
    a rename): never refused, and the match keeps the names it was played under."""
    try:
        cleaned = check_players(players)
        seat_checked(cleaned, roster)
    except BadName as refused:
        raise ImportRefused(_("line {line}: {reason}").format(line=line, reason=refused)) \
            from None
    for given, clean in zip(players, cleaned, strict=True):
        if given != clean:
            raise ImportRefused(_("line {line}: the name {given} is written {clean} here")
                                .format(line=line, given=written(given), clean=written(clean)))


def import_stream(store: Store, reopen: Opener, report: Callable[[str], None],
                  now: float | None = None) -> tuple[int, int]:
    """Import every match of the file ``reopen`` opens into ``store``: (stored, refused
    as stored before). The file is read twice, one match at a time: every match is
    checked first (ImportRefused for the first that fails, and then nothing is
    stored), then stored :data:`BATCH` a commit. ``report`` gets a line per match
    stored or refused."""
    now = time.time() if now is None else now
    roster = store.roster()
    joined = list(roster)  # with the names the file's matches before this one bring
    with reopen() as source:
        for match in iter_export(source):
            if _stored_already(store, match):
                check_match(match, (), now)  # it brings no one to the roster
                continue
            check_match(match, roster, now)
            try:
                joined += joining(joined, match.players)
            except RosterFull as full:
                raise ImportRefused(_("line {line}: {reason}").format(
                    line=match.line, reason=full)) from None
    stored = refused = 0
    batch: list[_Checked] = []
    try:
        with reopen() as source:
            for match in iter_export(source):
                batch.append(check_match(match, () if _stored_already(store, match)
                                         else roster, now))
                if len(batch) == BATCH:
                    done = _store_batch(store, batch, report)
                    stored, refused, batch = stored + done[0], refused + done[1], []
        done = _store_batch(store, batch, report)
    except ImportRefused as problem:  # only if the file changed between the two reads
        raise FileChanged(ngettext(
            "{reason} (the file changed while it was read; {n} match was stored before it)",
            "{reason} (the file changed while it was read; {n} matches were stored before it)",
            stored).format(reason=problem, n=stored)) from None
    return stored + done[0], refused + done[1]


def _stored_already(store: Store, match: ExportedMatch) -> bool:
    """Whether a match with this one's uid is in the log: its names were played here
    (a roster name renamed since, "Ann" to "Ànn", is no new lookalike), and it is
    refused as stored already, never stored twice."""
    return store.find_uid(match.identity()) is not None


def _store_batch(store: Store, batch: Sequence[_Checked],
                 report: Callable[[str], None]) -> tuple[int, int]:
    """Store ``batch`` in one commit: (stored, refused as stored before)."""
    if not batch:
        return 0, 0
    answers = store.import_many([
        {"game_id": checked.source.game, "players": checked.source.players,
         "options": checked.source.options,
         "events": list(zip(checked.source.events, checked.times, strict=True)),
         "started": checked.started, "finished": checked.finished, "result": checked.result,
         "uid": checked.source.identity(), "origin": checked.source.origin,
         "undone": checked.undone}
        for checked in batch])
    stored = refused = 0
    for checked, answer in zip(batch, answers, strict=True):
        source = checked.source
        if isinstance(answer, DuplicateMatch):
            refused += 1
            report(_("line {line}: not imported: this match is stored already (as match {n})")
                   .format(line=source.line, n=answer.match_id))
            continue
        stored += 1
        # Translators: {game} is a game's name as its rule sheet prints it (Final Count).
        report(_("line {line}: stored as match {n} ({game}: {names})").format(
            line=source.line, n=answer, game=games.title(source.game),
            names=", ".join(source.players)))
    return stored, refused


def import_text(store: Store, text: str, report: Callable[[str], None],
                now: float | None = None) -> tuple[int, int]:
    """:func:`import_stream` of an export held in memory."""
    return import_stream(store, lambda: nullcontext(io.StringIO(text)), report, now)


@contextmanager
def _opener(path: str, spool_dir: Path) -> Iterator[Opener]:
    """How to read ``path`` twice: a regular file is opened again; standard input
    (``-``), a pipe or a device is copied once into a file in ``spool_dir`` (the state
    directory: on the card, not in memory), line by line under the same line cap."""
    if path != "-" and Path(path).is_file():
        yield lambda: open(path, encoding="utf-8")  # noqa: SIM115 - the caller closes it
        return
    source: TextIO = sys.stdin if path == "-" else open(path, encoding="utf-8")  # noqa: SIM115
    directory = spool_dir if spool_dir.is_dir() else None
    with tempfile.TemporaryFile("w+", encoding="utf-8", dir=directory) as spool:
        try:
            for _number, line in numbered_lines(source):
                spool.write(line)
        finally:
            if source is not sys.stdin:
                source.close()

        def again() -> AbstractContextManager[TextIO]:
            spool.seek(0)
            return nullcontext(spool)

        yield again


def import_main(
    state_dir: str, path: str, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """``companion import FILE``: 0 when every match was stored, 1 when any was refused
    (a bad file stores nothing; the line and the reason are printed)."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    named = one_line(path)
    try:
        with _opener(path, Path(state_dir)) as reopen, Store.in_dir(state_dir) as store:
            stored, refused = import_stream(store, reopen, lambda line: print(line, file=out))
    except ImportRefused as problem:
        said = (one_line(problem) if isinstance(problem, FileChanged) else
                _("{reason}; nothing was imported").format(reason=one_line(problem)))
        print(f"{_IMPORT}: {named}: {said}", file=err)
        return 1
    except StoreError as problem:
        print(f"{_IMPORT}: {one_line(problem)}", file=err)
        return 1
    except UnicodeDecodeError:
        print(f"{_IMPORT}: " + _("cannot read {file}: it is not UTF-8 text").format(
            file=named), file=err)
        return 1
    except OSError as problem:
        print(f"{_IMPORT}: " + _("cannot read {file}: {reason}").format(
            file=named, reason=problem.strerror or problem), file=err)
        return 1
    if refused:
        # Translators: {matches} is a count of matches in words ("2 matches").
        print(f"{_IMPORT}: " + _("{matches} stored already (not imported again); {n} stored")
              .format(matches=counted(refused, "match"), n=stored), file=err)
        return 1
    return 0
