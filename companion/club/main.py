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

__all__ = ["club_main", "review_main"]


def review_main(state_dir: Path, decision: tuple[str, str] | None = None, *,
                as_json: bool = False, out: Any = None) -> int:
    """``companion club --review`` (``decision`` None), ``--accept UID`` / ``--refuse
    UID`` (``("accepted", UID)``, ``("refused", UID)``): the matches held for the
    organiser, read from (and the decision written to) the dashboard's ledger; the
    dashboard applies a decision within a few seconds, or when it next starts. 0, or 1
    when there is no dashboard in ``state_dir`` or nothing of UID is held."""
    import json
    import sys

    from companion.club.ledger import LEDGER_NAME, Ledger
    from companion.club.review import held_line

    out = out or sys.stdout
    path = Path(state_dir) / LEDGER_NAME
    if not path.exists():
        print(f"companion club: no club dashboard has kept its book in {state_dir}",
              file=sys.stderr)
        return 1
    ledger = Ledger(path)
    try:
        if decision is None:
            held = ledger.held()
            if as_json:
                print(json.dumps({"held": held}, sort_keys=True), file=out)
            elif not held:
                print("No match waits for the organiser.", file=out)
            for row in [] if as_json else held:
                print(f"{row['uid']}  {held_line(row)}", file=out)
            return 0
        verdict, uid = decision
        row = ledger.decide(uid, verdict)
        if row is None:
            print(f"companion club: no match {uid} waits for the organiser "
                  "(companion club --review lists them)", file=sys.stderr)
            return 1
        print(f"{verdict.capitalize()}: {held_line(row)}. The dashboard applies it within "
              "a few seconds (when it next starts, if it is not running).", file=out)
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
    dashboard.on_notice = lambda text: print(f"companion club: {text}", file=out, flush=True)
    dashboard.start()
    server = None
    try:
        if web:
            from companion.club.web import serve

            server = serve(dashboard, web, hosts)
        print(f"companion club: keeping every table's matches in {dashboard.db_path}"
              + (f"; the club page is on {server.url}" if server else ""), file=out,
              flush=True)
        if server is not None:  # the organiser seats rounds from the page with it
            print(f"companion club: the organiser's link: {server.organiser_link}",
                  file=out, flush=True)
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
