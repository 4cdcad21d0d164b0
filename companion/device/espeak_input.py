"""What eSpeak NG reads: an utterance's words as the SSML text given to ``espeak-ng -m``,
so that whatever a name holds is said and never obeyed, and a name in another alphabet
is said by a voice that reads that alphabet.

espeak-ng reads its input with conventions of its own, even without ``-m``: ``[[...]]``
is phoneme mnemonics (a player named "Ann[[" made the rest of the moment gibberish) and
a control character starts an embedded command (``\\x01`` then ``300S`` changes the
rate). Both are taken out here: a control character becomes a space, and ``[[`` is
written ``[ [``. The rest of the text is escaped for SSML, so ``<speak>`` is read as
the word it spells.

A voice reads its own alphabet; the German, English, French, Spanish, Italian and
Polish voices spell a Cyrillic name letter by letter ("kyrillisch a, kyrillisch en,
..."), and the English one spells a Greek name ("zeta, omega, iota"). So a run of
Cyrillic or Greek words (with the punctuation after it) is given to the Russian or the
Greek voice, in the variant of the table's (``de+f3``: ``ru+f3``), and every other piece
to the table's voice, each piece in a ``<voice>`` of its own: espeak-ng does not always
go back to the voice of ``-v`` after a ``</voice>`` (it stays Russian after one with
``-v en`` or ``-v fr``)::

    >>> espeak_text("Анна, 3: zieh eine Karte", "de+f3")
    '<voice name="ru+f3">Анна,</voice><voice name="de+f3"> 3: zieh eine Karte</voice>'
    >>> espeak_text("Ann[[ <b>", "en")
    '<voice name="en">Ann[ [ &lt;b&gt;</voice>'
"""

from __future__ import annotations

import re
import unicodedata
from xml.sax.saxutils import escape

#: Letters of each alphabet a voice may not read (with the combining accents a name in
#: it may carry), the voice that reads it, and the languages of voices reading it.
_ALPHABETS = (
    ("\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f", "ru",
     frozenset(("ru", "uk", "be", "bg", "mk", "sr", "ba", "cv", "kk", "ky", "tt"))),
    ("\u0370-\u03ff\u1f00-\u1fff", "el", frozenset(("el", "grc"))),
)
_ACCENTS = "\u0300-\u036f"


def _run(letters: str) -> re.Pattern[str]:
    """Words in ``letters`` one after another (spaces, hyphens, apostrophes and dots
    between them) and the punctuation that follows: said by one voice, pausing where
    the punctuation says."""
    word = f"[{letters}][{letters}{_ACCENTS}]*"
    return re.compile(f"{word}(?:[\\s'\u2019.-]+{word})*[,.:;!?]*")


_RUNS = [(_run(letters), voice, languages) for letters, voice, languages in _ALPHABETS]
_PHONEMES = re.compile(r"\[(?=\[)")


def plain(text: str) -> str:
    """``text`` without what espeak-ng would obey: control characters (embedded commands)
    become spaces, ``[[`` (phoneme input) becomes ``[ [``."""
    text = "".join(" " if unicodedata.category(c) == "Cc" else c for c in text)
    return _PHONEMES.sub("[ ", text)


def _language(voice: str) -> str:
    """The language of an eSpeak NG voice name ("en-us+f3": "en")."""
    return voice.partition("+")[0].partition("-")[0].lower()


def espeak_text(text: str, voice: str) -> str:
    """``text`` as SSML for ``espeak-ng -m -v voice`` (see the module docstring)."""
    text = plain(text)
    language, variant = _language(voice), voice.partition("+")[2]
    foreign: list[tuple[int, int, str]] = []
    for pattern, other, languages in _RUNS:
        if language not in languages:
            other = f"{other}+{variant}" if variant else other
            foreign += [(m.start(), m.end(), other) for m in pattern.finditer(text)]
    pieces: list[tuple[str, str]] = []
    at = 0
    for start, end, other in sorted(foreign):
        if start < at:
            continue  # inside a run already taken (the two alphabets never overlap)
        pieces += [(voice, text[at:start]), (other, text[start:end])]
        at = end
    pieces.append((voice, text[at:]))
    return "".join(f'<voice name="{name}">{escape(words)}</voice>'
                   for name, words in pieces if words)
