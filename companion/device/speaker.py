"""The device's voice: eSpeak NG in a process of its own, played through ALSA.

A :class:`Speaker` says one :class:`Utterance` at a time on a thread of its own: the
owner thread only hands it the newest words (:meth:`Speaker.say`), which never waits
for anything. What is said is always the newest: a new utterance cuts the one being
said (its processes are killed: the turn moved on) and takes the place of one not
started yet, so nothing ever queues behind stale words::

    espeak-ng -v ru -s 175 -a 100 --stdout  (text on stdin)  |  aplay -q -D DEVICE

Without ``aplay`` (a desktop without alsa-utils) eSpeak NG plays through its own audio
output (PulseAudio or ALSA). Where there is no sound at all (no espeak-ng, no sound
card) :func:`find_output` says so in one line and no speaker is made: the device plays
on without a voice. A failure while playing (the USB speaker pulled out) is one line
through ``on_problem``, once per kind of failure.

Tests and benches pass their own ``start`` (a fake process on a manual clock) and run
the speaker without its thread (:meth:`Speaker.pump`), so nothing here sleeps.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, NamedTuple, Protocol

from companion.device.espeak_input import espeak_text
from companion.errors import SpeechProblem
from companion.lang import _

log = logging.getLogger("companion")

#: Where the kernel lists the sound cards ALSA can open.
CARDS_FILE = Path("/proc/asound/cards")
#: How many finished utterances :attr:`Speaker.history` keeps (tests, the bench).
HISTORY = 200
#: Seconds a phrase said to its end (``companion say``, the selftest) may take beyond
#: twice its length before its player counts as stuck.
SAYING_SLACK = 10.0


class Utterance(NamedTuple):
    """Words to say and how: an eSpeak NG voice, words a minute, amplitude."""

    text: str
    voice: str
    rate: int
    volume: int


def espeak_command(binary: str, utterance: Utterance, *, wav: str | None = None) -> list[str]:
    """The espeak-ng command line for ``utterance`` (its text goes on stdin, so words
    that start with "-" are never options; as SSML, :func:`espeak_input`): audio on
    stdout, or into ``wav``."""
    where = ["-w", wav] if wav else ["--stdout"]
    return [binary, "-v", utterance.voice, "-s", str(utterance.rate), "-a",
            str(utterance.volume), "-b", "1", "-m", *where]


def espeak_input(utterance: Utterance) -> bytes:
    """What espeak-ng reads on stdin for ``utterance``: its words as SSML, nothing in
    them obeyed, a name in another alphabet given to a voice that reads it
    (:mod:`companion.device.espeak_input`)."""
    return espeak_text(utterance.text, utterance.voice).encode("utf-8", "replace")


class Card(NamedTuple):
    """A sound card as /proc/asound/cards lists it."""

    index: int
    id: str
    name: str


def sound_cards(path: Path = CARDS_FILE) -> list[Card] | None:
    """The sound cards ALSA has ([] none, None: no ALSA here at all)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    cards = []
    for line in text.splitlines():
        head, _, name = line.partition("]:")
        number, _, ident = head.strip().partition("[")
        number = number.strip()
        if number.isdigit() and ident:
            cards.append(Card(int(number), ident.strip(), name.partition(" - ")[2].strip()
                              or name.strip()))
    return cards


class Output(NamedTuple):
    """Where the sound goes: ``aplay`` (a path) on ``device``, or espeak-ng's own audio
    output when ``aplay`` is empty. ``espeak`` is the espeak-ng binary."""

    espeak: str
    aplay: str = ""
    device: str = ""
    #: What the sound plays through, in words (selftest, Settings).
    through: str = ""


def _desktop_sound(env: dict[str, str]) -> bool:
    """True where a sound server (PulseAudio, PipeWire) takes the sound instead."""
    runtime = env.get("XDG_RUNTIME_DIR", "")
    return bool(env.get("PULSE_SERVER")) or bool(runtime) and any(
        (Path(runtime) / name).exists() for name in ("pulse/native", "pipewire-0"))


