"""Counting things in words, the one way every screen and report does it::

    >>> counted(1, "die"), counted(15, "die"), counted(1, "round"), counted(2.5, "round")
    ('1 die', '15 dice', '1 round', '2.5 rounds')
"""

from __future__ import annotations

from collections.abc import Iterable

#: Plurals that are not the word with an "s".
_IRREGULAR = {"die": "dice", "match": "matches", "pass": "passes", "try": "tries"}


def plural(noun: str) -> str:
    """``noun`` for more than one (or none): "dice", "rounds"."""
    return _IRREGULAR.get(noun, noun + "s")


def and_list(names: Iterable[object]) -> str:
    """Names as a person lists them: "Ann", "Ann and Bob", "Ann, Bob and Cy"."""
    words = [str(name) for name in names]
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def counted(number: float, noun: str) -> str:
    """``number`` and ``noun``, singular for exactly one: "1 die", "3 dice", "0 games"."""
    return f"{number:g} {noun if number == 1 else plural(noun)}"
