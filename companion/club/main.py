"""``companion club``: the dashboard and, with ``--web``, the club page over it, run
until SIGTERM or Ctrl-C.

Above both :mod:`companion.club.dashboard` and :mod:`companion.club.web` (the page needs
the dashboard; the command joins the two), so neither imports the other back.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from companion.club.dashboard import Dashboard
from companion.lang import _

__all__ = ["club_main", "organiser_main", "review_main"]


def _ledger(state_dir: Path) -> Any:
    """The dashboard's ledger in ``state_dir``, or None (said on stderr) when no
    dashboard has kept its book there."""
    import sys

    from companion.club.ledger import LEDGER_NAME, Ledger

    path = Path(state_dir) / LEDGER_NAME
    if not path.exists():
        print(_("companion club: no club dashboard has kept its book in {path}")
              .format(path=state_dir), file=sys.stderr)
        return None
    return Ledger(path)


def organiser_main(state_dir: Path, *, move: tuple[str, str] | None = None,
                   season: Any = None, out: Any = None) -> int:
    """``companion club --move-device ID --to TABLE`` (``move``) or ``--lock-season
    NAME`` (``season``), written in the dashboard's ledger (a running dashboard reads it
    within a few seconds). 0, or 1 when there is no dashboard in ``state_dir``, the
    device was never heard of, or the season is locked already."""
    import sys

    from companion.club.organiser_tools import lock_season
    from companion.club.review import day_and_hour
    from companion.store import Store

    out = out or sys.stdout
    ledger = _ledger(state_dir)
    if ledger is None:
        return 1
    try:
        if move is not None:
            device, table = move
            before = ledger.move(device, table)
            if before is None:
                print(_("companion club: no device {device} has been heard by the dashboard "
                        "(companion club --review lists the refused ones)")
                      .format(device=device), file=sys.stderr)
                return 1
            print(_("Device {device} moved from {before} to {table}: its matches are taken "
                    "for {table} from now on (the running dashboard within a few seconds, "
                    "when it asks the table for what it dropped).")
                  .format(device=device[:16], before=before, table=table), file=out)
            return 0
        store = Store(Path(state_dir) / Store.DEFAULT_NAME, readonly=True)
        try:
            lock = lock_season(ledger, store, season)
        finally:
            store.close()
        if lock is None:
            since = day_and_hour(ledger.locked()[season.name]["at"])
            print(_("companion club: season {season} is locked already (since {when})")
                  .format(season=season.name, when=since), file=sys.stderr)
            return 1
        print(_("Season {season} locked: its standings stay as counted now, whatever "
                "arrives later.").format(season=season.name), file=out)
        return 0
    finally:
        ledger.close()


def review_main(state_dir: Path, decision: tuple[str, str] | None = None, *,
                as_json: bool = False, out: Any = None) -> int:
    """``companion club --review`` (``decision`` None), ``--accept UID`` / ``--refuse
    UID`` (``("accepted", UID)``, ``("refused", UID)``): the matches held for the
    organiser, read from (and the decision written to) the dashboard's ledger; the
    dashboard applies a decision within a few seconds, or when it next starts. 0, or 1
    when there is no dashboard in ``state_dir`` or nothing of UID is held."""
    import json
    import sys

    from companion.club.organiser_tools import refused_line
    from companion.club.review import held_line

    out = out or sys.stdout
    ledger = _ledger(state_dir)
    if ledger is None:
        return 1
    try:
        if decision is None:
            held, refused = ledger.held(), ledger.refused_devices()
            if as_json:
                print(json.dumps({"held": held, "refused_devices": refused},
                                 sort_keys=True), file=out)
                return 0
            if not held:
                print(_("No match waits for the organiser."), file=out)
            for row in held:
                print(f"{row['uid']}  {held_line(row)}", file=out)
            for row in refused:
                print(f"{row['device']}  {refused_line(row)}", file=out)
            return 0
        verdict, uid = decision
        row = ledger.decide(uid, verdict)
        if row is None:
            print(_("companion club: no match {uid} waits for the organiser (companion "
                    "club --review lists them)").format(uid=uid), file=sys.stderr)
            return 1
        said = (_("Accepted: {held}. The dashboard applies it within a few seconds (when "
                  "it next starts, if it is not running).") if verdict == "accepted" else
                _("Refused: {held}. The dashboard applies it within a few seconds (when it "
                  "next starts, if it is not running)."))
        print(said.format(held=held_line(row)), file=out)
        return 0
    finally:
        ledger.close()


def club_main(broker: str, state_dir: Path, *, web: str = "", club: Any = None,
              stop: threading.Event | None = None, out: Any = None,
              hosts: tuple[str, ...] = (), seasons: Sequence[Any] = ()) -> int:
    """``companion club``: run the dashboard (and the club page) until SIGTERM/Ctrl-C
    (or ``stop`` is set). The broker may be down at first: it is retried."""
    import signal
    import sys

    out = out or sys.stderr
    stop = stop or threading.Event()
    auth = {} if club is None else {"username": club.username, "password": club.password,
                                    "ca_file": club.ca_file}
    dashboard = Dashboard(broker, state_dir, **auth)
    dashboard.seasons = list(seasons)
    # Connected, lost, or cannot connect and why (a TLS failure): one line each, when it
    # happens, never "subscribed" before it is.
    dashboard.on_notice = lambda text: print(_("companion club: {notice}").format(notice=text),
                                             file=out, flush=True)
    dashboard.start()
    server = None
    try:
        if web:
            from companion.club.web import serve

            server = serve(dashboard, web, hosts)
        keeping = (_("companion club: keeping every table's matches in {path}; the club "
                     "page is on {url}") if server else
                   _("companion club: keeping every table's matches in {path}"))
        print(keeping.format(path=dashboard.db_path, url=server and server.url), file=out,
              flush=True)
        if server is not None:  # the organiser seats rounds from the page with it
            print(_("companion club: the organiser's link: {url}")
                  .format(url=server.organiser_link), file=out, flush=True)
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            stop.wait()
        except KeyboardInterrupt:
            pass
    finally:
        if server is not None:
            server.stop()
        dashboard.stop()
    return 0
