"""``companion bench``'s speech figures (issue 39): with ``[speech] enabled``, a Final
Count ROLL on the mock pins until espeak-ng's first audio sample, and the press-to-frame
time meanwhile.

The app is the device's (mock pins, the real ssd1306 driver on a recording bus, the
speaker on its own thread, real espeak-ng processes); only where the sound goes differs:
espeak-ng's ``--stdout`` goes into a pipe this bench reads, and the first bytes after the
WAV header are the first sample (where the device's ``aplay`` would start playing). A
press follows the last before it has been said to its end, so each one also cuts the
words before it, as at the table.
"""

from __future__ import annotations

import select
import shutil
import statistics
import subprocess
import threading
import time
from typing import Any

#: The WAV header espeak-ng writes before the first sample on --stdout.
WAV_HEADER = 44
#: How long one press may wait for its first sample before it counts as none.
FIRST_SAMPLE_LIMIT = 5.0
#: Real seconds between one press and the next (a quick player's pace), with speech on
#: and off alike: espeak-ng works out the words before they are played, and a press a
#: millisecond after the last would share the processor with it as no table does.
GAP = 0.25


class Heard:
    """The utterances started (by the speaker's thread), newest last."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.started: list[TimedSpeech] = []

    def first_after(self, count: int, limit: float) -> float | None:
        """When the first sample of the utterance started after the first ``count`` came
        (perf_counter; None: none within ``limit`` seconds). Read here, on the bench's
        thread once the frame is out, as aplay would: no thread of the bench's own
        competes with the app's for the interpreter meanwhile."""
        end = time.perf_counter() + limit
        with self.cond:
            while len(self.started) <= count:
                left = end - time.perf_counter()
                if left <= 0:
                    return None
                self.cond.wait(left)
            said = self.started[count]
        return said.first_sample(end)


class TimedSpeech:
    """An utterance said into a pipe (a :class:`companion.device.speaker.Process`);
    :meth:`first_sample` reads up to its first audio sample, the rest is left in the
    pipe (a cut kills it, as a newer press does at the table)."""

    def __init__(self, espeak: str, utterance: Any, heard: Heard):
        from companion.device.speaker import espeak_command, espeak_input

        self.stopped = False
        self._process = subprocess.Popen(espeak_command(espeak, utterance),
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL)
        assert self._process.stdin is not None
        self._process.stdin.write(espeak_input(utterance))
        self._process.stdin.close()
        with heard.cond:
            heard.started.append(self)
            heard.cond.notify_all()

    def first_sample(self, end: float) -> float | None:
        stream = self._process.stdout
        assert stream is not None
        got = 0
        while got <= WAV_HEADER:
            left = end - time.perf_counter()
            if left <= 0 or not select.select([stream], [], [], left)[0]:
                return None
            chunk = stream.read1(4096)
            if not chunk:
                return None
            got += len(chunk)
        return time.perf_counter()

    def poll(self) -> int | None:
        return self._process.poll()

    def wait(self) -> int:
        return self._process.wait()

    def stop(self) -> None:
        self.stopped = True
        if self._process.poll() is None:
            self._process.kill()
        assert self._process.stdout is not None
        self._process.stdout.close()

    def problem(self) -> str:
        return ""


def _final_count_table(ctx: Any) -> Any:
    """Final Count for Ann, Bob and Cy, its words heard (the session's listeners)."""
    from companion.session import Session
    from companion.ui.final_count.table import FinalCountTable
    from companion.ui.home import home_menu

    session = Session.start("final-count", ["Ann", "Bob", "Cy"], store=ctx.store,
                            listeners=ctx.listeners)
    return FinalCountTable(session, home_menu(ctx)).route(ctx)


def speech_bench(presses: int) -> dict[str, Any]:
    """Press to the first audio sample and press to frame, ``presses`` ROLLs; and the
    same presses' press-to-frame with speech off, to compare."""
    espeak = shutil.which("espeak-ng")
    if espeak is None:
        return {"skipped": "no espeak-ng here (sudo apt install espeak-ng)"}
    spoken = _rolls(espeak, presses, enabled=True)
    silent = _rolls(espeak, presses, enabled=False)
    to_sample, to_frame = sorted(spoken["to_sample"]), spoken["to_frame"]
    return {
        "presses": presses,
        "first_audio_median_ms": statistics.median(to_sample) * 1000 if to_sample else None,
        "first_audio_p95_ms": to_sample[int(len(to_sample) * 0.95) - 1] * 1000
        if to_sample else None,
        "no_audio": presses - len(to_sample),
        "press_to_frame_median_ms": statistics.median(to_frame) * 1000,
        "press_to_frame_speech_off_median_ms": statistics.median(silent["to_frame"]) * 1000,
    }


def _rolls(espeak: str, presses: int, *, enabled: bool) -> dict[str, list[float]]:
    """``presses`` ROLLs in Final Count, :data:`GAP` apart: each press's time to its
    frame and (speech on) to its first audio sample."""
    from companion.bench.rig import bench_app
    from companion.config import Config
    from companion.device.speaker import Output, Speaker
    from companion.launch import close_voice
    from companion.sim import PRESS_SECONDS, ScriptRunner
    from companion.voices import Speech

    heard = Heard()

    def make(output: Output) -> Speaker:
        return Speaker(lambda utterance: TimedSpeech(espeak, utterance, heard))

    app, clock, handed = bench_app(
        _final_count_table, config=Config(speech=Speech(enabled=enabled)),
        voice_options={"find": lambda device: Output(espeak, through="bench"), "make": make})
    app.pump()  # the speaker is looked for after the first frame
    runner = ScriptRunner(app, clock, Config().buttons.hold_time)
    to_sample: list[float] = []
    to_frame: list[float] = []
    try:
        for _ in range(presses):
            app.board.press("roll")
            app.pump()
            clock.advance(PRESS_SECONDS)
            handed.clear()
            before = len(heard.started)
            pressed = time.perf_counter()
            app.board.release("roll")  # a short press is decoded as it ends: the roll
            app.pump()
            if handed:
                to_frame.append(handed[0] - pressed)
            sample = heard.first_after(before, FIRST_SAMPLE_LIMIT) if enabled else None
            if sample is not None:
                to_sample.append(sample - pressed)
            runner.advance(1.0)  # the die's spin, then the next press
            time.sleep(GAP)
    finally:
        app.board.close()
        close_voice(app)
    return {"to_sample": to_sample, "to_frame": to_frame}
