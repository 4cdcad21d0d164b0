"""What a game says aloud: each event's announcements, kind by kind.

Every game says its own through one hook, a :class:`GameWords` (the games' own are in
this package, one module a game, listed in :data:`companion.speech.announcer.GAME_WORDS`).
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

A game without words of its own says whose turn it is when the turn changes, its
refusals in a few words and the turn timer's warnings, which every game shares.

The words are sentences a person hears, never what the screen abbreviates: they carry
the message context "spoken" in the catalogs (docs/translating.md). Never a verb or an
adjective that agrees with a player's gender beside a name: "{player}: time is up".
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from companion.lang import npgettext, pgettext


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


def whose_turn(match: Any) -> str | None:
    """The player the match waits for (None: nobody in particular, or it is over)."""
    return None if match.over else match.expecting().player


def few_words(reason: str) -> str:
    """A refusal's reason as it is said: its first clause, without brackets."""
    plain = re.sub(r"\s*\([^)]*\)", "", str(reason)).strip()
    return re.split(r";\s*", plain, maxsplit=1)[0].strip() or str(reason)
