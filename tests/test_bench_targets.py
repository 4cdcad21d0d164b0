"""``companion bench`` holds every figure against its target (issue 40.1): the
``"targets"`` object of ``--json`` and the plain output's met or missed, fed with made-up
measurements so that nothing here depends on the machine's speed; and the figures the
targets name are the ones the benches really print."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from companion.bench import device
from companion.bench.device import report
from companion.bench.targets import (
    CLUB,
    CLUB_RESTART,
    COMPARE,
    DEVICE,
    SPOKEN,
    Target,
    held,
    verdict,
)

BENCH = Path(device.__file__).parent


def measured(**changes: Any) -> dict[str, Any]:
    """A whole run of ``companion bench`` as it prints it, every figure within its
    target; ``changes`` replaces sections (``stats={...}``)."""
    results: dict[str, Any] = {
        "cold_start": {"import_floor_s": 0.5, "first_frame_s": 0.55, "ratio": 1.1,
                       f"first_frame_{SPOKEN}_s": 0.56, f"ratio_{SPOKEN}": 1.12,
                       "peak_rss_mb": 40.5},
        "press_to_frame": {"median_ms": 0.3, "p95_ms": 0.5, "presses": 200},
        f"press_to_frame_{SPOKEN}": {"median_ms": 0.31, "p95_ms": 0.52, "presses": 200},
        "panel_bytes": {"updates": 80, "bytes_per_update": 150.0,
                        "share_of_full_frames": 0.15},
        "panel_bytes_tools": {"updates": 70, "bytes_per_update": 120.0,
                              "share_of_full_frames": 0.12},
        "idle": {"seconds": 10.0, "cpu_percent": 0.01},
        "replay": {"events": 10_000, "replay_ms": 60.0},
        "stats": {"matches": 10_000, "events": 500_000, "stats_s": 0.9,
                  "history_warmup_s": 1.2, "history_unwarmed_ms": 900.0,
                  "history_first_ms": 20.0, "history_after_finish_ms": 30.0,
                  "history_again_ms": 2.0},
        "store": {"events": 200, "commit_ms": 3.0},
        "import": {"export_mb": 50.01, "matches": 90_000, "import_s": 25.0,
                   "rss_growth_mb": 20.0},
        "card_writes": {"page_size": 1024, "events_per_game": 31,
                        "sqlite_bytes_per_event": 1800.0, "sqlite_bytes_per_game": 72_000.0,
                        "storage_bytes_per_event": 5900.0,
                        "storage_bytes_per_game": 208_000.0},
        "web": {"page_kb": 60.0, "press_to_frame_quiet_median_ms": 3.0,
                "press_to_frame_loaded_median_ms": 5.0, "press_to_frame_loaded_p95_ms": 14.0,
                "page_loads_during": 460, "page_loads_refused": 0,
                "press_to_dom_median_ms": 12.0, "press_to_dom_p95_ms": 20.0,
                "idle_cpu_percent": 0.05, "rss_added_mb": 18.0},
        "speech": {"presses": 100, "no_audio": 0, "first_audio_median_ms": 28.0,
                   "press_to_frame_median_ms": 1.5},
        "peak_rss_mb": 40.5,
    }
    results.update(changes)
    return results


def as_json(results: dict[str, Any]) -> dict[str, Any]:
    out = io.StringIO()
    report(results, as_json=True, out=out)
    return json.loads(out.getvalue())


def plain(results: dict[str, Any]) -> dict[str, str]:
    """The plain output, one line a figure, by its dotted name."""
    out = io.StringIO()
    report(results, out=out)
    lines = {}
    for text in out.getvalue().splitlines():
        section, key, *_ = text.split()
        if re.fullmatch(r"[-\d.]+", key):  # a figure of its own: peak_rss_mb
            key = ""
        lines[".".join(part for part in (section, key) if part)] = text
    return lines


def test_json_keeps_every_figure_and_adds_one_entry_a_target():
    results = measured()
    printed = as_json(results)
    assert {key: value for key, value in printed.items() if key != "targets"} == results
    targets = printed["targets"]
    assert list(targets) == [target.figure for target in DEVICE]
    for target in DEVICE:
        entry = targets[target.figure]
        assert set(entry) == {"target", "op", "unit", "value", "met"}, target.figure
        assert entry["target"] == target.limit and entry["op"] == target.op
        assert entry["met"] is True, target.figure
    assert targets["stats.stats_s"]["value"] == 0.9
    assert targets["peak_rss_mb"] == {"target": 45, "op": "<=", "unit": "MB",
                                      "value": 40.5, "met": True}


@pytest.mark.parametrize(("section", "key", "value"), [
    ("stats", "stats_s", 1.47),
    ("press_to_frame", "median_ms", 2.01),
    ("idle", "cpu_percent", 0.5),  # the idle target is "below", so 0.5 misses it
    ("import", "import_s", 59.0),
    ("web", "page_loads_refused", 1),
    ("card_writes", "storage_bytes_per_event", 9830.4),
])
def test_a_figure_past_its_target_says_missed(section: str, key: str, value: float):
    results = measured()
    results[section] = {**results[section], key: value}
    entry = as_json(results)["targets"][f"{section}.{key}"]
    assert entry["value"] == value and entry["met"] is False
    line = plain(results)[f"{section}.{key}"]
    assert line.endswith(": missed"), line
    assert re.search(r"target (<=|<|==) [\d.]+", line)
    others = [entry for name, entry in as_json(results)["targets"].items()
              if name != f"{section}.{key}"]
    assert all(entry["met"] for entry in others)


def test_every_target_line_of_the_plain_output_says_met():
    lines = plain(measured())
    for target in DEVICE:
        assert lines[target.figure].endswith(f"target {target.shown()}: met"), target.figure
    assert "target" not in lines["store.commit_ms"]  # no target, nothing said


def test_a_smaller_workload_is_said_beside_met_or_missed():
    quick = measured(stats={**measured()["stats"], "matches": 500, "stats_s": 0.05},
                     **{"import": {**measured()["import"], "export_mb": 5.02,
                                   "import_s": 31.0}})
    targets = as_json(quick)["targets"]
    assert targets["stats.stats_s"]["met"] is True
    assert targets["stats.stats_s"]["workload"] == {"key": "matches", "target_for": 10_000,
                                                    "measured": 500}
    lines = plain(quick)
    assert lines["stats.stats_s"].endswith("met at 500 of 10000 matches")
    assert lines["import.import_s"].endswith("missed at 5.02 of 50 export_mb")
    assert "workload" not in targets["replay.replay_ms"]


def test_a_figure_not_measured_is_never_met_and_is_said():
    results = measured(web={"skipped": "no web stack (starlette)"})
    results["card_writes"] = {**results["card_writes"], "storage_bytes_per_event": 0.0,
                              "storage_note": "the temporary directory is in memory; set "
                                              "TMPDIR"}
    targets = as_json(results)["targets"]
    page = targets["web.page_kb"]
    assert page["met"] is False and page["value"] is None
    assert page["not_measured"] == "no web stack (starlette)"
    assert targets["card_writes.storage_bytes_per_event"]["met"] is False
    del results["peak_rss_mb"]
    lines = plain(results)
    assert lines["peak_rss_mb"].endswith("not measured (no such figure in this run)")
    assert lines["web.page_kb"].endswith(
        "target <= 150 KB: not measured (no web stack (starlette))")
    assert "not measured (the temporary directory is in memory" in \
        lines["card_writes.storage_bytes_per_event"]


def test_a_browser_figure_skipped_inside_its_section_is_said_not_measured():
    web = {key: value for key, value in measured()["web"].items()
           if not key.startswith("press_to_dom")}
    lines = plain(measured(web={**web, "skipped": "no Chromium (apt-get install chromium)"}))
    assert lines["web.press_to_dom_median_ms"].endswith(
        "not measured (no Chromium (apt-get install chromium))")
    assert lines["web.page_kb"].endswith("met")


def test_the_club_targets_hold_the_club_bench_figures():
    club = {"tables": 200, "seconds": 20.0, "lag_ms": {"p50": 12.0, "p95": 140.0, "max": 300.0},
            "seating": {"players": 200, "tables": 50, "rounds": 6, "round_1_s": 0.04,
                        "later_max_s": 0.05, "repeats": 0, "target_s": 1.0}}
    targets = held(club, CLUB)
    assert targets["lag_ms.p95"]["met"] is False and "workload" not in targets["lag_ms.p95"]
    assert verdict(targets["lag_ms.p95"]) == "missed"
    assert verdict(targets["seating.later_max_s"]) == "met"
    fewer = held({**club, "tables": 50, "lag_ms": {"p95": None}}, CLUB)["lag_ms.p95"]
    assert fewer["met"] is False and verdict(fewer) == "not measured (no such figure in this run)"
    restart = held({"finished_matches": 200, "restart_s": 0.1}, CLUB_RESTART)["restart_s"]
    assert verdict(restart) == "met at 200 of 10000 finished_matches"


def test_a_target_is_shown_as_the_design_writes_it():
    assert {target.op for target in (*DEVICE, *CLUB, *CLUB_RESTART)} <= set(COMPARE)
    assert Target("a.b", 0.25).shown() == "<= 0.25"
    assert Target("a.b", 6144, "bytes").shown() == "<= 6144 bytes"
    assert Target("a.b", 0.5, "%", "<").shown() == "< 0.5 %"


def test_every_target_names_a_figure_the_benches_print():
    """A figure's every part is a key the bench modules write (``_de`` as they spell
    it, ``_{SPOKEN}``), so that a renamed figure cannot leave its target behind."""
    sources = "\n".join(path.read_text(encoding="utf-8") for path in BENCH.glob("*.py")
                        if path.name != "targets.py")
    for target in (*DEVICE, *CLUB, *CLUB_RESTART):
        for part in (target.figure + "." + (target.size or ("",))[0]).split("."):
            if not part:
                continue
            spelt = part.replace(f"_{SPOKEN}", "_{SPOKEN}")
            assert re.search(rf'f?"{re.escape(spelt)}"', sources), (target.figure, part)


def test_the_figures_measured_here_are_held_against_their_targets():
    """Run the quick benches that take a moment and check their targets are judged
    (measured, whatever the machine's speed)."""
    results = {"press_to_frame": device.press_to_frame(4),
               "replay": device.replay_speed(10_000),
               "stats": device.stats_speed(30)}
    targets = as_json(results)["targets"]
    for name in ("press_to_frame.median_ms", "replay.replay_ms", "stats.stats_s",
                 "stats.history_again_ms"):
        assert "not_measured" not in targets[name], name
        assert isinstance(targets[name]["met"], bool)
    assert targets["stats.stats_s"]["workload"]["measured"] == 30


def test_a_figure_that_is_not_a_finite_number_is_not_measured_and_the_json_stays_strict():
    """A timer that broke (a ratio over nothing) must not print ``NaN`` or ``Infinity``:
    no JSON reader takes them, and ``--json`` is one JSON object, always."""
    results = measured(replay={"events": 10_000, "replay_ms": float("nan")})
    results["cold_start"] = {**results["cold_start"], "ratio": float("inf")}
    out = io.StringIO()
    report(results, as_json=True, out=out)

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in --json")

    printed = json.loads(out.getvalue(), parse_constant=refuse)
    assert printed["replay"]["replay_ms"] is None
    for name in ("replay.replay_ms", "cold_start.ratio"):
        entry = printed["targets"][name]
        assert entry["met"] is False and entry["value"] is None, name
        assert entry["not_measured"] == "not a finite number", name
    assert plain(results)["replay.replay_ms"].endswith("not measured (not a finite number)")
