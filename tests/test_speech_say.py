"""``companion say`` and the selftest's phrase with odd input and a stuck player
(issue 39.3, 39.4): bytes that are not text and a WAV "file" that is a pipe or a device
are bad arguments (one line, exit 2, nothing waits); a hung espeak-ng or a sound device
that never opens ends in one line instead of holding the command (or the selftest)
for ever. The stuck player is a fake: nothing here waits on the wall clock."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from companion.device.speaker import Output, Utterance, say_and_wait, saying_limit


def say(*args: str | bytes, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", "say", *args],
                          capture_output=True, timeout=60, **kw)


def test_bytes_that_are_not_utf8_are_a_bad_argument_not_a_traceback(tmp_path):
    done = say(b"Ann \xff\xfe", "--wav", str(tmp_path / "x.wav"))
    assert done.returncode == 2
    assert done.stderr.decode() == ("companion say: argument TEXT: must be text: some of "
                                    "its bytes are not UTF-8 (see companion say --help)\n")
    assert not (tmp_path / "x.wav").exists()


@pytest.mark.parametrize("kind", ["fifo", "device", "link to a device"])
def test_a_wav_that_is_a_pipe_or_a_device_is_refused_before_anything_waits(tmp_path, kind):
    """A FIFO held ``companion say --wav`` for two minutes (espeak-ng waited for a
    reader) and /dev/full ended in "exit 0"."""
    path = tmp_path / "said.wav"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path = "/dev/null"
    else:
        path.symlink_to("/dev/null")
    done = say("hello", "--wav", str(path))
    assert done.returncode == 2
    assert done.stderr.decode() == (f"companion say: argument --wav: {path} is not a regular "
                                    "file (a device, a pipe) (see companion say --help)\n")


class Stuck:
    """A player that never ends (espeak-ng hung, aplay waiting for a device)."""

    def __init__(self, output, utterance):
        self.stopped = False
        self.waits: list[float | None] = []

    def wait(self, timeout=None):
        self.waits.append(timeout)
        if timeout is not None and not self.stopped:
            raise subprocess.TimeoutExpired("espeak-ng", timeout)
        return -9

    def stop(self):
        self.stopped = True

    def problem(self):
        return ""


def test_a_player_that_never_ends_is_stopped_and_one_line():
    players: list[Stuck] = []

    def start(output, utterance):
        players.append(Stuck(output, utterance))
        return players[-1]

    words = Utterance("Selftest: this is the table's voice.", "en", 175, 100)
    problem = say_and_wait(Output("espeak-ng", "aplay"), words, start=start)
    limit = saying_limit(words)
    assert 14 < limit < 15  # its six words twice at 175 a minute, and ten seconds
    assert problem == (f"cannot play speech: it did not end within {limit:g} s (espeak-ng "
                       "or the sound device does not answer)")
    [player] = players
    assert player.stopped and player.waits == [limit, None]


def test_the_limit_grows_with_the_words_and_shrinks_with_the_rate():
    short = saying_limit(Utterance("Ann, 3", "en", 175, 100))
    long = saying_limit(Utterance("a" * 2000, "en", 80, 100))
    fast = saying_limit(Utterance("a" * 2000, "en", 450, 100))
    assert 10 < short < 11 and long > 8 * 60 > fast > 60  # 2000 characters at 80: minutes


def test_the_selftest_speaker_line_with_a_stuck_player(monkeypatch):
    """The selftest said its phrase through say_and_wait, which waited for ever."""
    from companion.commands import selftest
    from companion.config import Config
    from companion.device import speaker

    monkeypatch.setattr(speaker, "find_output",
                        lambda device: Output("espeak-ng", "aplay", "", "ALSA default"))
    monkeypatch.setattr(speaker, "say_and_wait",
                        lambda output, words: say_and_wait(output, words, start=Stuck))
    played, words = selftest.check_speaker(Config())
    assert not played and words.startswith("cannot play speech: it did not end within")
