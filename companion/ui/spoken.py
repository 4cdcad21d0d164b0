"""What a game says aloud: each event's announcements, kind by kind.

Every game says its own through one hook, a :class:`GameWords` (each game's own is a
module of its screens package, ``aloud.py``, and the ``words`` of its ``SCREENS``).
After each event :meth:`GameWords.said` is given the event, the few facts the words
kept of the match before it (:meth:`GameWords.facts`: cheap, taken after every event)
and the match after it, and returns what to say, in the language spoken now::

    >>> from companion.games import new_match
    >>> match = new_match("count-up-21", ["Ann", "Bob"])
    >>> words = GameWords()
    >>> before = words.facts(match)
    >>> match.apply({"type": "play", "player": "Ann", "card": 7})
    >>> words.said({"type": "play", "player": "Ann", "card": 7}, before, match)
    [Said(kind='turns', text="Bob's turn")]

What every game shares: whose turn it is when the turn changes (a game may say it its own
way), a refusal in a few words, the turn timer's warnings, and the helpers of a result
(:func:`standings`, :func:`final_result`). A game without words of its own (one
from a newer device) says only those.

The words are sentences a person hears, never what the screen abbreviates: they carry
the message context "spoken" in the catalogs (docs/translating.md). Never a verb or an
adjective that agrees with a player's gender beside a name: "{player}: time is up".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from companion.lang import and_list, npgettext, pgettext
from companion.table import scores

#: The longest refusal said as it is written (longer ones are never a few words).
FEW_WORDS_MAX = 160
#: What only a value typed from afar looks like in a refusal (:func:`companion.errors.
#: written`): text in quotes, a list or an object, a number no rule names (its digits
#: read out one long word after another: 12345678901234567890, 1e+300, 2.5).
_TYPED = re.compile(r'["\[{]|\d{7,}|\d\.\d|\d[eE][+-]?\d')
#: A minus sign before a number, not inside a word or a range ("Cy -5", not "1-6").
_NEGATIVE = re.compile(r"(?<!\w)[-\u2212](\d+)")


class Said(NamedTuple):
    """One announcement: its kind (one of :data:`companion.voices.KINDS`) and its words."""

    kind: str
    text: str


class GameWords:
    """The words every game has; a game's own module subclasses it."""

    def facts(self, match: Any) -> dict[str, Any]:
        """What to keep of ``match`` for the next event's words (whose turn it is)."""
        return {"turn": whose_turn(match)}

    def said(self, event: dict[str, Any], before: dict[str, Any] | None,
             match: Any) -> list[Said]:
        """The announcements of ``event`` now applied to ``match``. ``before`` is what
        :meth:`facts` kept before it (None: not known, e.g. a game resumed mid-hand)."""
        return self.turn(before, match)

    def turn(self, before: dict[str, Any] | None, match: Any) -> list[Said]:
        """"Bob's turn" when the turn has changed hands (nothing when it is nobody's)."""
        player = whose_turn(match)
        if player is None or before is None or before.get("turn") == player:
            return []
        return [Said("turns", pgettext("spoken", "{player}'s turn").format(player=player))]

    def refused(self, reason: str) -> list[Said]:
        """A refusal in a few words: its reason without what the brackets explain."""
        return [Said("refusals", pgettext("spoken", "Sorry: {reason}").format(
            reason=few_words(reason)))]

    def timer(self, alert: str, player: str, seconds: int) -> list[Said]:
        """The turn timer's ``alert`` for ``player``: "warning" (``seconds`` left) or
        "end"."""
        if alert == "end":
            return [Said("timer", pgettext("spoken", "{player}: time is up").format(
                player=player))]
        return [Said("timer", npgettext("spoken", "{player}, {n} second left",
                                        "{player}, {n} seconds left", seconds).format(
                                            player=player, n=seconds))]


