"""Speech on the device and everywhere else (issue 39.2, 39.4, 39.5): the bar (a
simulated Final Count roll in Russian in the speech log), Settings > Speech and its kept
choice, a long ROLL that repeats, the timer's and a refusal's words, ``companion
selftest``'s speaker line, and a whole game whose words never fall behind play on a
slow speaker (a manual clock: nothing sleeps)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_speech_engine import SlowWords

from companion.bench.device import FINAL_COUNT_GAME
from companion.clock import ManualClock
from companion.commands.selftest import run_selftest
from companion.config import Config, Timer, Ui
from companion.device.speaker import Output, Speaker
from companion.errors import IllegalEvent, SpeechProblem
from companion.launch import make_app
from companion.session import Session
from companion.sim import ScriptRunner, Step, sim_board_factory, sim_panel
from companion.ui.screen import Screen
from companion.ui.speech import CHOICE_KEY, SpeechLevel, starting_speech
from companion.voices import Speech

# --- the bar ----------------------------------------------------------------------------------


def sim(tmp_path: Path, config_text: str, script: str, *extra: str):
    config = tmp_path / "config.toml"
    config.write_text(config_text, encoding="utf-8")
    steps = tmp_path / "steps.txt"
    steps.write_text(script)
    log = tmp_path / "speech.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "companion", "sim", "--config", str(config), "--new",
         "final-count", "--players", "Анна,Борис", "--script", str(steps), "--seed", "7",
         "--speech-log", str(log), *extra], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_the_bar_a_simulated_roll_is_said_in_russian_naming_the_player_and_the_face(tmp_path):
    lines = sim(tmp_path, '[ui]\nlanguage = "ru"\n[speech]\nenabled = true\n', "ROLL\n",
                "--log-events")
    rolls = [line for line in lines if line["kind"] == "rolls"]
    assert len(rolls) == 1
    [said] = rolls
    assert set(said) == {"at", "language", "kind", "text"} and said["language"] == "ru"
    player, _, rest = said["text"].partition(", ")
    face = rest.split(":")[0]
    assert player == "Анна" and face in "123456"
    assert any("\u0400" <= c <= "\u04ff" for c in rest.split(":", 1)[1])  # said in Russian
    assert [line["kind"] for line in lines] == ["rolls", "turns"]
    assert "Борис" in lines[1]["text"]


def test_the_speech_log_is_written_whether_or_not_speech_is_played(tmp_path):
    lines = sim(tmp_path, "", "ROLL\nROLL\n")
    assert [line["kind"] for line in lines] == ["rolls", "turns", "rolls", "turns"]
    assert lines[0]["text"].startswith("Анна, ") and lines[1]["text"] == "Борис's turn"


def test_say_chooses_the_kinds_in_the_log_too(tmp_path):
    lines = sim(tmp_path, '[speech]\nsay = ["turns"]\n', "ROLL\n")
    assert lines == [{**lines[0], "kind": "turns", "text": "Борис's turn"}]


# --- an app with a slow speaker on a manual clock --------------------------------------------


class Table:
    """An app on mock pins whose voice is a :class:`Speaker` of fake espeak-ng processes
    lasting ``per_char`` manual-clock seconds a character, pumped with the app."""

    def __init__(self, config: Config | None = None, root=None, per_char: float = 0.1,
                 state_dir: Path | None = None, problem: str = ""):
        self.clock = ManualClock()
        self.started: list[tuple[float, str]] = []
        self.offered: list[tuple[float, str]] = []

        def start(words):
            self.started.append((self.clock(), words.text))
            return SlowWords(self.clock, words.text, per_char)

        self.speaker = Speaker(start, threaded=False)
        offer = self.speaker.say

        def said(words):  # what the app asks the speaker to say, when
            self.offered.append((self.clock(), words.text))
            offer(words)

        self.speaker.say = said

        def find(device):
            if problem:
                raise SpeechProblem(problem)
            return Output("espeak-ng", through="a test speaker")

        config = config or Config(speech=Speech(enabled=True))
        self.app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(),
                            clock=self.clock, seed=5, root=root, state_dir=state_dir,
                            voice_options={"find": find, "make": lambda output: self.speaker})
        pump = self.app.pump

        def pump_both():
            pump()
            self.speaker.pump()

        self.app.pump = pump_both
        self.app.start()
        self.runner = ScriptRunner(self.app, self.clock, config.buttons.hold_time)
        self.app.pump()

    def press(self, *buttons: str, long: bool = False) -> None:
        for button in buttons:
            self.runner.run(Step(0, button.upper(), button, long=long))

    @property
    def voice(self):
        return self.app.ctx.speech.voice

    def close(self):
        self.app.board.close()
        if self.app.ctx.store is not None:
            self.app.ctx.store.close()


def final_count(players=("Ann", "Bob", "Cy")):
    def root(ctx):
        from companion.ui.final_count.table import FinalCountTable
        from companion.ui.home import home_menu

        session = Session.start("final-count", list(players), store=ctx.store,
                                listeners=ctx.listeners)
        return FinalCountTable(session, home_menu(ctx)).route(ctx)

    return root


def test_a_whole_game_is_said_and_never_falls_behind_play():
    """Issue 39.5: a slow speaker (every word takes long on the clock) never holds a
    stale turn: what waits is only ever the newest words, what starts is the newest
    offered, and the game's last words are said to their end."""
    table = Table(root=final_count(), per_char=0.08)
    try:
        for button in FINAL_COUNT_GAME:
            table.press(button)
            waiting = table.speaker.waiting
            assert waiting is None or waiting.text == table.offered[-1][1]
            speaking = table.speaker.speaking
            assert speaking is None or speaking.text == table.offered[-1][1] or \
                speaking.text in [text for _, text in table.offered]
        for at, text in table.started:  # never one older than the newest offered by then
            newest = [t for when, t in table.offered if when <= at][-1]
            assert text == newest
        table.runner.advance(60)
        assert table.app.current_session() is None or table.app.current_session().match.over
        last_offered = table.offered[-1][1]
        assert last_offered.startswith("Hand 6: Ann wins") and "Game over." in last_offered
        assert list(table.speaker.history)[-1] == (last_offered, "said")
        outcomes = [outcome for _, outcome in table.speaker.history]
        assert "cut" in outcomes  # the slow words of a press were cut by the next one
        assert table.speaker.waiting is None and table.speaker.speaking is None
    finally:
        table.close()


