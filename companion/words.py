"""Counting things in words, the one way every screen and report does it::

    >>> counted(1, "die"), counted(15, "die"), counted(1, "round"), counted(2.5, "round")
    ('1 die', '15 dice', '1 round', '2.5 rounds')

Every noun counted has its own ``ngettext`` pair in :data:`COUNTS`, so each language
says "3 dice" with its own plural forms (Russian and Polish have three); a noun the
table lacks is refused (``KeyError``) rather than shown in English.

Sizes are said the one way too (:func:`size`): "40 KB", "2.1 MB", in the units and
with the decimal point the language writes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from companion import lang
from companion.lang import ngettext, pgettext

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
    # Translators: people playing, or on the roster ("4 players").
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


#: The units a size is said in, smallest first: (bytes in one, its words). Steps of
#: 1000, as a stick's label and the file managers count.
SIZE_UNITS: tuple[tuple[int, Callable[[], str]], ...] = (
    # Translators: a size in kilobytes ("40 KB"); {size} is the number as your language
    # writes it (with its decimal point: "2,5").
    (10**3, lambda: pgettext("screen 21x8", "{size} KB")),
    (10**6, lambda: pgettext("screen 21x8", "{size} MB")),
    (10**9, lambda: pgettext("screen 21x8", "{size} GB")),
)


def size(count: int, *, up: bool) -> str:
    """``count`` bytes as a person reads a size: "40 KB", "2.1 MB", "339 MB" (one
    decimal below 10 of a unit). What is needed is rounded up and what is free down,
    so a refusal never reads "needs 3 MB; 3 MB free".

    >>> size(40_960, up=False), size(2_100_001, up=True), size(339_000_000, up=True)
    ('40 KB', '2.2 MB', '339 MB')
    >>> size(0, up=False), size(999_999, up=True), size(11_264, up=True)
    ('0 KB', '1 MB', '12 KB')
    """
    rounding = math.ceil if up else math.floor
    for unit, words in SIZE_UNITS:
        tenths = rounding(count * 10 / unit)
        value = tenths / 10 if tenths < 100 else rounding(count / unit)
        if value < 1000 or unit == SIZE_UNITS[-1][0]:
            return words().format(size=lang.number(value))
    raise AssertionError("the last unit takes any size")
