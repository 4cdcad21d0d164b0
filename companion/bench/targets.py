"""What ``companion bench`` holds its figures against: every target of docs/design.md,
defined here once, one entry a figure.

A figure is named by its JSON key in the bench's output, dotted through its section
(``"stats.stats_s"``; ``"peak_rss_mb"`` at the top). :func:`held` turns a bench's
results into the ``"targets"`` object of ``companion bench --json``; :func:`lines` is
its plain output, :func:`verdict` the words beside a figure (met, missed).
tests/test_design.py checks that docs/design.md lists exactly these targets, with the
same numbers.

A new figure with a target is one more :class:`Target` in the tuple of the command
that measures it (:data:`DEVICE`, :data:`CLUB`, :data:`CLUB_RESTART`) and one more row
in docs/design.md's table.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

#: The language the device benches also run in: a language set must change neither
#: the cold start nor press-to-frame.
SPOKEN = "de"

#: How a figure is held against its target's limit.
COMPARE = {"<=": operator.le, "<": operator.lt, "==": operator.eq}


class Target(NamedTuple):
    """One figure's target: ``figure op limit`` (in ``unit``).

    ``size`` is what the target is stated for, when the bench can measure less (a
    quick run, fewer club tables): the dotted key of the amount measured and the
    amount the target is for. ``void_if`` names a key whose presence says the figure
    does not measure what the target is about (the card's writes on a temporary
    directory kept in memory)."""

    figure: str
    limit: float
    unit: str = ""
    op: str = "<="
    size: tuple[str, float] | None = None
    void_if: str | None = None

    def shown(self) -> str:
        """The target as docs/design.md writes it: ``<= 2 ms``."""
        return f"{self.op} {self.limit:g}" + (f" {self.unit}" if self.unit else "")

    def judge(self, results: Mapping[str, Any]) -> dict[str, Any]:
        """This target's entry of the ``"targets"`` object: ``target``, ``op``,
        ``unit``, ``value``, ``met``; ``not_measured`` (why) when the results hold no
        value for it; ``workload`` when the figure was measured on less than the
        target is for."""
        entry: dict[str, Any] = {"target": self.limit, "op": self.op, "unit": self.unit}
        value = figure(results, self.figure)
        why = None
        if isinstance(value, Missing):
            why = value.why
        elif not isinstance(value, int | float) or isinstance(value, bool):
            why = "no number"
        elif not math.isfinite(value):  # a timer that broke: JSON has no NaN either
            why = "not a finite number"
        elif self.void_if is not None and not isinstance(
                note := figure(results, self.void_if), Missing):
            why = str(note)
        if why is not None:
            return {**entry, "value": None, "met": False, "not_measured": why}
        entry.update(value=value, met=COMPARE[self.op](value, self.limit))
        if self.size is not None:
            key, amount = self.size
            measured = figure(results, key)
            if isinstance(measured, Missing) or measured < amount:
                entry["workload"] = {"key": key.rsplit(".", 1)[-1], "target_for": amount,
                                     "measured": None if isinstance(measured, Missing)
                                     else measured}
        return entry


#: Why a figure has no value when its section says nothing of being skipped.
ABSENT = "no such figure in this run"


class Missing(NamedTuple):
    """No value at a dotted key, and why (its section was skipped, or it is absent)."""

    why: str


def figure(results: Mapping[str, Any], dotted: str) -> Any:
    """The value at ``dotted`` in ``results``, or :class:`Missing` with the reason."""
    value: Any = results
    for part in dotted.split("."):
        if not isinstance(value, Mapping):
            return Missing(ABSENT)
        if part not in value:
            return Missing(str(value.get("skipped", ABSENT)))
        value = value[part]
    return Missing(ABSENT) if value is None else value


def finite(value: Any) -> Any:
    """``value`` with every number that is not finite (NaN, infinity) as None, so that
    ``--json`` prints strict JSON: such a figure was not measured (its target says so)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value


def held(results: Mapping[str, Any], targets: Sequence[Target]) -> dict[str, dict[str, Any]]:
    """The ``"targets"`` object: every target's entry, keyed by its figure."""
    return {target.figure: target.judge(results) for target in targets}


def limit(targets: Sequence[Target], name: str) -> float:
    """The limit of the target on figure ``name`` (for the figures that also print
    their target under a key of their own)."""
    return next(target.limit for target in targets if target.figure == name)