def listed(pairs: Iterable[tuple[str, object]]) -> str:
    """Names each with a number, as a list is said: "Ann 340, Bob 280"."""
    return pgettext("between names in a list", ", ").join(
        f"{name} {value}" for name, value in pairs)


def ranked(totals: Mapping[str, int], high_wins: bool = True) -> str:
    """"Ann 340, Bob 280, Cy 250": the best first (the lowest when low wins)."""
    return listed((name, total) for _, name, total in scores.standings(totals, high_wins))


def standings(totals: Mapping[str, int], high_wins: bool = True) -> str:
    """"Standings: Ann 340, Bob 280, Cy 250", the best first (the lowest when low wins)."""
    return pgettext("spoken", "Standings: {players}").format(players=ranked(totals, high_wins))


def final_result(totals: Mapping[str, int], winners: list[str], *, high_wins: bool = True,
                 match: bool = False, losses: bool = False, how: str = "") -> str:
    """The result said at the end: "Game over. Winner: Ann with 340 points. Standings:
    Ann 340, Bob 280" (``match``: "Match over. ..."; ``losses``: the totals are a match's
    losses, the fewest first). ``how`` is said between, when a tie needed breaking."""
    best = totals[winners[0]] if winners else 0
    head = _result_head(len(winners) > 1, match, losses, best)
    tail = (pgettext("spoken", "Losses: {players}") if losses
            else pgettext("spoken", "Standings: {players}"))
    parts = (head.format(names=and_list(winners), n=best), how,
             tail.format(players=ranked(totals, high_wins and not losses)))
    return ". ".join(part for part in parts if part)


def _result_head(many: bool, match: bool, losses: bool, n: int) -> str:
    """Who won what, with how many: one winner or a tie, a game or a match."""
    if losses:
        return (npgettext("spoken", "Match over. Winners: {names} with {n} loss each",
                          "Match over. Winners: {names} with {n} losses each", n) if many
                else npgettext("spoken", "Match over. Winner: {names} with {n} loss",
                               "Match over. Winner: {names} with {n} losses", n))
    if match:
        return (npgettext("spoken", "Match over. Winners: {names} with {n} point",
                          "Match over. Winners: {names} with {n} points", n) if many
                else npgettext("spoken", "Match over. Winner: {names} with {n} point",
                               "Match over. Winner: {names} with {n} points", n))
    return (npgettext("spoken", "Game over. Winners: {names} with {n} point",
                      "Game over. Winners: {names} with {n} points", n) if many
            else npgettext("spoken", "Game over. Winner: {names} with {n} point",
                           "Game over. Winner: {names} with {n} points", n))


def numbers_aloud(text: str) -> str:
    """``text`` with the word for minus before a negative number: the Spanish, French,
    Polish and Russian voices say "Cy -5" as "Cy 5" (a score lost its sign), and U+2212
    makes every voice but the English one switch to English for it."""
    if "-" not in text and "\u2212" not in text:
        return text
    # Translators: a negative number said aloud, "Cy minus 5" ({n} are its digits).
    minus = pgettext("spoken", "minus {n}")
    return _NEGATIVE.sub(lambda digits: minus.format(n=digits.group(1)), text)


def whose_turn(match: Any) -> str | None:
    """The player the match waits for (None: nobody in particular, or it is over)."""
    return None if match.over else match.expecting().player


def few_words(reason: str) -> str:
    """A refusal's reason as it is said: its first clause, without brackets. What a
    console or a page typed is never read aloud: a reason that quotes it (a value as
    :func:`companion.errors.written` writes it: text in JSON's double quotes, a list,
    an object, a number no rule would name) is said as "the move is refused"."""
    plain = re.sub(r"\s*\([^)]*\)", "", str(reason)).strip()
    words = re.split(r";\s*", plain, maxsplit=1)[0].strip() or str(reason)
    if _TYPED.search(words) or len(words) > FEW_WORDS_MAX:
        return pgettext("spoken", "the move is refused")
    return words
