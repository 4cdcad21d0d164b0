"""``companion export``: matches out of the game log as JSON lines (or a score sheet),
which ``companion replay`` and ``companion import`` read back.

``jsonl`` writes what ``companion replay`` reads back (the lines themselves, and the
score sheet, are :mod:`companion.transcript`'s: the page and the serial console write
the same bytes).
``--all`` writes every finished match, one after the other. ``csv`` writes the scores:
a row per hand, round or game, as the game is counted at the table (when its result
lists them; the first column is named so: ``hand`` for Final Count, ``round`` for Block
Lottery and the scoreboard, ``game`` for the match games) and a ``total`` row::

    $ companion export --state-dir /var/lib/companion --match last --format csv
    hand,Ann,Bob
    1,64,0
    2,0,71
    total,64,71

The log is opened read-only (``mode=ro``), so exporting while the device plays is safe
and never creates a database where there is none. Every failure is one line on
``err`` and a non-zero exit status; nothing is written to ``out`` then.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from companion.errors import StoreError
from companion.lang import _
from companion.store import MatchRecord, Store
from companion.transcript import match_text

__all__ = ["FORMATS", "export_main"]

FORMATS = ("jsonl", "csv")

_PROG = "companion export"


def export_main(
    state_dir: str,
    match: str,
    fmt: str,
    out: TextIO | None = None,
    err: TextIO | None = None,
    *,
    every: bool = False,
    table: str | None = None,
) -> int:
    """Export one match (``every``: every finished match, as jsonl; ``table``: of that
    club table only); return the exit status (0 ok, 1 failure, 2 bad format).

    ``match`` is a match id, ``current`` or ``last``. ``out``/``err`` default to the
    process's stdout/stderr at call time (so test capture and redirection both work).
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    if fmt not in FORMATS:
        print(f"{_PROG}: " + _("unknown format {value} (formats: {formats})").format(
            value=repr(fmt), formats=", ".join(FORMATS)), file=err)
        return 2
    if every and fmt != "jsonl":
        print(f"{_PROG}: " + _("--all writes jsonl (a score sheet is one match)"), file=err)
        return 2
    directory = Path(state_dir)
    if not directory.is_dir():
        print(f"{_PROG}: " + _("no state directory {folder}").format(folder=directory),
              file=err)
        return 1
    path = directory / Store.DEFAULT_NAME
    if not path.is_file():
        print(f"{_PROG}: " + _("no game log in {folder} ({file} not found)").format(
            folder=directory, file=Store.DEFAULT_NAME), file=err)
        return 1
    try:
        with Store(path, readonly=True) as store:
            if every:
                text = "".join(match_text(store, record, "jsonl") or ""
                               for record in _every_finished(store)
                               if table is None or record.origin == table)
            else:
                record = store.match(store.resolve(match))
                found = match_text(store, record, fmt)
                if found is None:
                    print(f"{_PROG}: " + _("match {n} has no scores to export").format(
                        n=record.id), file=err)
                    return 1
                text = found
    except StoreError as error:
        print(f"{_PROG}: {error}", file=err)
        return 1
    # Built whole first, so a failure above never leaves half a file on ``out``.
    try:
        out.write(text)
        out.flush()
    except OSError as error:  # a full disk, or a closed pipe (``| head``)
        print(f"{_PROG}: " + _("cannot write the export: {reason}").format(
            reason=error.strerror or error), file=err)
        return 1
    return 0


def _every_finished(store: Store) -> list[MatchRecord]:
    """Every finished match, oldest id first (so an import keeps their order)."""
    return sorted(store.history(limit=2**62), key=lambda record: record.id)