def verdict(entry: Mapping[str, Any]) -> str:
    """One entry in words: ``met``, ``missed``, ``met at 500 of 10000 matches`` (a
    smaller workload than the target's), or ``not measured (why)``."""
    if "not_measured" in entry:
        return f"not measured ({entry['not_measured']})"
    said = "met" if entry["met"] else "missed"
    workload = entry.get("workload")
    if workload:
        measured = workload["measured"]
        shown = "?" if measured is None else f"{round(measured, 2):g}"
        said += f" at {shown} of {workload['target_for']:g} {workload['key']}"
    return said


def verdicts(entries: Sequence[Mapping[str, Any]]) -> str:
    """Several entries printed on one line (a figure's round 1 and its later rounds):
    the first that is not met, else the first."""
    return next((verdict(entry) for entry in entries if not entry["met"]),
                verdict(entries[0]))


def line(entry: Mapping[str, Any]) -> str:
    """``target <= 2 ms: met``, as the plain output prints it beside the figure."""
    target = Target("", entry["target"], entry["unit"], entry["op"])
    return f"target {target.shown()}: {verdict(entry)}"


def lines(results: Mapping[str, Any], targets: Sequence[Target]) -> list[str]:
    """The plain output: a line a figure (section, key, value), and beside a figure
    with a target, the target and whether it was met."""
    entries = held(results, targets)
    rows = [(section, key, value) for section, values in results.items()
            for key, value in (values.items() if isinstance(values, Mapping)
                               else [("", values)])]  # "": a figure of its own
    said = {f"{section}.{key}" if key else section for section, key, _ in rows}
    # A target whose figure this run could not measure (no browser, no web stack) is
    # still said, so that a missing figure never reads as a target met.
    rows += [(*name.partition(".")[::2], None) for name in entries if name not in said]
    wide = max(len(section) for section, _, _ in rows)
    wider = max(len(key) for _, key, _ in rows)
    printed = []
    for section, key, value in rows:
        shown = "-" if value is None else f"{value:.3f}" if isinstance(value, float) \
            else str(value)
        entry = entries.get(f"{section}.{key}" if key else section)
        printed.append(f"{section:{wide}} {key:{wider}} {shown:>10}   "
                       f"{line(entry) if entry else ''}".rstrip())
    return printed


#: ``companion bench``: the device, its store, its page.
DEVICE: tuple[Target, ...] = (
    Target("cold_start.ratio", 1.3, "x"),
    Target(f"cold_start.ratio_{SPOKEN}", 1.3, "x"),
    Target("peak_rss_mb", 45, "MB"),
    Target("press_to_frame.median_ms", 2, "ms"),
    Target(f"press_to_frame_{SPOKEN}.median_ms", 2, "ms"),
    Target("panel_bytes.share_of_full_frames", 0.25),
    Target("idle.cpu_percent", 0.5, "%", "<"),
    Target("replay.replay_ms", 100, "ms", size=("replay.events", 10_000)),
    Target("stats.stats_s", 1, "s", size=("stats.matches", 10_000)),
    Target("stats.history_first_ms", 100, "ms", size=("stats.matches", 10_000)),
    Target("stats.history_after_finish_ms", 100, "ms", size=("stats.matches", 10_000)),
    Target("stats.history_again_ms", 100, "ms", size=("stats.matches", 10_000)),
    Target("import.rss_growth_mb", 64, "MB", size=("import.export_mb", 50)),
    Target("import.import_s", 30, "s", size=("import.export_mb", 50)),
    Target("card_writes.storage_bytes_per_event", 6144, "bytes",
           void_if="card_writes.storage_note"),
    Target("web.press_to_dom_median_ms", 50, "ms"),
    Target("web.idle_cpu_percent", 0.5, "%", "<"),
    Target("web.rss_added_mb", 25, "MB"),
    Target("web.page_kb", 150, "KB"),
    Target("web.page_loads_refused", 0, op="=="),
    Target("speech.first_audio_median_ms", 150, "ms"),
    Target("speech.press_to_frame_median_ms", 2, "ms"),
)

#: ``companion bench --club``: many tables through one broker, and seating a night.
CLUB: tuple[Target, ...] = (
    Target("lag_ms.p95", 100, "ms", size=("tables", 200)),
    Target("seating.round_1_s", 1.0, "s"),
    Target("seating.later_max_s", 1.0, "s"),
    Target("seat_form.seat_max_s", 0.2, "s"),
    Target("seat_form.viewer_wait_max_ms", 50, "ms"),
)

#: ``companion bench --club --finished N``: a dashboard's restart.
CLUB_RESTART: tuple[Target, ...] = (
    Target("restart_s", 2.0, "s", size=("finished_matches", 10_000)),
)
