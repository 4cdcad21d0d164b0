"""``companion say TEXT [--wav FILE]``: one phrase in the configured voice.

The voice is ``[speech]``'s (its ``voice``, else the one of ``[ui] language``), at its
rate and volume, played through ``[speech] device`` like the device's own words, or
written to a WAV file (mono, 16 bit, 22050 Hz, as eSpeak NG makes it). No espeak-ng, no
sound card, a voice espeak-ng does not have, a file that cannot be written: one line
and exit status 1.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from companion.device.speaker import Utterance, espeak_binary, find_output, say_and_wait, write_wav
from companion.errors import SpeechProblem
from companion.lang import _
from companion.voices import voice_for


def configured_utterance(config: Any, text: str) -> Utterance:
    """``text`` in the voice, rate and volume the configuration gives."""
    speech = config.speech
    return Utterance(text, voice_for(speech, config.ui.language), speech.rate, speech.volume)


def say_main(config: Any, text: str, *, wav: str | None = None,
             out: TextIO | None = None) -> int:
    """Say ``text`` (or write it to ``wav``); 0 when done, SpeechProblem otherwise."""
    out = out or sys.stdout
    utterance = configured_utterance(config, text)
    if wav:
        write_wav(espeak_binary(), utterance, wav)
        print(_("companion: wrote {path}").format(path=wav), file=out)
        return 0
    output = find_output(config.speech.device)
    problem = say_and_wait(output, utterance)
    if problem:
        raise SpeechProblem(problem)
    print(_("companion: said it through {device}").format(device=output.through), file=out)
    return 0
