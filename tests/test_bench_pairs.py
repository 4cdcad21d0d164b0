"""scripts/bench_pairs.py: two checkouts' bench figures in alternated pairs (the method of
docs/benchmarks.md). Its arithmetic is checked with a fake stopwatch; its program, the
one each checkout's interpreter runs, is run for real at small sizes (no speed is
asserted)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import bench_pairs  # noqa: E402  (scripts/bench_pairs.py)


def test_pairs_alternate_which_side_runs_first_and_take_the_median_ratio(monkeypatch):
    runs: list[str] = []
    # The machine slows down as the runs go on; the new side is 10 % slower throughout.
    speeds = {"old": 1.0, "new": 1.1}

    def fake_measure(python: str, figure: str, size: float, clock: str = "wall") -> float:
        runs.append(python)
        return speeds[python] * len(runs)

    monkeypatch.setattr(bench_pairs, "measure", fake_measure)
    shown = bench_pairs.pairs("old", "new", "stats", 10, 4)
    assert runs == ["old", "new", "new", "old", "old", "new", "new", "old"]
    # Each pair's ratio carries the slow-down of one run, never of the whole call.
    ratios = sorted([1.1 * 2 / 1, 1.1 * 3 / 4, 1.1 * 6 / 5, 1.1 * 7 / 8])
    assert shown["ratio"] == pytest.approx((ratios[1] + ratios[2]) / 2)
    assert (shown["ratio_min"], shown["ratio_max"]) == (pytest.approx(ratios[0]),
                                                          pytest.approx(ratios[-1]))
    assert shown["pairs"] == 4


def test_an_unknown_figure_or_no_pairs_is_refused(capsys):
    with pytest.raises(SystemExit) as refused:
        bench_pairs.main(["old", "new", "--only", "stats,speed"])
    assert refused.value.code == 2 and "no figure 'speed'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench_pairs.main(["old", "new", "--pairs", "0"])


@pytest.mark.parametrize("figure, size", [("replay", 200), ("stats", 20), ("press", 4)])
def test_each_side_runs_the_benchs_own_figure(figure, size):
    for clock in ("wall", "cpu"):
        assert bench_pairs.measure(sys.executable, figure, size, clock) > 0


@pytest.mark.parametrize("figure, size", [("replay", 200), ("stats", 20), ("press", 4),
                                          ("import", 0.02)])
def test_the_counted_call_runs_whole_without_valgrind_too(figure, size):
    done = subprocess.run([sys.executable, "-c", bench_pairs.RUN, figure, str(size),
                           "instructions"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_side_imports_its_own_checkout_not_the_working_directorys(tmp_path, monkeypatch):
    """Run from the new checkout as docs/benchmarks.md says, ``python -c`` put the working
    directory first on sys.path: the old interpreter imported the new tree's companion
    and the comparison compared the new code with itself (ratios of 1.000)."""
    stranger = tmp_path / "companion"
    stranger.mkdir()
    (stranger / "__init__.py").write_text('raise SystemExit("the working directory\'s")\n')
    monkeypatch.chdir(tmp_path)
    assert bench_pairs.checkout(sys.executable) == str(ROOT)
    assert bench_pairs.measure(sys.executable, "replay", 200) > 0


def test_two_interpreters_of_one_checkout_are_refused(capsys):
    with pytest.raises(SystemExit) as refused:
        bench_pairs.main([sys.executable, sys.executable, "--only", "replay", "--pairs", "1"])
    assert refused.value.code == 2
    assert f"both interpreters import the companion of {ROOT}" in capsys.readouterr().err


@pytest.mark.parametrize("figure, size, unit", [("press", 4, 1000), ("replay", 200, 1000),
                                                ("stats", 20, 1)])
def test_the_cpu_clock_times_both_ends_of_a_figure_with_it(figure, size, unit):
    """With --clock cpu a press began on the thread's CPU clock and ended on the rig's
    perf_counter (bench/rig.py stamps each frame): hours of "CPU" a press. Whatever the
    machine, a figure's CPU time is within the wall time of the process that took it."""
    began = time.perf_counter()
    value = bench_pairs.measure(sys.executable, figure, size, "cpu") / unit
    assert 0 < value <= time.perf_counter() - began