def test_the_words_reach_the_speaker_after_the_frame():
    table = Table(root=final_count())
    try:
        shown = []
        show = table.app._show

        def spy():
            shown.append(len(table.offered))
            return show()

        table.app._show = spy
        table.press("roll")
        assert shown[0] == 0 and len(table.offered) == 1  # the frame first, then espeak-ng
    finally:
        table.close()


def test_long_roll_on_the_main_menu_and_in_tools_repeats_the_last_words():
    table = Table(root=final_count())
    try:
        table.press("roll")
        [(_, words)] = table.offered
        table.press("back")  # the game's menu: Leave (kept)
        table.press("down", "down", "down", "ok")
        assert str(table.app.screen.title) == "Tabletop Companion"
        table.press("roll", long=True)
        assert [text for _, text in table.offered] == [words, words]
        table.press("down", long=True)  # Settings, the last item ...
        table.press("up", "up")  # ... Tools
        table.press("ok")
        assert str(table.app.screen.title) == "Tools"
        table.press("roll", long=True)
        assert [text for _, text in table.offered] == [words] * 3
        assert str(table.app.screen.title) == "Tools"  # nothing opened
    finally:
        table.close()


def test_the_turn_timer_says_ten_seconds_and_the_end():
    table = Table(config=Config(speech=Speech(enabled=True), timer=Timer(turn=30)),
                  root=final_count(("Ann", "Bob")))
    try:
        table.runner.advance(20.5)
        assert table.offered[-1][1] == "Ann, 10 seconds left."
        table.runner.advance(10)
        assert table.offered[-1][1] == "Ann: time is up."
    finally:
        table.close()


class Refusing(Screen):
    title = "Refusing"

    def press(self, ctx, press):
        raise IllegalEvent("it is Bob's turn, not Ann's (Ann rolled already)")


def test_a_refusal_is_said_in_a_few_words():
    table = Table(root=lambda ctx: Refusing())
    try:
        table.press("ok")
        assert table.offered[-1][1] == "Sorry: it is Bob's turn, not Ann's."
        assert str(table.app.screen.title) == "Sorry"
    finally:
        table.close()


