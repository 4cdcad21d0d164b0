"""The device speaks the table's language with the real catalogs: Settings > Language
changes every screen at once and is kept across a restart until the config names
another language; the same scripted Final Count drawn in German differs from English
(the issue's bar); the page follows the device."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from companion import lang
from companion.clock import ManualClock
from companion.config import Config, Ui
from companion.launch import make_app
from companion.sim import ScriptRunner, Step, sim_board_factory, sim_panel
from companion.ui.language import CHOICE_KEY

ROOT = Path(__file__).resolve().parent.parent


def _app(tmp_path: Path, language: str = "en"):
    clock = ManualClock()
    app = make_app(Config(ui=Ui(language)), board_factory=sim_board_factory,
                   panel=sim_panel(), clock=clock, seed=4, state_dir=tmp_path)
    app.start()
    return app, Presses(ScriptRunner(app, clock, 0.6, 0.02))


class Presses:
    """Short presses of the device's buttons, as a person makes them."""

    def __init__(self, runner: ScriptRunner):
        self.runner = runner

    def press(self, button: str) -> None:
        self.runner.run(Step(0, button.upper(), button))


def _to_language_menu(runner: Presses) -> None:
    runner.press("up")   # the main menu wraps round to its last item, Settings
    runner.press("ok")
    for _ in range(2):   # Pair a phone, Paired phones, Language
        runner.press("down")
    runner.press("ok")


def test_settings_language_changes_every_screen_at_once_and_is_kept(tmp_path):
    app, runner = _app(tmp_path)
    try:
        _to_language_menu(runner)
        assert str(app.screen.title) == "Language"
        english = app.visible()
        runner.press("down")  # Deutsch
        runner.press("ok")
        assert lang.current() == "de"
        assert str(app.screen.title) == lang.pgettext("screen 16", "Language") != "Language"
        assert app.visible().tobytes() != english.tobytes()
        runner.press("back")  # Settings, in German too
        assert str(app.screen.title) == lang.pgettext("screen 21", "Settings") != "Settings"
        runner.press("back")  # the main menu
        assert lang.pgettext("screen 21", "Tools") in [str(i.label) for i in app.screen.items]
    finally:
        app.board.close()
    lang.use("en")
    again, _ = _app(tmp_path)  # a restart with the same config: still German
    try:
        assert lang.current() == "de"
        assert app.ctx.store.meta(CHOICE_KEY)
    finally:
        again.board.close()
    moved, _ = _app(tmp_path, "fr")  # the config names another language: it wins
    try:
        assert lang.current() == "fr"
    finally:
        moved.board.close()


def _final_count(tmp_path: Path, language: str) -> str:
    config = tmp_path / f"{language}.toml"
    config.write_text(f'[ui]\nlanguage = "{language}"\n', encoding="utf-8")
    script = ROOT / "docs" / "scripts" / "final-count-turn.txt"
    done = subprocess.run(
        [sys.executable, "-m", "companion", "sim", "--config", str(config), "--new",
         "final-count", "--players", "Ann,Bob,Cy", "--option", "hit_goal=true", "--script",
         str(script), "--screens", "text", "--seed", "7"],
        capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_same_final_count_drawn_in_german_differs_from_english(tmp_path):
    english, german = _final_count(tmp_path, "en"), _final_count(tmp_path, "de")
    assert english.count("\n") > 100 and german.count("\n") > 100
    assert german != english


def test_every_language_starts_the_device(tmp_path):
    for code in lang.LANGUAGES:
        app, _ = _app(tmp_path / code, code)
        try:
            assert lang.current() == code
            app.visible()
        finally:
            app.board.close()
