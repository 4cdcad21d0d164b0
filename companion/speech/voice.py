"""The table's voice: ``[speech]`` as configured, the device's own choices (Settings >
Speech turns it on and off, changes its rate and volume) and the speaker that says it.

The speaker (:mod:`companion.device.speaker`) is made the first time something is to be
said, so a device that never speaks never looks for espeak-ng or a sound card. Without
either, :attr:`TableVoice.problem` says so in one line (logged once, shown on Settings)
and nothing is said: the device plays on::

    >>> from companion.voices import Speech
    >>> voice = TableVoice(Speech(), find=lambda device: None)
    >>> voice.enabled
    False
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.lang import pgettext
from companion.voices import (
    RATE_MAX,
    RATE_MIN,
    VOLUME_MAX,
    VOLUME_MIN,
    Speech,
    voice_for,
)

if TYPE_CHECKING:  # the speaker (subprocess and all) is imported when first needed
    from companion.device.speaker import Output, Speaker, Utterance

log = logging.getLogger("companion")


class TableVoice:
    """Says words in the table's language when speech is on (see the module docstring).

    ``find(device)`` finds where the sound goes (:func:`find_output`); ``make(output)``
    makes the speaker for it (tests: a speaker on fake processes, without its thread).
    """

    def __init__(self, speech: Speech, *, enabled: bool | None = None,
                 rate: int | None = None, volume: int | None = None,
                 find: Callable[[str], Output | None] | None = None,
                 make: Callable[[Output], Speaker] | None = None):
        self.config = speech
        self.enabled = speech.enabled if enabled is None else enabled
        self.rate = speech.rate if rate is None else min(RATE_MAX, max(RATE_MIN, rate))
        self.volume = speech.volume if volume is None else \
            min(VOLUME_MAX, max(VOLUME_MIN, volume))
        self._find = find
        self._make = make
        self.output: Output | None = None
        self.speaker: Speaker | None = None
        self._problem = ""
        self._looked = False

    @property
    def problem(self) -> str:
        """Why the device cannot speak, in one line ("" while it can, or has not tried)."""
        if self._problem:
            return self._problem
        return self.speaker.problem if self.speaker is not None else ""

    @property
    def through(self) -> str:
        """What the sound plays through, in words ("" before the first try)."""
        return self.output.through if self.output is not None else ""

    def ready(self) -> bool:
        """True when there is a speaker to say things with (made on the first call)."""
        if self.speaker is not None:
            return True
        if self._looked:
            return False
        self._looked = True
        from companion.device.speaker import find_output, speaker_for
        from companion.errors import SpeechProblem

        try:
            output = (self._find or find_output)(self.config.device)
        except SpeechProblem as problem:
            self._problem = str(problem)
            log.error("speech: %s", problem)  # and the device plays on, without a voice
            return False
        if output is None:
            return False
        self.output = output
        self.speaker = (self._make or speaker_for)(output)
        return True

    def utterance(self, text: str, language: str) -> Utterance:
        """``text`` as this voice says it in ``language``."""
        from companion.device.speaker import Utterance

        return Utterance(text, voice_for(self.config, language), self.rate, self.volume)

    def say(self, text: str, language: str) -> None:
        """Say ``text`` when speech is on (it cuts whatever was being said)."""
        if self.enabled:
            self.speak(text, language)

    def speak(self, text: str, language: str) -> None:
        """Say ``text`` whether speech is on or not (Settings' sample)."""
        if text and self.ready() and self.speaker is not None:
            self.speaker.say(self.utterance(text, language))

    def sample(self, language: str) -> None:
        """Say the sample sentence at the rate and volume set now."""
        self.speak(pgettext("spoken", "Ann, 3: draw a card for the Board"), language)

    def hush(self) -> None:
        """Stop saying what was asked so far (it is no longer true: an undo)."""
        if self.speaker is not None:
            self.speaker.hush()

    def choices(self) -> dict[str, Any]:
        """What Settings > Speech changes, as it is now."""
        return {"enabled": self.enabled, "rate": self.rate, "volume": self.volume}

    def close(self) -> None:
        if self.speaker is not None:
            self.speaker.close()