def espeak_binary(which: Callable[[str], str | None] = shutil.which) -> str:
    """The espeak-ng program; :class:`SpeechProblem` when it is not installed."""
    espeak = which("espeak-ng")
    if not espeak:
        raise SpeechProblem(_("espeak-ng is not installed (sudo apt install espeak-ng)"))
    return espeak


def find_output(device: str = "", *, which: Callable[[str], str | None] = shutil.which,
                cards_file: Path = CARDS_FILE, env: dict[str, str] | None = None,
                platform: str = sys.platform) -> Output:
    """Where this machine can play speech (``device``: ``[speech] device``, "" = ALSA's
    default); :class:`SpeechProblem` says in one line why it cannot."""
    env = os.environ if env is None else env
    espeak = espeak_binary(which)
    aplay = which("aplay") or ""
    if device and not aplay:
        raise SpeechProblem(_("[speech] device needs aplay (sudo apt install alsa-utils)"))
    desktop = _desktop_sound(env)
    cards = sound_cards(cards_file) or []
    if platform.startswith("linux") and not cards and not desktop:
        raise SpeechProblem(_("no speaker: this machine has no sound card"))
    if aplay and (device or not desktop):
        return Output(espeak, aplay, device, _through(device, cards))
    return Output(espeak, through=_("the desktop's sound") if desktop
                  else _("espeak-ng's own audio output"))


def _through(device: str, cards: list[Card]) -> str:
    """The ALSA device in words: "default (card 0: bcm2835 Headphones)"."""
    def card_words(card: Card) -> str:
        return f"card {card.index}: {card.name or card.id}"

    if not device or device == "default":
        first = f" ({card_words(cards[0])})" if cards else ""
        return f"ALSA default{first}"
    for card in cards:
        if f"CARD={card.id}" in device or device.split(":")[-1].split(",")[0] in (
                str(card.index), card.id):
            return f"ALSA {device} ({card_words(card)})"
    return f"ALSA {device}"


class Process(Protocol):
    """One utterance being said; ``stopped`` once it was cut."""

    stopped: bool

    def poll(self) -> int | None: ...

    def wait(self) -> int: ...

    def stop(self) -> None: ...

    def problem(self) -> str: ...


class Playing:
    """espeak-ng (and aplay after it, through a pipe) saying one utterance."""

    def __init__(self, output: Output, utterance: Utterance):
        self.stopped = False
        self._errors: IO[bytes] = tempfile.TemporaryFile()
        command = espeak_command(output.espeak, utterance)
        if not output.aplay:
            command.remove("--stdout")  # espeak-ng plays it itself
        self._processes: list[subprocess.Popen[bytes]] = []
        speak = subprocess.Popen(command, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE if output.aplay else subprocess.DEVNULL,
                                 stderr=self._errors)
        self._processes.append(speak)
        if output.aplay:
            play = [output.aplay, "-q", *(["-D", output.device] if output.device else [])]
            try:
                self._processes.append(subprocess.Popen(play, stdin=speak.stdout,
                                                        stdout=subprocess.DEVNULL,
                                                        stderr=self._errors))
            except OSError:
                speak.kill()
                speak.wait()
                raise
            finally:
                assert speak.stdout is not None
                speak.stdout.close()  # aplay holds it now: espeak-ng sees it go with aplay
        assert speak.stdin is not None
        try:
            speak.stdin.write(espeak_input(utterance))
            speak.stdin.close()
        except OSError:
            pass  # espeak-ng died at once: its words on stderr say why

    def poll(self) -> int | None:
        codes = [process.poll() for process in self._processes]
        return None if None in codes else codes[-1]

    def wait(self, timeout: float | None = None) -> int:
        """The player's exit status once both have ended; ``timeout``: seconds for the
        two together, then :class:`subprocess.TimeoutExpired` (nothing is stopped)."""
        if timeout is None:
            return [process.wait() for process in self._processes][-1]
        end = time.monotonic() + timeout
        return [process.wait(max(0.0, end - time.monotonic()))
                for process in self._processes][-1]

    def stop(self) -> None:
        """Cut the words (the speaker's thread, waiting for the processes, reaps them:
        whoever cuts never waits)."""
        self.stopped = True
        for process in self._processes:
            if process.returncode is None:
                try:
                    process.kill()
                except OSError:
                    pass  # it ended between the two

    def problem(self) -> str:
        """Why no sound came out ("" when it did): a player's exit status, or the
        errors espeak-ng prints while it carries on (it exits 0 without a device)."""
        self._errors.seek(0)
        lines = [line.strip() for line in
                 self._errors.read(16384).decode("utf-8", "replace").splitlines()
                 if line.strip()]
        self._errors.close()
        failed = any(process.returncode not in (0, None) for process in self._processes)
        said = [line for line in lines if "error" in line.lower()]
        if failed or said:
            last = (said or lines or [_("exit {status}").format(
                status=self._processes[-1].returncode)])[-1][:200]
            return _("cannot play speech: {problem}").format(problem=last)
        return ""