@pytest.mark.parametrize(("command", "args", "words"), [
    ("event", ({"type": "roll", "player": "Bob"},), "Sorry: it is Ann's turn, not Bob's."),
    ("event", ({"type": "roll", "player": "Ann", "value": 3},),
     "Sorry: the device rolls the dice here."),
    ("event", ({"type": "roll", "player": "FREE BEER AT THE BAR"},),
     "Sorry: the move is refused."),  # what was typed from afar is never read aloud
    ("event", ({"type": "board", "cards": ["K"]},),
     "Sorry: the Board is entered once, after the final round."),
    ("undo", (), "Sorry: nothing to undo."),
])
def test_a_move_from_the_console_or_the_page_refused_is_said_too(command, args, words):
    """The console and the page run the same commands (remote.commands): a move the
    rules refuse is said as a refused press is; the caller gets its error as before."""
    from companion.remote.commands import RemoteError, run

    table = Table(root=final_count(("Ann", "Bob")))
    try:
        with pytest.raises(RemoteError) as refused:
            run(table.app, command, *args)
        assert refused.value.code == "ILLEGAL"
        table.app.pump()  # the words reach the voice once the owner thread gets to them
        assert [text for _, text in table.offered] == [words]
    finally:
        table.close()


def test_what_is_not_the_games_refusal_is_the_callers_alone():
    from companion.remote.commands import RemoteError, run

    table = Table(root=final_count(("Ann", "Bob")))
    try:
        for command, args, code in (("event", ("not an object",), "BADARG"),
                                    ("new_game", ("final-count", ["Ann", "Bob"]), "OPEN"),
                                    ("no_such_command", (), "BADARG")):
            with pytest.raises(RemoteError) as refused:
                run(table.app, command, *args)
            assert refused.value.code == code
        table.app.pump()
        assert table.offered == []
        run(table.app, "roll")  # a move from afar that goes through is said as a press is
        table.app.pump()
        assert [text for _, text in table.offered][0].startswith("Ann, ")
    finally:
        table.close()


# --- Settings > Speech --------------------------------------------------------------------------


def open_speech_settings(table: Table) -> None:
    table.press("up")  # the main menu wraps round to Settings
    table.press("ok")
    while table.app.screen.items[table.app.screen.selected].label != "Speech":
        table.press("down")
    table.press("ok")
    assert str(table.app.screen.title) == "Speech"


def labels(table: Table) -> list[str]:
    return [str(item.label) for item in table.app.screen.items]


def test_settings_turns_speech_on_changes_the_rate_and_says_a_sample(tmp_path):
    table = Table(config=Config(), state_dir=tmp_path)
    try:
        open_speech_settings(table)
        assert labels(table) == ["Speech: off", "Rate: 175", "Volume: 100", "Say a sample"]
        table.press("ok")
        assert labels(table)[0] == "Speech: on" and table.voice.enabled
        table.press("down")
        table.press("ok")
        assert isinstance(table.app.screen, SpeechLevel)
        table.press("up", "up")
        table.press("down", long=True)  # five steps down
        table.press("ok")
        assert table.voice.rate == 145 and labels(table)[1] == "Rate: 145"
        assert table.offered[-1][1] == "Ann, 3: draw a card for the Board"  # the sample
        assert table.app.screen.selected == 1
        table.press("down", "ok")
        table.press("up", "ok")
        assert table.voice.volume == 110
        table.press("down", "ok")  # Say a sample
        assert len(table.offered) == 3
        kept = json.loads(table.app.ctx.store.meta(CHOICE_KEY))
        assert kept == {"enabled": True, "rate": 145, "volume": 110,
                        "config": {"enabled": False, "rate": 175, "volume": 100}}
    finally:
        table.close()
    again = Table(config=Config(), state_dir=tmp_path)  # a restart keeps the choice
    try:
        assert (again.voice.enabled, again.voice.rate, again.voice.volume) == (True, 145, 110)
    finally:
        again.close()
    edited = Config(speech=Speech(rate=200))  # ... until the file says otherwise
    assert starting_speech(edited, None) == {"enabled": False, "rate": 200, "volume": 100}
    changed = Table(config=edited, state_dir=tmp_path)
    try:
        assert (changed.voice.enabled, changed.voice.rate) == (False, 200)
    finally:
        changed.close()


