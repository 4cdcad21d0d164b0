"""``companion bench --club`` runs end to end (figures only: no speed is asserted)."""

from __future__ import annotations

import io
import json
import re

from companion.bench.club import bench_club_main
from tests.mosquitto import need_mosquitto


def test_the_club_bench_counts_every_event_and_reports_lag_and_cpu():
    """With ``--load``: a spinning process of its own beside it, ended with the bench."""
    import multiprocessing

    need_mosquitto()
    out = io.StringIO()
    before = set(multiprocessing.active_children())  # other tests' seat workers, if any
    assert bench_club_main(tables=3, seconds=2, as_json=True, out=out, load=True) == 0
    assert set(multiprocessing.active_children()) <= before  # the busy core stopped with it
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
    targets = result["targets"]  # each held against its target, met or not
    assert set(targets) == {"lag_ms.p95", "seating.round_1_s", "seating.later_max_s",
                            "seat_form.seat_max_s", "seat_form.viewer_wait_max_ms"}
    assert targets["lag_ms.p95"]["value"] == lag["p95"]
    assert targets["lag_ms.p95"]["workload"] == {"key": "tables", "target_for": 200,
                                                 "measured": 3}
    assert all(isinstance(entry["met"], bool) for entry in targets.values())


def test_the_club_bench_says_met_or_missed_beside_each_target():
    need_mosquitto()
    out = io.StringIO()
    assert bench_club_main(tables=2, seconds=1, out=out) == 0
    text = out.getvalue()
    assert re.search(r"target p95 <= 100 ms: (met|missed) at 2 of 200 tables\)", text), text
    assert re.search(r"target <= 1.0 s a round: (met|missed)\)", text), text
