"""What ``[speech]`` may say: the kinds of announcements, each language's eSpeak NG
voice, the ranges of rate and volume, and the one check of them all.

The device says what matters at the table through eSpeak NG (:mod:`companion.device.
speaker` runs it; :mod:`companion.speech` writes the words). Which announcements are
said is chosen by kind, and the voice is the table's language unless the file names
another::

    >>> voice_for(Speech(), "ru")
    'ru'
    >>> voice_for(Speech(voice="en-us"), "ru")
    'en-us'

The configuration (:mod:`companion.config`) holds a :class:`Speech`; the command line
(``companion say``) and Settings > Speech check their values here too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from companion.errors import written
from companion.lang import LANGUAGES, _

#: The kinds of announcements, as ``[speech] say`` lists them: a roll and what it means,
#: whose turn it is when it changes, a hand's or a game's result, a refusal in a few
#: words, the turn timer's warnings.
KINDS = ("rolls", "turns", "results", "refusals", "timer")
#: eSpeak NG's voice for each language the device speaks (``espeak-ng --voices=LANG``).
VOICES = {"en": "en", "de": "de", "es": "es", "fr": "fr", "it": "it", "pl": "pl", "ru": "ru"}
#: Words a minute eSpeak NG can say (its -s option); 175 is its own default.
RATE_MIN, RATE_MAX, RATE_DEFAULT = 80, 450, 175
#: eSpeak NG's amplitude (its -a option): 100 is its own default, 200 twice as loud.
VOLUME_MIN, VOLUME_MAX, VOLUME_DEFAULT = 0, 200, 100
#: The longest voice or ALSA device name taken from the file.
NAME_MAX = 64
#: The most characters ``companion say`` says in one go.
TEXT_MAX = 2000


class Speech(NamedTuple):
    """``[speech]``: off unless asked; every kind said when on."""

    enabled: bool = False
    rate: int = RATE_DEFAULT
    volume: int = VOLUME_DEFAULT
    voice: str = ""
    say: tuple[str, ...] = KINDS
    device: str = ""


def voice_for(speech: Speech, language: str) -> str:
    """The eSpeak NG voice to speak ``language`` with: ``[speech] voice`` if set, else
    the language's own."""
    return speech.voice or VOICES.get(language, VOICES[LANGUAGES[0]])


def _name_ok(name: str, extra: str) -> bool:
    return 0 < len(name) <= NAME_MAX and all(
        c.isascii() and (c.isalnum() or c in extra) for c in name)


def check_voice(name: str) -> str:
    """``name`` if it can name an eSpeak NG voice ("de", "en-us", "en+f3", "mb-de1");
    ValueError says what is wrong. A voice that is well formed but not installed is
    found out when the device first speaks (one line in the log and on Settings)."""
    if not _name_ok(name, "-+_") or name.startswith("-"):
        raise ValueError(_("must name an espeak-ng voice, e.g. \"de\" or \"en-us\" "
                           "(espeak-ng --voices lists them), not {value}").format(
                               value=written(name)))
    return name


def check_device(name: str) -> str:
    """``name`` if it can name an ALSA device ("default", "hw:1,0",
    "plughw:CARD=MAX98357A,DEV=0"); ValueError says what is wrong."""
    if not _name_ok(name, "-_:=,.") or name.startswith("-"):
        raise ValueError(_("must name an ALSA device, e.g. \"plughw:CARD=MAX98357A,DEV=0\" "
                           "(aplay -L lists them), not {value}").format(value=written(name)))
    return name


def check_speech(speech: Speech, fail: Callable[[str, str], None]) -> None:
    """Every ``[speech]`` value; ``fail(key, problem)`` for the first one that is wrong."""
    if not RATE_MIN <= speech.rate <= RATE_MAX:
        fail("speech.rate", _("must be from {low} to {high} words a minute, not {value}")
             .format(low=RATE_MIN, high=RATE_MAX, value=speech.rate))
    if not VOLUME_MIN <= speech.volume <= VOLUME_MAX:
        fail("speech.volume", _("must be from {low} to {high}, not {value}").format(
            low=VOLUME_MIN, high=VOLUME_MAX, value=speech.volume))
    for key, check in (("voice", check_voice), ("device", check_device)):
        value = getattr(speech, key)
        if value:
            try:
                check(value)
            except ValueError as problem:
                fail(f"speech.{key}", str(problem))
    for kind in speech.say:
        if kind not in KINDS:
            fail("speech.say", _("may list {kinds}, not {value}").format(
                kinds=", ".join(f'"{name}"' for name in KINDS), value=written(kind[:40])))
    if len(set(speech.say)) != len(speech.say):
        fail("speech.say", _("lists a kind twice: {value}").format(
            value=written(list(speech.say))))