class Speaker:
    """Says the newest utterance, on a thread of its own (``threaded``) or when
    :meth:`pump` is called (tests, benches). ``start(utterance)`` begins saying it and
    returns its :class:`Process`; ``on_problem(line)`` hears a failure once per kind."""

    def __init__(self, start: Callable[[Utterance], Process], *, threaded: bool = True,
                 on_problem: Callable[[str], None] | None = None):
        self._start = start
        self.on_problem = on_problem
        self._cond = threading.Condition()
        self._pending: Utterance | None = None
        self._current: tuple[Utterance, Process] | None = None
        self._starting = False
        self._closed = False
        #: How many times words were asked for or hushed: what is being started when
        #: this moves on is no longer the newest (or no longer true).
        self._asked = 0
        #: The last failure in words ("" while everything plays).
        self.problem = ""
        #: (text, how it ended: "said", "cut", "failed", "dropped" before it started)
        #: of the newest utterances.
        self.history: deque[tuple[str, str]] = deque(maxlen=HISTORY)
        #: Utterances that never started: a newer one took their place first.
        self.dropped = 0
        self._thread: threading.Thread | None = None
        if threaded:
            self._thread = threading.Thread(target=self._run, name="speaker", daemon=True)
            self._thread.start()

    # -- any thread -------------------------------------------------------------

    def say(self, utterance: Utterance) -> None:
        """Say ``utterance`` now: what is being said is cut, what waited is dropped."""
        with self._cond:
            if self._closed:
                return
            if self._pending is not None:
                self.dropped += 1
                self.history.append((self._pending.text, "dropped"))
            self._pending = utterance
            self._asked += 1
            current = self._current
            self._cond.notify()
        if current is not None:
            current[1].stop()

    def hush(self) -> None:
        """Say nothing more of what was asked so far (the words are no longer true)."""
        with self._cond:
            if self._pending is not None:
                self.history.append((self._pending.text, "dropped"))
            self._pending = None
            self._asked += 1  # words being started meanwhile are stopped once they are
            current = self._current
        if current is not None:
            current[1].stop()

    @property
    def waiting(self) -> Utterance | None:
        """The utterance not started yet (at most one, the newest)."""
        return self._pending

    @property
    def speaking(self) -> Utterance | None:
        """The utterance being said now."""
        current = self._current
        return None if current is None else current[0]

    def wait_idle(self, timeout: float) -> bool:
        """Wait until nothing is said or waits (False: still busy after ``timeout``
        seconds). For a command that says one thing and ends, and for tests."""
        with self._cond:
            return self._cond.wait_for(
                lambda: self._pending is None and self._current is None
                and not self._starting, timeout)

    def close(self) -> None:
        """Stop speaking and end the thread."""
        with self._cond:
            self._closed = True
            self._pending = None
            current = self._current
            self._cond.notify()
        if current is not None:
            current[1].stop()
        if self._thread is not None:
            self._thread.join(5)

    # -- saying -----------------------------------------------------------------

    def _begin(self) -> tuple[Utterance, Process] | None:
        """Start the waiting utterance (outside the lock: starting a process takes a
        while, and :meth:`say` must never wait for it)."""
        with self._cond:
            utterance, self._pending = self._pending, None
            self._starting = utterance is not None
            asked = self._asked
        if utterance is None:
            return None
        try:
            process = self._start(utterance)
        except OSError as err:
            self._report(_("cannot start espeak-ng: {problem}").format(problem=err))
            self.history.append((utterance.text, "failed"))
            with self._cond:
                self._starting = False
                self._cond.notify_all()
            return None
        with self._cond:
            self._current = (utterance, process)
            self._starting = False
            # Newer words came meanwhile, or a hush (an undo), or the end.
            stale = self._asked != asked or self._closed
        if stale:
            process.stop()
        return utterance, process

    def _end(self, current: tuple[Utterance, Process]) -> None:
        utterance, process = current
        if getattr(process, "stopped", False):
            self.history.append((utterance.text, "cut"))
        else:
            problem = process.problem()
            self.history.append((utterance.text, "failed" if problem else "said"))
            if problem:
                self._report(problem)
        with self._cond:
            self._current = None
            self._cond.notify_all()

    def _report(self, problem: str) -> None:
        if problem == self.problem:
            return  # said once: a pulled-out speaker is not a line per roll
        self.problem = problem
        log.error("speech: %s", problem)
        if self.on_problem is not None:
            self.on_problem(problem)

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._pending is None and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
            current = self._begin()
            if current is not None:
                current[1].wait()
                self._end(current)

    def pump(self) -> None:
        """Without the thread: end what has finished, start what waits."""
        current = self._current
        if current is not None:
            if current[1].poll() is None:
                return
            self._end(current)
        self._begin()


