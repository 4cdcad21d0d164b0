"""Counting things in words, the one way every screen and report does it::

    >>> counted(1, "die"), counted(15, "die"), counted(1, "round"), counted(2.5, "round")
    ('1 die', '15 dice', '1 round', '2.5 rounds')

Every noun counted has its own ``ngettext`` pair in :data:`COUNTS`, so each language
says "3 dice" with its own plural forms (Russian and Polish have three); a noun the
table lacks is refused (``KeyError``) rather than shown in English.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from companion import lang
from companion.lang import ngettext

#: Plurals that are not the word with an "s" (English only: :func:`plural`).
_IRREGULAR = {"die": "dice", "match": "matches", "pass": "passes", "try": "tries"}

#: Each noun counted anywhere, as ``n -> "{n} ..."`` in the current language. ``{n}``
#: is the number as the language writes it.
COUNTS: dict[str, Callable[[int], str]] = {
    "card": lambda n: ngettext("{n} card", "{n} cards", n),
    "die": lambda n: ngettext("{n} die", "{n} dice", n),
    "event": lambda n: ngettext("{n} event", "{n} events", n),
    # Translators: games of a match ("3 games").
    "game": lambda n: ngettext("{n} game", "{n} games", n),
    # Translators: hands of a card game, the rounds of dealing ("2 hands").
    "hand": lambda n: ngettext("{n} hand", "{n} hands", n),
    # Translators: matches played (a match is a game or a set of games).
    "match": lambda n: ngettext("{n} match", "{n} matches", n),
    # Translators: passes of the guided shuffle (dealing the deck into piles once).
    "pass": lambda n: ngettext("{n} pass", "{n} passes", n),
    # Translators: piles of cards the guided shuffle deals into.
    "pile": lambda n: ngettext("{n} pile", "{n} piles", n),
    "player": lambda n: ngettext("{n} player", "{n} players", n),
    "round": lambda n: ngettext("{n} round", "{n} rounds", n),
    # Translators: tries left at typing a pairing code ("2 tries left").
    "try": lambda n: ngettext("{n} try", "{n} tries", n),
}


def plural(noun: str) -> str:
    """``noun`` for more than one (or none), in English: "dice", "rounds"."""
    return _IRREGULAR.get(noun, noun + "s")


def and_list(names: Iterable[object]) -> str:
    """Names as a person lists them: "Ann", "Ann and Bob", "Ann, Bob and Cy" (in the
    current language: :func:`companion.lang.and_list`)."""
    return lang.and_list(names)


def counted(number: float, noun: str) -> str:
    """``number`` and ``noun``, singular for exactly one: "1 die", "3 dice", "0 games",
    in the current language; ``noun`` must be one of :data:`COUNTS` (KeyError if not)."""
    if noun not in COUNTS:
        raise KeyError(f"words.counted has no plural forms for {noun!r}: add it to COUNTS")
    # A fraction (2.5 rounds) takes the form a language uses for 2: the plural in
    # English and German, the "few" form Russian and Polish give fractions.
    form = int(number) if float(number).is_integer() else 2
    return COUNTS[noun](form).format(n=lang.number(number))
