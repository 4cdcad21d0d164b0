"""From what happens at the table to what is said: the announcer.

An :class:`Announcer` listens to every game session on the app's owner thread (it is
one of ``ctx.listeners``), asks the game's words what an event says
(:mod:`companion.ui.spoken`), keeps the kinds ``[speech] say`` lists, and hands them
on: each :class:`Announcement` to its ``outlets`` (the speech log of ``companion sim
--speech-log``, the table page's stream) whether or not a sound is made, and one
event's words together to the table's voice (:class:`companion.speech.voice.TableVoice`),
which says them when speech is on. Nothing here waits: saying is the speaker's thread.

Said once: an event taken back (undo) is never said again, and the words of a taken-back
event stop at once; a game resumed from the log says nothing of what was played before.
:meth:`Announcer.repeat` says the newest words still true again (a long ROLL on the main
menu or in Tools)::

    >>> from companion.session import Session
    >>> heard = []
    >>> announcer = Announcer(None, kinds=("rolls",))
    >>> announcer.outlets.append(lambda said: heard.append(said.text))
    >>> session = Session.start("final-count", ["Ann", "Bob"], listeners=[announcer])
    >>> session.apply({"type": "roll", "player": "Ann", "value": 6})
    >>> heard
    ['Ann, 6: swap a card with the Board']
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable
from typing import IO, Any, NamedTuple

from companion import lang
from companion.errors import CompanionError
from companion.lang import _
from companion.ui.games import game_screens, has_screens
from companion.ui.spoken import GameWords, Said, numbers_aloud

log = logging.getLogger("companion")

#: Words every game shares, all that a game without words of its own says (a match from
#: a newer device: its turns, its refusals, the timer).
COMMON_WORDS = GameWords()
#: Each game's own words, made once (by their class: the ``words`` of the game's
#: screens, :class:`companion.ui.games.GameScreens`).
_made: dict[type, GameWords] = {}
#: How many moments of words are kept for :meth:`Announcer.repeat` and undo.
KEPT = 50


def words_for(game_id: str | None) -> GameWords:
    """The words of the game ``game_id``, as its screens package says them (the common
    words for a game without its own, or one this device does not know)."""
    kind = game_screens(game_id).words if game_id and has_screens(game_id) else None
    if kind is None:
        return COMMON_WORDS
    if kind not in _made:
        _made[kind] = kind()
    return _made[kind]


class Announcement(NamedTuple):
    """One thing said: when (seconds since the epoch), in which language, its kind and
    its words; as JSON it is one line of the speech log."""

    at: float
    language: str
    kind: str
    text: str

    def json(self) -> dict[str, Any]:
        return {"at": round(self.at, 3), "language": self.language, "kind": self.kind,
                "text": self.text}


class SpeechLog:
    """``--speech-log FILE``: each announcement as a JSON line, written at once. A write
    the disk refuses stops the log; :meth:`close` then says so as a
    :class:`CompanionError`, one line, so the command ends with it (exit 1)."""

    def __init__(self, stream: IO[str], name: str = ""):
        self.stream = stream
        self.name = name or getattr(stream, "name", "")
        #: Why the log stopped ("" while it is written).
        self.problem = ""

    @classmethod
    def open(cls, path: str) -> SpeechLog:
        """The log at ``path``, emptied; CompanionError if it cannot be written."""
        try:
            return cls(open(path, "w", encoding="utf-8"), path)  # noqa: SIM115 - close()
        except OSError as problem:
            raise CompanionError(_("cannot write the speech log {path}: {problem}").format(
                path=path, problem=problem.strerror or problem)) from None

    def __call__(self, announcement: Announcement) -> None:
        if self.problem:
            return
        try:
            self.stream.write(json.dumps(announcement.json(), ensure_ascii=False) + "\n")
            self.stream.flush()
        except OSError as problem:  # said once, by close(): the run goes on meanwhile
            self.problem = problem.strerror or str(problem)

    def close(self) -> None:
        try:
            self.stream.close()
        except OSError as problem:
            self.problem = self.problem or problem.strerror or str(problem)
        if self.problem:
            raise CompanionError(_("cannot write the speech log {path}: {problem}").format(
                path=self.name, problem=self.problem))


class Announcer:
    """Turns events into announcements (see the module docstring). ``voice`` says them
    (None: nothing is said, the outlets still hear them); ``kinds`` are the kinds kept."""

    def __init__(self, voice: Any, kinds: Iterable[str],
                 wall_clock: Callable[[], float] = time.time,
                 later: Callable[[Callable[[], None]], None] | None = None):
        self.voice = voice
        self.kinds = frozenset(kinds)
        self.wall_clock = wall_clock
        #: How the words reach the voice: ``later(fn)`` runs ``fn`` on the owner thread
        #: once the frame of the press is out (the app's queue), so starting espeak-ng
        #: never delays the screen; None: at once.
        self.later = later
        #: Called with every :class:`Announcement`, on the owner thread.
        self.outlets: list[Callable[[Announcement], None]] = []
        self._session: Any = None
        self._facts: dict[str, Any] | None = None
        self._failed: set[int] = set()
        #: (session, the event's index or None, what was said), oldest first.
        self._said: list[tuple[Any, int | None, list[Announcement]]] = []
        #: How many undos there have been: words handed to ``later`` before the last
        #: one are not said (the undo may come before they reach the voice).
        self._undos = 0

    # -- what it hears (the owner thread) ---------------------------------------

    def watch(self, session: Any) -> None:
        """The game on the screen is ``session`` now (the app's session watchers): keep
        what its words need to know before its next event; nothing is said."""
        if session is not None and session is not self._session:
            self._follow(session)

    def __call__(self, session: Any, event: dict[str, Any], undone: bool = False) -> None:
        """A session listener: ``event`` was applied (or taken back) in ``session``."""
        words = words_for(session.match.game_id)
        if undone:
            kept = len(session.match.events)
            self._said = [entry for entry in self._said
                          if entry[0] is not session or entry[1] is None or entry[1] < kept]
            self._undos += 1
            if self.voice is not None:
                self.voice.hush()
            self._follow(session)
            return
        before = self._facts if session is self._session else None
        said = words.said(event, before, session.match)
        self._follow(session)
        self._announce(said, session, len(session.match.events) - 1)

    def timer_alert(self, alert: str, player: str, seconds: int) -> None:
        """The turn timer's warning or end (:attr:`companion.timer.TableTimer.alerts`)."""
        self._outside_a_game(lambda words: words.timer(alert, player, seconds))

    def refused(self, reason: str) -> None:
        """A press was refused with ``reason`` (the app's refusal watchers)."""
        self._outside_a_game(lambda words: words.refused(reason))

    def _outside_a_game(self, said: Callable[[GameWords], list[Said]]) -> None:
        """Words that come from the app, not from an event of a session (which guards
        its listeners itself): whatever goes wrong is logged, the table plays on."""
        game = self._session.match.game_id if self._session is not None else None
        try:
            self._announce(said(words_for(game)), self._session, None)
        except Exception:  # noqa: BLE001 - words must never stop the device
            log.exception("speech: an announcement failed")

    # -- what it says -------------------------------------------------------------

    @property
    def last(self) -> list[Announcement]:
        """The newest words still true ([] before anything was said)."""
        return self._said[-1][2] if self._said else []

    def repeat(self) -> bool:
        """Say the newest words again when speech is on (False: nothing to repeat)."""
        last = self.last
        if not last or self.voice is None or not self.voice.enabled:
            return False
        self._say(_joined(last), last[0].language)
        return True

    def _follow(self, session: Any) -> None:
        self._session = session
        self._facts = words_for(session.match.game_id).facts(session.match)

    def _announce(self, said: list[Said], session: Any, index: int | None) -> None:
        kept = [item for item in said if item.kind in self.kinds and item.text]
        if not kept:
            return
        at, language = self.wall_clock(), lang.current()
        announcements = [Announcement(at, language, item.kind, numbers_aloud(item.text))
                         for item in kept]
        self._said = [*self._said[-(KEPT - 1):], (session, index, announcements)]
        for outlet in self.outlets:
            try:
                for announcement in announcements:
                    outlet(announcement)
            except Exception:  # noqa: BLE001 - a gone page: the other outlets hear it
                if id(outlet) not in self._failed:  # one line an outlet, not one a roll
                    self._failed.add(id(outlet))
                    log.exception("speech: an outlet failed")
        if self.voice is not None:
            self._say(_joined(announcements), language)

    def _say(self, text: str, language: str) -> None:
        voice = self.voice
        if not voice.enabled:
            return
        if self.later is None:
            voice.say(text, language)
            return
        undos = self._undos

        def say() -> None:
            if undos == self._undos:  # no undo took these words back meanwhile
                voice.say(text, language)

        self.later(say)


def _joined(announcements: list[Announcement]) -> str:
    """One moment's announcements as one utterance, each its own sentence."""
    return " ".join(text if text.endswith((".", "!", "?")) else text + "."
                    for text in (item.text for item in announcements))