def speaker_for(output: Output, **kw: Any) -> Speaker:
    """A threaded :class:`Speaker` playing through ``output``."""
    return Speaker(lambda utterance: Playing(output, utterance), **kw)


def saying_limit(utterance: Utterance) -> float:
    """Seconds ``utterance`` may take to be said before its player counts as stuck:
    twice its length at its rate (a word is about six characters), and ten more."""
    words = max(1, len(utterance.text)) / 6
    return round(SAYING_SLACK + 2 * 60 * words / max(1, utterance.rate), 1)


def say_and_wait(output: Output, utterance: Utterance, *,
                 start: Callable[[Output, Utterance], Playing] = Playing,
                 limit: float | None = None) -> str:
    """Say ``utterance`` to its end ("" when it played; else why not, in one line).
    A player stuck longer than ``limit`` seconds (:func:`saying_limit`: a hung
    espeak-ng, a sound device that never opens) is stopped and said so."""
    try:
        playing = start(output, utterance)
    except OSError as err:
        return _("cannot start espeak-ng: {problem}").format(problem=err)
    limit = saying_limit(utterance) if limit is None else limit
    try:
        playing.wait(limit)
    except subprocess.TimeoutExpired:
        playing.stop()
        playing.wait()
        return _("cannot play speech: {problem}").format(problem=_(
            "it did not end within {seconds} s (espeak-ng or the sound device does not "
            "answer)").format(seconds=f"{limit:g}"))
    return playing.problem()


def write_wav(espeak: str, utterance: Utterance, path: str) -> None:
    """Write ``utterance`` as a WAV file at ``path``; :class:`SpeechProblem` if it
    cannot be written."""
    try:
        limit = saying_limit(utterance)
        done = subprocess.run(espeak_command(espeak, utterance, wav=path),
                              input=espeak_input(utterance), capture_output=True,
                              timeout=limit)
    except subprocess.TimeoutExpired:
        raise SpeechProblem(_("espeak-ng could not write {path}: {problem}").format(
            path=path, problem=_("espeak-ng did not end within {seconds} s").format(
                seconds=f"{limit:g}"))) from None
    except OSError as err:
        raise SpeechProblem(_("espeak-ng could not write {path}: {problem}").format(
            path=path, problem=err.strerror or err)) from None
    errors = done.stderr.decode("utf-8", "replace").split("\n")
    if done.returncode != 0 or not Path(path).is_file() or Path(path).stat().st_size <= 44:
        why = next((line.strip() for line in errors if line.strip()), "")
        raise SpeechProblem(_("espeak-ng could not write {path}: {problem}").format(
            path=path, problem=why or _("exit {status}").format(
                status=done.returncode)))