def test_back_leaves_the_rate_as_it_was():
    table = Table(config=Config())
    try:
        open_speech_settings(table)
        table.press("down", "ok")
        table.press("up", "up", "up")
        table.press("back")
        assert table.voice.rate == 175 and labels(table)[1] == "Rate: 175"
        assert table.offered == []
    finally:
        table.close()


def test_no_speaker_is_one_line_on_settings_and_the_device_plays_on(caplog):
    import logging

    table = Table(config=Config(), problem="no speaker: this machine has no sound card")
    try:
        open_speech_settings(table)
        with caplog.at_level(logging.ERROR, logger="companion"):
            table.press("ok")  # on: the speaker is looked for now
        assert labels(table) == ["Speech: on", "Rate: 175", "Volume: 100", "Say a sample",
                                 "No sound: why?"]
        table.press("up")  # the last row
        table.press("ok")
        assert str(table.app.screen.title) == "No sound"
        assert " ".join(table.app.screen.lines) == "no speaker: this machine has no sound card"
        assert [r.getMessage() for r in caplog.records] == [
            "speech: no speaker: this machine has no sound card"]
    finally:
        table.close()


def test_a_config_that_turns_speech_on_looks_for_the_speaker_after_the_first_frame(caplog):
    import logging

    with caplog.at_level(logging.ERROR, logger="companion"):
        table = Table(config=Config(speech=Speech(enabled=True), ui=Ui(language="en")),
                      problem="espeak-ng is not installed (sudo apt install espeak-ng)")
    try:
        assert table.voice.problem.startswith("espeak-ng is not installed")
        assert len(caplog.records) == 1
        table.press("roll")  # the main menu: nothing breaks without a voice
    finally:
        table.close()


# --- companion selftest ----------------------------------------------------------------------


def selftest_lines(speaker, speech: Speech) -> tuple[int, list[str]]:
    import io
    import queue

    out = io.StringIO()
    status = run_selftest(Config(speech=speech), None, None, queue.Queue(), ManualClock(),
                          out, wait=0, display_error="none here", board_error="none here",
                          speaker=speaker)
    return status, out.getvalue().splitlines()


def test_selftest_says_a_phrase_and_names_the_alsa_device():
    status, lines = selftest_lines(
        lambda config: (True, "ALSA default (card 0: bcm2835 Headphones)"), Speech())
    assert "speaker   said a test phrase through ALSA default (card 0: bcm2835 Headphones): " \
           "did you hear it?" in lines
    assert lines[-1] == "2 parts to check: display, pins"


@pytest.mark.parametrize(("enabled", "verdict"), [
    (True, "3 parts to check: display, pins, speaker"),
    (False, "2 parts to check: display, pins")])
def test_selftest_without_sound_counts_only_when_speech_is_on(enabled, verdict):
    status, lines = selftest_lines(lambda config: (False, "no speaker: no sound card"),
                                   Speech(enabled=enabled))
    assert lines[-1] == verdict
    assert [line for line in lines if line.startswith("speaker")] == [
        "speaker   NO SOUND: no speaker: no sound card" if enabled else
        "speaker   none ([speech] enabled = false): no speaker: no sound card"]


def test_a_speech_log_the_disk_refuses_is_one_line_and_exit_1(tmp_path):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    steps = tmp_path / "steps.txt"
    steps.write_text("ROLL\nROLL\n")
    done = subprocess.run(
        [sys.executable, "-m", "companion", "sim", "--new", "final-count", "--players",
         "Ann,Bob", "--script", str(steps), "--speech-log", "/dev/full"],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr == ("companion: cannot write the speech log /dev/full: No space "
                           "left on device\n")


@pytest.mark.parametrize("kept", [
    {"rate": 100000, "volume": 100}, {"rate": 175, "volume": -5},
    {"rate": 10 ** 40, "volume": 10 ** 40}, {"rate": 79, "volume": 201},
])
def test_a_kept_choice_out_of_range_is_not_handed_to_espeak(kept):
    """The device's choice comes back from the game log's file, which outlives versions
    and can be damaged: the ranges [speech] is checked against apply to it too (espeak-ng
    would be asked for -s 100000), and the config's value stands instead."""

    class Store:
        def meta(self, key):
            return json.dumps({"enabled": True, **kept,
                               "config": {"enabled": False, "rate": 175, "volume": 100}})

    assert starting_speech(Config(), Store()) == {"enabled": True, "rate": 175,
                                                  "volume": 100}
