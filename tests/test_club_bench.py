"""``companion bench --club`` runs end to end (figures only: no speed is asserted)."""

from __future__ import annotations

import io
import json

from companion.bench.club import bench_club_main
from tests.mosquitto import need_mosquitto


def test_the_club_bench_counts_every_event_and_reports_lag_and_cpu():
    """With ``--load``: a spinning process of its own beside it, ended with the bench."""
    import multiprocessing

    need_mosquitto()
    out = io.StringIO()
    assert bench_club_main(tables=3, seconds=2, as_json=True, out=out, load=True) == 0
    assert not multiprocessing.active_children()  # the busy core stopped with it
    result = json.loads(out.getvalue())
    assert result["load"] is True
    form = result["seat_form"]  # timed, never asserted on: that it seated every round
    assert (form["players"], form["tables"], form["rounds"]) == (200, 50, 6)
    assert form["seat_max_s"] > 0 and form["viewer_wait_max_ms"] >= 0
    assert result["tables"] == 3 and result["events_sent"] >= 3
    assert result["events_stored"] == result["events_sent"]
    assert result["stored_total"] == result["played_total"] >= result["events_sent"]
    lag = result["lag_ms"]
    assert 0 <= lag["p50"] <= lag["p95"] <= lag["max"]
    assert result["dashboard_cpu_percent"] >= 0
    seating = result["seating"]  # timed, never asserted on: only that it ran whole
    assert (seating["players"], seating["tables"], seating["rounds"]) == (200, 50, 6)
    assert seating["repeats"] == 0 and seating["later_max_s"] >= 0
